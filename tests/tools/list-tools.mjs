// Lists the tools of an MCP server reached over stdio with the official
// TypeScript SDK client, and prints them as JSON on stdout.
//
// Usage:
//   node list-tools.mjs <command> [args...]
// e.g.
//   node list-tools.mjs node node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node list-tools.mjs <command> [args...]");
  process.exit(2);
}

const client = new Client({ name: "list-tools", version: "1.0.0" });
// stderr: "inherit" keeps the server's banner out of our stdout.
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));

// Follow pagination, should the server page its tool list.
const tools = [];
let cursor;
do {
  const page = await client.listTools(cursor ? { cursor } : undefined);
  tools.push(...page.tools);
  cursor = page.nextCursor;
} while (cursor);

const out = {
  server: client.getServerVersion(),
  // name, description and the schemas first; then anything else the server
  // sent (title, annotations, execution, _meta, ...), unchanged.
  tools: tools.map(({ name, description, inputSchema, outputSchema, ...rest }) => ({
    name,
    description,
    inputSchema,
    ...(outputSchema !== undefined && { outputSchema }),
    ...rest,
  })),
};
process.stdout.write(JSON.stringify(out, null, 2) + "\n");
await client.close();
process.exit(0);
