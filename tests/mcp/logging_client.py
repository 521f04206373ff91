"""Checks `gg mcp`'s logging notifications with the Python MCP SDK (stdio):
a program's console lines arrive as log messages at or above the level the
client set, and none before it sets one; each arrives as the program prints
it, while the call is still running.

Usage: logging_client.py GG STATE WORKSPACE
"""
import asyncio, json, sys, time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

PROGRAM = 'console.debug("quiet"); console.log("hello"); console.warn("careful"); console.error("bad"); export default 1;'
# Prints, then works for 1.5 s before it prints again and ends.
SLOW = 'console.log("started"); const t = Date.now(); while (Date.now() - t < 1500) {} console.log("ending"); export default 2;'


async def main():
    gg, state, workspace = sys.argv[1:4]
    params = StdioServerParameters(command=gg, args=["mcp", "--state", state, "--workspace", workspace, "--agent", "logs"])
    heard = []

    heard_at = {}

    async def on_log(params):
        heard.append({"level": params.level, "logger": params.logger, "data": params.data})
        heard_at[params.data] = time.monotonic()

    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, logging_callback=on_log) as session:
            init = await session.initialize()
            out["logging_capability"] = init.capabilities.logging is not None
            await session.call_tool("run_program", {"program": PROGRAM})
            out["before_set_level"] = list(heard)
            heard.clear()
            await session.set_logging_level("info")
            r = await session.call_tool("run_program", {"program": PROGRAM})
            out["at_info"] = list(heard)
            out["result_has_console"] = "hello" in "\n".join(c.text for c in r.content if getattr(c, "type", "") == "text")
            heard.clear()
            await session.call_tool("run_program", {"program": SLOW})
            answered = time.monotonic()
            out["slow_lines"] = [h["data"] for h in heard]
            # How long before the result the first line was heard.
            out["first_line_lead_ms"] = round((answered - heard_at.get("started", answered)) * 1000)
    print(json.dumps(out))


asyncio.run(main())
