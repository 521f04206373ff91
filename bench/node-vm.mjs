// Node.js peer rows for `gg bench`: the 3-call program, stripped by esbuild
// (transformSync to CommonJS, so `import { views } from "gg"` becomes a
// require of the stand-in), run in a `vm` context.
//
//   node bench/node-vm.mjs turn RUNS PROGRAM.ts [once]   one reused context
//   node bench/node-vm.mjs fresh RUNS PROGRAM.ts [once]  vm.createContext per run
//   node bench/node-vm.mjs memory N PROGRAM.ts    resident KB: before, after 1
//                                                 and after N live contexts
//
// Each run transpiles and runs the program, as a gg turn does; with `once`
// the program is stripped once up front and each run only runs it. Prints
// one sample per line in microseconds, after a warm-up of 50 runs.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import vm from "node:vm";
import * as standin from "./gg-standin.mjs";

const [mode, runsArg, file, stripOnce] = process.argv.slice(2);
const runs = Number(runsArg);
if (!["turn", "fresh", "memory"].includes(mode) || !(runs > 0) || !file) {
  console.error("usage: node-vm.mjs turn|fresh|memory RUNS PROGRAM.ts");
  process.exit(2);
}
const require = createRequire(process.env.GG_BENCH_PEERS + "/package.json");
const esbuild = require("esbuild");
const source = readFileSync(file, "utf8");
const ggRequire = (name) => {
  if (name !== "gg") throw new Error(`cannot import ${name}`);
  return standin;
};

let shared = vm.createContext({});
const strip = () => esbuild.transformSync(source, { loader: "ts", format: "cjs", target: "es2022" }).code;
const stripped = stripOnce === "once" ? strip() : null;
function once(context = mode === "fresh" ? vm.createContext({}) : shared) {
  const code = stripped ?? strip();
  const wrapped = new vm.Script(`(function (require, module, exports) {${code}\n})`, { filename: "program.js" });
  const module = { exports: {} };
  wrapped.runInContext(context)(ggRequire, module, module.exports);
  if (module.exports.default !== 3) throw new Error("the program did not return 3");
}

if (mode === "memory") {
  // Each context runs the program once and stays alive, as an idle instance.
  const rssKb = () => Math.round(process.memoryUsage().rss / 1024);
  const live = [];
  const keep = () => {
    const context = vm.createContext({});
    once(context);
    live.push(context);
  };
  once(); // load esbuild and the stand-in before the baseline
  const before = rssKb();
  keep();
  const one = rssKb();
  while (live.length < runs) keep();
  process.stdout.write(`${before} ${one} ${rssKb()}\n`);
  process.exit(0);
}

for (let i = 0; i < 50; i++) once();
const out = [];
for (let i = 0; i < runs; i++) {
  const t0 = process.hrtime.bigint();
  once();
  out.push((Number(process.hrtime.bigint() - t0) / 1000).toFixed(1));
}
process.stdout.write(out.join("\n") + "\n");
