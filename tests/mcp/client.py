"""Drives `gg mcp` over stdio with the official Python MCP SDK client.

Usage: client.py GG_BINARY STATE_DIR WORKSPACE MODE(code|tools) AGENT
Prints one JSON line per check; exits non-zero on the first failure.
"""
import asyncio, json, sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main():
    gg, state, workspace, mode, agent = sys.argv[1:6]
    profile = sys.argv[6] if len(sys.argv) > 6 else None
    args = ["mcp", "--state", state, "--workspace", workspace, "--agent", agent]
    if profile:
        args += ["--profile", profile]
    params = StdioServerParameters(command=gg, args=args)
    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            out["tools"] = [t.name for t in tools.tools]
            if mode == "code":
                out["description_has_dts"] = 'declare module "gg"' in tools.tools[0].description
                r = await session.call_tool("run_program", {"program": 'import { memories } from "gg"; memories.createMemory({ name: "csv-tools", description: "CSV helpers", body: "b", code: "export function parseCsv(t: string): string[] { return t.split(\\",\\"); }" }); export default "saved";'})
                out["create"] = {"error": r.is_error, "text": text_of(r)}
                r = await session.call_tool("run_program", {"program": 'import { memories } from "gg"; export default memories.readMemory("csv-tools").description;'})
                out["read"] = {"error": r.is_error, "text": text_of(r)}
                r = await session.call_tool("run_program", {"program": 'import { memories } from "gg"; memories.editMemory({ name: "csv-tools", oldString: "b", newString: "better body" }); import { parseCsv } from "csvTools"; export default parseCsv("a,b,c");'})
                out["import"] = {"error": r.is_error, "text": text_of(r)}
                r = await session.call_tool("run_program", {"program": 'import { memories } from "gg"; memories.createMemory({ name: "bad name!", description: "d", body: "b" });'})
                out["refusal"] = {"error": r.is_error, "text": text_of(r)}
            else:
                r = await session.call_tool("create_memory", {"name": "deploy", "description": "How deploys work", "body": "Deploy from main."})
                out["create"] = {"error": r.is_error, "text": text_of(r)}
                r = await session.call_tool("edit_memory", {"name": "deploy", "old_string": "main.", "new_string": "main, then verify."})
                out["edit"] = {"error": r.is_error, "text": text_of(r)}
                r = await session.call_tool("search_memories", {"keywords": ["deploy", "verify"]})
                out["search"] = {"error": r.is_error, "text": text_of(r)}
                r = await session.call_tool("create_memory", {"name": "deploy", "description": "again", "body": "x"})
                out["refusal"] = {"error": r.is_error, "text": text_of(r)}
            # Protocol errors, and the server keeps serving.
            code = out["tools"][0] == "run_program"
            checked = "run_program" if code else "read_memory"
            undeclared = {"program": "export default 1;", "extra": 1} if code else {"name": "deploy", "extra": 1}
            for name, arguments, key in [("no_such_tool", {}, "unknown"), (out["tools"][0], {"program": "x" * 300000, "name": "y" * 300000}, "oversized"), (checked, {}, "missing"), (checked, undeclared, "undeclared")]:
                try:
                    await session.call_tool(name, arguments)
                    out[key] = "no error"
                except Exception as e:  # the SDK raises McpError for protocol errors
                    out[key] = type(e).__name__ + ": " + str(e)
            again = await session.list_tools()
            out["still_serving"] = len(again.tools) == len(out["tools"])
            resources = await session.list_resources()
            out["resources"] = sorted(str(r.uri) for r in resources.resources)
            prompt = await session.read_resource("gg://agent/system-prompt")
            out["system_prompt_has_memories"] = "## Memories" in prompt.contents[0].text
    print(json.dumps(out))


asyncio.run(main())
