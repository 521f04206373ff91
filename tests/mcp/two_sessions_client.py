"""Two MCP sessions on one `gg mcp --http` server: the first runs programs
that used to crash the host process, the second runs an ordinary program
after each and must keep getting its answer.

Usage: two_sessions_client.py URL PROGRAMS_JSON
Prints one JSON line: the hostile session's results and the other's.
"""
import asyncio, json, sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main():
    url, programs = sys.argv[1], json.loads(sys.argv[2])
    out = {"hostile": [], "other": []}
    async with streamable_http_client(url) as a, streamable_http_client(url) as b:
        async with ClientSession(a[0], a[1]) as hostile, ClientSession(b[0], b[1]) as other:
            await hostile.initialize()
            await other.initialize()
            for i, program in enumerate(programs):
                try:
                    r = await hostile.call_tool("run_program", {"program": program})
                    out["hostile"].append(text_of(r).splitlines()[0])
                except Exception as e:
                    out["hostile"].append("protocol error: " + str(e))
                r = await other.call_tool("run_program", {"program": f"export default {i} * 2;"})
                out["other"].append(text_of(r))
    print(json.dumps(out))


asyncio.run(main())
