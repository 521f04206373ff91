// Copyright 2018-2026 the Deno authors. MIT license.

globalThis.op2_sample = {
  "use_state": (f) => Deno.core.ops.op_use_state(f),
};
