"""Opens, uses and closes MCP sessions one after another against `gg mcp
--http`, with the official Python SDK, and reports the server's resident
memory, threads and open files after the first CHECKPOINT sessions and after
the last, and the median time to connect over the first and the last
CHECKPOINT sessions.

Usage: churn_client.py URL SERVER_PID SESSIONS CHECKPOINT [abandon SECONDS]

With `abandon`, every session is left without DELETE (a client that went
away) and the last figures are read SECONDS after the last session, when
the server's idle timeout should have ended them all.
"""
import asyncio, json, os, sys, time

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


async def one_session(url, i, abandon):
    """Runs session i; returns how long connecting (through `initialize`) took, in ms."""
    started = time.perf_counter()
    async with streamable_http_client(url, terminate_on_close=not abandon) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            connected = (time.perf_counter() - started) * 1000
            r = await session.call_tool("run_program", {"program": f"export default {i} + 1;"})
            text = "\n".join(c.text for c in r.content if getattr(c, "type", "") == "text")
            if r.is_error or f"value: {i + 1}" not in text:
                raise SystemExit(f"session {i}: unexpected answer {text!r}")
    return connected


async def settle(pid, seconds=0.5):
    # Ended sessions are released on the server's side after the client has
    # gone: give it a moment before reading its figures.
    await asyncio.sleep(seconds)
    return server_figures(pid)


async def main():
    url, pid, sessions, checkpoint = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    abandon = len(sys.argv) > 5 and sys.argv[5] == "abandon"
    wait = float(sys.argv[6]) if abandon else 0.5
    out = {"start": server_figures(pid)}
    connect_ms = []
    for i in range(sessions):
        connect_ms.append(await one_session(url, i, abandon))
        if i + 1 == checkpoint:
            out["checkpoint"] = await settle(pid)
    out["open"] = server_figures(pid)
    out["last"] = await settle(pid, wait)
    # Reported, not judged (timings belong to benchmarks): the median time
    # to connect over the first CHECKPOINT sessions and over the last ones.
    median = lambda xs: sorted(xs)[len(xs) // 2] if xs else None
    out["connect_ms_median_first"] = median(connect_ms[:checkpoint])
    out["connect_ms_median_last"] = median(connect_ms[-checkpoint:])
    print(json.dumps(out))


asyncio.run(main())
