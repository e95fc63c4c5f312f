"""Drives `toolc serve --watch --locked` with the official MCP client (mcp
2.3.0) for serve_locked.rs.

Usage: python serve_locked.py watch CONFIG_JSON. Lists the tools (with
their descriptions), edits CONFIG["edit"]["path"] (replacing "old" with
"new"), waits for `notifications/tools/list_changed`, lists again and
calls the tool the edit changed. Prints what the client saw as one JSON
object. The server is started over stdio from CONFIG["command"], its
stderr written to CONFIG["errlog"].
"""

import json
import sys
from pathlib import Path

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

WAIT = 20.0
"""Seconds to wait for something the server should do."""


def described(listing):
    return {tool.name: tool.description for tool in listing.tools}


async def watch(config):
    out = {}
    changed = anyio.Event()
    count = [0]

    async def handler(message):
        if isinstance(message, types.ToolListChangedNotification):
            count[0] += 1
            changed.set()

    command = config["command"]
    params = StdioServerParameters(command=command[0], args=command[1:])
    with open(config["errlog"], "a") as errlog:
        async with Client(
            stdio_client(params, errlog=errlog),
            mode="legacy",
            cache=None,
            message_handler=handler,
            read_timeout_seconds=WAIT,
        ) as c:
            out["before"] = described(await c.list_tools(cache_mode="refresh"))
            edit = config["edit"]
            path = Path(edit["path"])
            path.write_text(path.read_text().replace(edit["old"], edit["new"]))
            with anyio.fail_after(WAIT):
                await changed.wait()
            out["after"] = described(await c.list_tools(cache_mode="refresh"))
            try:
                result = await c.call_tool(edit["tool"], edit["arguments"])
                out["call"] = {"is_error": bool(result.is_error)}
            except Exception as error:  # an unknown tool is a JSON-RPC error
                out["call"] = {"error": str(error)}
            # A poll or two more: a late announcement would show here.
            await anyio.sleep(1.0)
            out["notifications"] = count[0]
    return out


SCENARIOS = {"watch": watch}

if __name__ == "__main__":
    scenario, config = sys.argv[1], json.loads(sys.argv[2])
    print(json.dumps(anyio.run(SCENARIOS[scenario], config)))
