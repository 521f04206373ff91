throw new Error("z".repeat(10_000_000));
