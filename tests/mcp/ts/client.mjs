// Drives `gg mcp` with the official TypeScript MCP SDK, over stdio and over
// streamable HTTP, and prints one JSON line with what it saw.
//
// Usage:
//   node client.mjs stdio GG STATE WORKSPACE TOOL_PROFILE
//   node client.mjs http URL BEARER_TOKEN [RESUME_TOKEN]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const text = (result) => result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
const client = () => new Client({ name: "gg-ts-test", version: "1.0.0" });

async function stdio([gg, state, workspace, toolProfile]) {
  const out = {};
  // Code mode, the default profile: run_program, and logging.
  const code = client();
  const heard = [];
  code.setNotificationHandler(LoggingMessageNotificationSchema, (n) => heard.push(n.params));
  await code.connect(new StdioClientTransport({ command: gg, args: ["mcp", "--state", state, "--workspace", workspace, "--agent", "ts-code"] }));
  out.server = code.getServerVersion();
  out.codeTools = (await code.listTools()).tools.map((t) => t.name);
  await code.setLoggingLevel("info");
  const run = await code.callTool({ name: "run_program", arguments: { program: 'console.log("from ts"); export default 40 + 2;' } });
  out.run = { isError: run.isError ?? false, text: text(run) };
  out.heard = heard;
  try {
    await code.callTool({ name: "run_program", arguments: { program: 7 } });
    out.badArgument = "no error";
  } catch (e) {
    out.badArgument = String(e.message);
  }
  await code.close();
  // Tool-calling mode with read-file granted: read_file is offered and reads.
  const tools = client();
  await tools.connect(new StdioClientTransport({ command: gg, args: ["mcp", "--state", state, "--workspace", workspace, "--agent", "ts-tools", "--profile", toolProfile] }));
  out.nativeTools = (await tools.listTools()).tools.map((t) => t.name);
  const read = await tools.callTool({ name: "read_file", arguments: { path: "src/notes.md", limit: 3 } });
  out.readFile = { isError: read.isError ?? false, text: text(read) };
  await tools.close();
  return out;
}

async function http([url, bearer, resume]) {
  const out = {};
  // Without the bearer token: refused.
  try {
    const c = client();
    await c.connect(new StreamableHTTPClientTransport(new URL(url)));
    out.withoutToken = "connected";
    await c.close();
  } catch (e) {
    out.withoutToken = String(e.message);
  }
  const headers = { Authorization: `Bearer ${bearer}` };
  if (resume) headers["Gg-Resume"] = resume;
  const c = client();
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  try {
    await c.connect(transport);
  } catch (e) {
    out.connectError = String(e.message);
    console.log(JSON.stringify(out));
    return null;
  }
  const run = await c.callTool({ name: "run_program", arguments: { program: "export default 1;" } });
  out.run = text(run);
  const session = await c.readResource({ uri: "gg://agent/session" });
  out.session = JSON.parse(session.contents[0].text);
  await transport.terminateSession();
  await c.close();
  return out;
}

const [mode, ...args] = process.argv.slice(2);
const out = await (mode === "stdio" ? stdio(args) : http(args));
if (out) console.log(JSON.stringify(out));
