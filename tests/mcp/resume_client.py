"""One session of `gg mcp --http` with the Python MCP SDK, new or resumed.

Usage: resume_client.py URL [TOKEN]

Without TOKEN the session starts a new agent; with it, the `initialize`
request carries `Gg-Resume: TOKEN`. The session runs one program and reads
the `gg://agent/session` resource; it prints one JSON line with what it saw,
or with the error `initialize` answered.
"""
import asyncio, json, sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main():
    url = sys.argv[1]
    token = sys.argv[2] if len(sys.argv) > 2 else None
    headers = {"Gg-Resume": token} if token else None
    out = {}
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                try:
                    await session.initialize()
                except Exception as e:
                    out["initialize_error"] = type(e).__name__ + ": " + str(e)
                    print(json.dumps(out))
                    return
                r = await session.call_tool("run_program", {"program": "export default 6 * 7;"})
                out["run"] = text_of(r)
                res = await session.read_resource("gg://agent/session")
                out["session"] = json.loads(res.contents[0].text)
                res = await session.read_resource("gg://agent/window")
                out["window"] = res.contents[0].text
    print(json.dumps(out))


asyncio.run(main())
