"""Drives `gg mcp --park-after 1` over stdio with the official Python MCP SDK
client: an agent that waits longer than that for its next call lets go of
its isolate, and the call after it runs in a fresh one, with the agent's
memories and loaded code as they were.

Usage: park_client.py GG_BINARY STATE_DIR WORKSPACE [EXTRA_ARGS...]
Prints one JSON line with what each call answered.
"""
import asyncio, json, sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

COUNT = 'globalThis.calls = (globalThis.calls ?? 0) + 1;'


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main():
    gg, state, workspace = sys.argv[1:4]
    args = ["mcp", "--state", state, "--workspace", workspace, "--park-after", "1"] + sys.argv[4:]
    out = {}
    async with stdio_client(StdioServerParameters(command=gg, args=args)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def call(key, program):
                r = await session.call_tool("run_program", {"program": program})
                out[key] = {"error": r.is_error, "text": text_of(r)}

            await call("first", COUNT + ' import { memories } from "gg"; memories.createMemory({ name: "shout", description: "upper-cases", body: "b", code: "export const shout = (s: string) => s.toUpperCase();" }); export default globalThis.calls;')
            await call("second", COUNT + ' import { memories } from "gg"; memories.readMemory("shout"); export default globalThis.calls;')
            await asyncio.sleep(2.5)
            await call("after_idle", COUNT + ' import { shout } from "shout"; export default [globalThis.calls, shout("parked")];')
            await call("next", COUNT + ' export default globalThis.calls;')
    print(json.dumps(out))


asyncio.run(main())
