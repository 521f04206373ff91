"""Drives `gg mcp --http` over streamable HTTP with the Python MCP SDK.

Usage: http_client.py URL
"""
import asyncio, json, sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main():
    url = sys.argv[1]
    out = {}
    async with streamable_http_client(url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            out["tools"] = [t.name for t in tools.tools]
            r = await session.call_tool("run_program", {"program": 'import { memories } from "gg"; memories.createMemory({ name: "http-note", description: "over HTTP", body: "hello" }); export default memories.readMemory("http-note").body;'})
            out["run"] = {"error": r.is_error, "text": text_of(r)}
            r = await session.call_tool("run_program", {"program": 'import { memories } from "gg"; memories.readMemory("missing");'})
            out["refusal"] = {"error": r.is_error, "text": text_of(r)}
            try:
                await session.call_tool("nope", {})
                out["unknown"] = "no error"
            except Exception as e:
                out["unknown"] = type(e).__name__ + ": " + str(e)
            out["still_serving"] = len((await session.list_tools()).tools) == 1
    print(json.dumps(out))


asyncio.run(main())
