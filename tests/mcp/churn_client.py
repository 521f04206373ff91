"""Opens, uses and closes MCP sessions one after another against `gg mcp
--http`, with the official Python SDK, and reports the server's resident
memory, threads and open files after the first CHECKPOINT sessions and after
the last.

Usage: churn_client.py URL SERVER_PID SESSIONS CHECKPOINT
"""
import asyncio, json, os, sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def server_figures(pid):
    status = open(f"/proc/{pid}/status").read()
    field = lambda name: int(next(l for l in status.splitlines() if l.startswith(name + ":")).split()[1])
    return {
        "rss_kb": field("VmRSS"),
        "threads": field("Threads"),
        "files": len(os.listdir(f"/proc/{pid}/fd")),
    }


async def one_session(url, i):
    async with streamable_http_client(url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            r = await session.call_tool("run_program", {"program": f"export default {i} + 1;"})
            text = "\n".join(c.text for c in r.content if getattr(c, "type", "") == "text")
            if r.is_error or f"value: {i + 1}" not in text:
                raise SystemExit(f"session {i}: unexpected answer {text!r}")


async def settle(pid):
    # Ended sessions are released on the server's side after the client has
    # gone: give it a moment before reading its figures.
    await asyncio.sleep(0.5)
    return server_figures(pid)


async def main():
    url, pid, sessions, checkpoint = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    out = {}
    for i in range(sessions):
        await one_session(url, i)
        if i + 1 == checkpoint:
            out["checkpoint"] = await settle(pid)
    out["last"] = await settle(pid)
    print(json.dumps(out))


asyncio.run(main())
