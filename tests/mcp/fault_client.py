"""Drives `gg mcp --inject-engine-fault` over stdio with the official Python
MCP SDK: programs that hold an engine-level escape (read any file, read the
environment, crash the process) try it against the worker's walls.

Usage: fault_client.py GG_BINARY STATE_DIR WORKSPACE INSIDE_FILE OUTSIDE_FILE CANARY_VARIABLE [STATE_FILES]
STATE_FILES: a JSON list of paths under the state folder to try to read
once the agent has written its state (its own files and other agents').
Prints one JSON line with what each attempt returned.
"""
import asyncio, json, os, sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main():
    gg, state, workspace, inside, outside, variable = sys.argv[1:7]
    state_files = json.loads(sys.argv[7]) if len(sys.argv) > 7 else []
    args = ["mcp", "--state", state, "--workspace", workspace, "--inject-engine-fault"]
    # The server is started with this process's environment, canary included.
    params = StdioServerParameters(command=gg, args=args, env=dict(os.environ))
    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def run(key, program):
                try:
                    r = await session.call_tool("run_program", {"program": program})
                    out[key] = {"error": r.is_error, "text": text_of(r)}
                except Exception as e:
                    out[key] = {"error": True, "text": type(e).__name__ + ": " + str(e)}

            fault = "(globalThis as any).__ggInjectedFault"
            await run("inside", f"export default {fault}.readFile({json.dumps(inside)});")
            await run("outside", f"export default {fault}.readFile({json.dumps(outside)});")
            await run("environ", f'export default {fault}.readFile("/proc/self/environ");')
            await run("passwd", f'export default {fault}.readFile("/etc/passwd");')
            await run("variable", f"export default JSON.stringify({fault}.env({json.dumps(variable)}));")
            await run("remember", 'import { memories } from "gg"; memories.createMemory({ name: "kept", description: "before the crash", body: "still here" }); export default "saved";')
            for i, path in enumerate(state_files):
                await run(f"state{i}", f"export default {fault}.readFile({json.dumps(path)});")
            await run("crash", f"{fault}.abort(); export default 1;")
            await run("after", 'import { memories } from "gg"; export default memories.readMemory("kept").body;')
    print(json.dumps(out))


asyncio.run(main())
