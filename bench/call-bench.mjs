// The tool-call row's peer (`gg bench --only tool-call`): a copy of
// tests/tools/call-bench.mjs. `gg bench` copies it into target/bench-peers/
// before running it, so its imports resolve to the SDK bench/setup pinned.
//
// Bench peer: times sequential tools/call round trips through the official
// TypeScript SDK client over stdio, for comparison with our own client.
//
// Usage:
//   node call-bench.mjs <iterations> <tool> <argsJSON> <command> [args...]
// e.g.
//   node call-bench.mjs 500 echo '{"message":"hi"}' \
//     node node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio
//
// Connects once, makes 20 warm-up calls, then times <iterations> calls one
// after another with performance.now() and prints one JSON line:
//   {"medianMicros":..., "meanMicros":..., "iterations":N}
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const WARMUP = 20;
const [iterationsArg, tool, argsJson, command, ...args] = process.argv.slice(2);
const iterations = Number.parseInt(iterationsArg, 10);
if (!(iterations > 0) || !tool || argsJson === undefined || !command) {
  console.error("usage: node call-bench.mjs <iterations> <tool> <argsJSON> <command> [args...]");
  process.exit(2);
}
const toolArgs = JSON.parse(argsJson);

const client = new Client({ name: "call-bench", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));

const call = async () => {
  const result = await client.callTool({ name: tool, arguments: toolArgs });
  if (result.isError) {
    const text = (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
    throw new Error(`tool ${tool} returned isError: ${text}`);
  }
};

for (let i = 0; i < WARMUP; i++) await call();

const micros = new Array(iterations);
for (let i = 0; i < iterations; i++) {
  const start = performance.now();
  await call();
  micros[i] = (performance.now() - start) * 1000;
}

micros.sort((a, b) => a - b);
const mid = iterations >> 1;
const median = iterations % 2 ? micros[mid] : (micros[mid - 1] + micros[mid]) / 2;
const mean = micros.reduce((s, x) => s + x, 0) / iterations;
const round = (x) => Math.round(x * 10) / 10;
console.log(JSON.stringify({ medianMicros: round(median), meanMicros: round(mean), iterations }));

await client.close();
process.exit(0);
