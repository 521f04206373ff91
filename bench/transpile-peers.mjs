// Transpile timings of esbuild and @swc/core on the bench corpus, for
// `gg bench`'s transpile row.
//
//   node bench/transpile-peers.mjs CORPUS_DIR PASSES
//
// Prints one line per tool and file: `TOOL<TAB>FILE<TAB>MICROSECONDS`
// (the median over PASSES passes), or `TOOL<TAB>FILE<TAB>error` when the
// tool refuses the file; a tool that cannot be loaded prints
// `TOOL<TAB>missing<TAB>reason`. One warm-up pass is not timed.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const [dir, passesArg] = process.argv.slice(2);
const passes = Math.max(1, Number(passesArg) || 5);
const require = createRequire(process.env.GG_BENCH_PEERS + "/package.json");
const files = readdirSync(dir).filter((f) => f.endsWith(".ts")).sort();
const sources = files.map((f) => readFileSync(join(dir, f), "utf8"));

const tools = {
  // esbuild's async API: its sync one pays more per call to reach the
  // esbuild service (about 1.7× here), so this is the faster of the two.
  esbuild: () => {
    const esbuild = require("esbuild");
    return async (code) => (await esbuild.transform(code, { loader: "ts", format: "esm", target: "es2022" })).code;
  },
  swc: () => {
    const swc = require("@swc/core");
    return (code) =>
      swc.transformSync(code, {
        jsc: { parser: { syntax: "typescript" }, target: "es2022" },
        isModule: true,
        sourceMaps: false,
      }).code;
  },
};

const lines = [];
for (const [name, load] of Object.entries(tools)) {
  let run;
  try {
    run = load();
  } catch (e) {
    lines.push(`${name}\tmissing\t${String(e.message).split("\n")[0]}`);
    continue;
  }
  const samples = sources.map(() => []);
  const failed = sources.map(() => false);
  for (let pass = 0; pass <= passes; pass++) {
    for (const [i, source] of sources.entries()) {
      if (failed[i]) continue;
      const t0 = process.hrtime.bigint();
      try {
        await run(source);
      } catch {
        failed[i] = true;
        continue;
      }
      if (pass > 0) samples[i].push(Number(process.hrtime.bigint() - t0) / 1000);
    }
  }
  files.forEach((file, i) => {
    if (failed[i]) {
      lines.push(`${name}\t${file}\terror`);
    } else {
      const s = samples[i].sort((a, b) => a - b);
      lines.push(`${name}\t${file}\t${s[s.length >> 1].toFixed(1)}`);
    }
  });
}
process.stdout.write(lines.join("\n") + "\n");
