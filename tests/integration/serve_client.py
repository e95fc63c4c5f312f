"""Drives `toolc serve` with the official MCP Python client (mcp, pinned in
the test venv) for tests/integration/serve.rs.

    python serve_client.py SCENARIO JSON

JSON: {"server": {"url": URL} | {"command": [...], "env": {...}},
       "mode": "auto" | "legacy" | "2026-07-28", ...scenario fields}.
Prints one JSON object on stdout: what the scenario saw.
"""

import asyncio
import json
import logging
import os
import sys
import time
import warnings

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError


def connect(config):
    server = config["server"]
    if "url" in server:
        target = server["url"]
    else:
        command = server["command"]
        target = StdioServerParameters(
            command=command[0],
            args=command[1:],
            env=server.get("env"),
            cwd=server.get("cwd"),
        )
    return Client(target, mode=config.get("mode", "auto"), cache=None)


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def error_of(exc):
    if isinstance(exc, MCPError):
        return {"code": exc.code, "message": exc.message, "data": exc.data}
    return {"type": type(exc).__name__, "message": str(exc)}


def descendants(root):
    """Pids and command lines of every process below `root` (host /proc)."""
    parents = {}
    commands = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        commands[int(entry)] = command
    found = []
    for pid in parents:
        ancestor = parents.get(pid)
        seen = set()
        while ancestor and ancestor not in seen:
            if ancestor == root:
                found.append({"pid": pid, "command": commands[pid]})
                break
            seen.add(ancestor)
            ancestor = parents.get(ancestor)
    return found


async def list_all(client):
    pages = 0
    tools = []
    cursor = None
    while True:
        page = await client.list_tools(cursor=cursor)
        pages += 1
        tools.extend(dump(tool) for tool in page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return pages, tools


async def scenario_list(client, config):
    pages, tools = await list_all(client)
    out = {"pages": pages, "tools": tools}
    try:
        await client.list_tools(cursor="not-a-cursor-of-this-server")
        out["bad_cursor"] = None
    except Exception as exc:  # noqa: BLE001 - the error is what the test checks
        out["bad_cursor"] = error_of(exc)
    return out


async def scenario_call(client, config):
    await list_all(client)
    calls = []
    for name, arguments in config["calls"]:
        try:
            result = await client.call_tool(name, arguments)
            calls.append({"result": dump(result)})
        except Exception as exc:  # noqa: BLE001
            calls.append({"error": error_of(exc)})
    return {"calls": calls}


async def scenario_cancel(client, config):
    """Calls a tool that sleeps, gives up on it after `after` seconds (the
    client then sends notifications/cancelled), and reports the processes
    below `root` while it ran and after."""
    await list_all(client)
    root = config.get("root") or os.getpid()
    task = asyncio.ensure_future(client.call_tool(config["tool"], config.get("arguments", {})))
    await asyncio.sleep(config["after"])
    during = descendants(root)
    task.cancel()
    try:
        await task
        outcome = "finished"
    except asyncio.CancelledError:
        outcome = "cancelled"
    except Exception as exc:  # noqa: BLE001
        outcome = error_of(exc)
    after = descendants(root)
    deadline = time.monotonic() + config.get("grace", 5)
    while time.monotonic() < deadline and any(config["marker"] in p["command"] for p in after):
        await asyncio.sleep(0.1)
        after = descendants(root)
    # The server still answers after the cancellation.
    ping = await client.call_tool(config["then"][0], config["then"][1])
    return {"outcome": outcome, "during": during, "after": after, "then": dump(ping)}


async def scenario_concurrent(client, config):
    await list_all(client)
    started = time.monotonic()
    results = await asyncio.gather(
        *(client.call_tool(config["tool"], config.get("arguments", {})) for _ in range(config["count"]))
    )
    return {"seconds": time.monotonic() - started, "results": [dump(r) for r in results]}


class Complaints(logging.Handler):
    """Keeps every record at WARNING or above that the SDK logs."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.seen = []

    def emit(self, record):
        self.seen.append(f"{record.name}: {record.getMessage()}")


async def scenario_close(client, config):
    """Lists the tools; the session is closed when the client exits (over
    HTTP, with a DELETE), and main() reports what the SDK complained of."""
    pages, tools = await list_all(client)
    return {"tools": len(tools)}


SCENARIOS = {
    "close": scenario_close,
    "list": scenario_list,
    "call": scenario_call,
    "cancel": scenario_cancel,
    "concurrent": scenario_concurrent,
}


async def main():
    scenario, config = sys.argv[1], json.loads(sys.argv[2])
    # Python warnings are errors, and the SDK's own warnings (logged, as
    # "Session termination failed") are collected for the test to see.
    warnings.simplefilter("error")
    complaints = Complaints()
    logging.getLogger().addHandler(complaints)
    async with connect(config) as client:
        out = await SCENARIOS[scenario](client, config)
        out["protocol_version"] = client.protocol_version
    out["complaints"] = complaints.seen
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
