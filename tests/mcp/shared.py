"""Two MCP sessions, two agents of one profile sharing its memory store:
the second sees the first's memories and gets its notice.

Usage: shared.py GG_BINARY STATE_DIR WORKSPACE
"""
import asyncio, json, sys
from contextlib import AsyncExitStack

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def session(stack, gg, state, workspace, agent):
    params = StdioServerParameters(command=gg, args=["mcp", "--state", state, "--workspace", workspace, "--agent", agent])
    read, write = await stack.enter_async_context(stdio_client(params))
    s = await stack.enter_async_context(ClientSession(read, write))
    await s.initialize()
    return s


async def main():
    gg, state, workspace = sys.argv[1:4]
    out = {}
    async with AsyncExitStack() as stack:
        alice = await session(stack, gg, state, workspace, "alice")
        bob = await session(stack, gg, state, workspace, "bob")
        # Both have joined the store before anything is written.
        await bob.call_tool("run_program", {"program": "export default 0;"})
        r = await alice.call_tool("run_program", {"program": 'import { memories } from "gg"; memories.createMemory({ name: "deploy-runbook", description: "how the staging cluster is rolled", body: "drain, roll, verify" });'})
        out["alice"] = text_of(r)
        r = await bob.call_tool("run_program", {"program": 'import { memories } from "gg"; export default memories.readMemory("deploy-runbook").body;'})
        out["bob"] = text_of(r)
        r = await bob.call_tool("run_program", {"program": "export default 1;"})
        out["bob_again"] = text_of(r)
    print(json.dumps(out))


asyncio.run(main())
