"""Drives `toolc serve` with the official MCP client (mcp 2.3.0) for
serve_watch.rs: `--watch` reloads and tier-3 approval.

Usage: python serve_watch.py SCENARIO CONFIG_JSON. Prints one JSON object
(what the client saw) on stdout; the Rust test asserts on it. The server
is started over stdio from CONFIG["command"], its stderr written to
CONFIG["errlog"] (the test reads the server's log there), unless
CONFIG["urls"] names Streamable HTTP endpoints of a server already running.

CONFIG["revision"] picks the protocol revision: "2025-06-18" and
"2025-11-25" connect with the initialize handshake (the client offers its
newest handshake revision, so 2025-06-18 is offered by lowering it), and
"2026-07-28" starts with `server/discover` (the report says which
revision was negotiated; the Rust test checks it).
"""

import json
import sys
import time
from pathlib import Path

import anyio
import mcp.client.session as client_session
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.subscriptions import ToolsListChanged

WAIT = 20.0
"""Seconds to wait for something the server should do."""


def client(config, errlog, **kwargs):
    revision = config["revision"]
    if revision == "2026-07-28":
        # Discovery, which the server answers with 2026-07-28 (a pinned
        # revision would skip it and not know the server's capabilities).
        mode = "auto"
    else:
        mode = "legacy"
        client_session.LATEST_HANDSHAKE_VERSION = revision
    kwargs.setdefault("read_timeout_seconds", WAIT)
    url = kwargs.pop("url", None)
    if url is not None:
        return Client(url, mode=mode, cache=None, **kwargs)
    command = config["command"]
    params = StdioServerParameters(command=command[0], args=command[1:])
    return Client(stdio_client(params, errlog=errlog), mode=mode, cache=None, **kwargs)


def names(listing):
    return [tool.name for tool in listing.tools]


def text_of(result):
    return {
        "is_error": bool(result.is_error),
        "text": "".join(getattr(block, "text", "") for block in result.content),
    }


async def wait_for_log(path, needle, since):
    """Waits until the server's log, past offset `since`, says `needle`."""
    with anyio.fail_after(WAIT):
        while True:
            text = Path(path).read_text(errors="replace")
            if needle in text[since:]:
                return
            await anyio.sleep(0.1)


class ListChanged:
    """Counts `notifications/tools/list_changed`, however they arrive."""

    def __init__(self):
        self.count = 0
        self.event = anyio.Event()

    def seen(self):
        self.count += 1
        self.event.set()

    async def next(self):
        with anyio.fail_after(WAIT):
            await self.event.wait()
        self.event = anyio.Event()

    async def handler(self, message):
        if isinstance(message, types.ToolListChangedNotification):
            self.seen()


async def watch(config):
    """Lists, adds a manifest, waits for list_changed, lists and calls the
    new tool; then breaks a manifest and checks the old tools stay."""
    out = {}
    changed = ListChanged()
    errlog_path = config.get("errlog")
    with open(errlog_path or "/dev/null", "a") as errlog:
        modern = config["revision"] == "2026-07-28"
        kwargs = {} if modern else {"message_handler": changed.handler}
        if "urls" in config:
            kwargs["url"] = config["urls"][0]
        async with client(config, errlog, **kwargs) as c:
            out["revision"] = c.protocol_version
            caps = c.server_capabilities
            out["list_changed_advertised"] = bool(caps.tools and caps.tools.list_changed)
            out["before"] = names(await c.list_tools(cache_mode="refresh"))
            async with anyio.create_task_group() as group:
                if modern:
                    subscription_ready = anyio.Event()

                    async def listen():
                        async with c.listen(tools_list_changed=True) as sub:
                            out["honored"] = bool(sub.honored.tools_list_changed)
                            subscription_ready.set()
                            async for event in sub:
                                if isinstance(event, ToolsListChanged):
                                    changed.seen()

                    group.start_soon(listen)
                    with anyio.fail_after(WAIT):
                        await subscription_ready.wait()
                others = []
                for url in config.get("urls", [])[1:]:
                    # More legacy sessions over HTTP: each must be told.
                    other = ListChanged()
                    others.append(other)

                    async def session(url=url, other=other):
                        async with client(config, errlog, url=url, message_handler=other.handler) as c2:
                            await c2.list_tools()
                            await other.next()

                    group.start_soon(session)
                # Let the sessions settle, then add a manifest.
                await anyio.sleep(0.5)
                Path(config["add"]["path"]).write_text(config["add"]["text"])
                started = time.monotonic()
                await changed.next()
                out["notified_after_ms"] = int((time.monotonic() - started) * 1000)
                out["after"] = names(await c.list_tools(cache_mode="refresh"))
                new_tool = config["add"]["tool"]
                out["call_new"] = text_of(await c.call_tool(new_tool, config["add"]["arguments"]))

                # A broken edit: logged, nothing announced, the tools stay.
                since = len(Path(errlog_path).read_text(errors="replace")) if errlog_path else 0
                Path(config["break"]["path"]).write_text(config["break"]["text"])
                if errlog_path:
                    await wait_for_log(errlog_path, "not reloaded", since)
                else:
                    await anyio.sleep(3)
                out["after_break"] = names(await c.list_tools(cache_mode="refresh"))
                out["call_after_break"] = text_of(await c.call_tool(new_tool, config["add"]["arguments"]))
                out["notifications"] = changed.count
                for other in others:
                    with anyio.fail_after(WAIT):
                        while other.count == 0:
                            await anyio.sleep(0.05)
                out["other_sessions_notified"] = [o.count for o in others]
                group.cancel_scope.cancel()
    return out


async def code(config):
    """Calls a tool, edits its code (not its manifest), waits for the
    reload, and calls it again: the new code runs and, the tool list being
    the same, nothing is announced."""
    out = {}
    changed = ListChanged()
    errlog_path = config["errlog"]
    with open(errlog_path, "a") as errlog:
        async with client(config, errlog, message_handler=changed.handler) as c:
            out["before"] = text_of(await c.call_tool(config["tool"], config["arguments"]))
            since = len(Path(errlog_path).read_text(errors="replace"))
            path = Path(config["edit"]["path"])
            path.write_text(path.read_text().replace(config["edit"]["old"], config["edit"]["new"]))
            await wait_for_log(errlog_path, "the tool list is unchanged", since)
            out["after"] = text_of(await c.call_tool(config["tool"], config["arguments"]))
            # A poll or two more: a late announcement would show here.
            await anyio.sleep(1.0)
            out["notifications"] = changed.count
    return out


async def approve(config):
    """Calls a tier-3 tool once per answer in CONFIG["answers"]: "accept",
    "reject" (accepted with approve false), "decline", "cancel"; with
    "none", the client declares no elicitation support."""
    out = {"calls": []}
    with open(config.get("errlog") or "/dev/null", "a") as errlog:
        for answer in config["answers"]:
            asked = []

            async def elicit(context, params, answer=answer, asked=asked):
                schema = getattr(params, "requested_schema", None)
                if schema is not None and not isinstance(schema, dict):
                    schema = schema.model_dump(mode="json", by_alias=True, exclude_none=True)
                asked.append({"message": params.message, "schema": schema})
                if answer == "accept":
                    return types.ElicitResult(action="accept", content={"approve": True})
                if answer == "reject":
                    return types.ElicitResult(action="accept", content={"approve": False})
                return types.ElicitResult(action=answer)

            kwargs = {} if answer == "none" else {"elicitation_callback": elicit}
            if "urls" in config:
                kwargs["url"] = config["urls"][0]
            async with client(config, errlog, **kwargs) as c:
                await c.list_tools(cache_mode="refresh")
                result = await c.call_tool(config["tool"], config["arguments"])
                call = text_of(result)
                call["answer"] = answer
                call["asked"] = asked
                call["revision"] = c.protocol_version
                out["calls"].append(call)
    return out


async def forge(config):
    """Drives 2026-07-28 input-required rounds by hand: a made-up request
    state, a real one sent with other arguments, a replayed one and one
    sent without an answer must never run the tool; only the state of the
    question about this very call, answered yes, once, does."""
    out = {}

    async def elicit(context, params):
        return types.ElicitResult(action="accept", content={"approve": True})

    yes = {"approval": types.ElicitResult(action="accept", content={"approve": True})}
    tool, args = config["tool"], config["arguments"]
    with open(config.get("errlog") or "/dev/null", "a") as errlog:
        async with client(config, errlog, elicitation_callback=elicit) as c:
            await c.list_tools(cache_mode="refresh")
            session = c.session

            async def send(arguments, state, responses=yes):
                result = await session.call_tool(
                    tool, arguments, input_responses=responses, request_state=state, allow_input_required=True
                )
                if isinstance(result, types.InputRequiredResult):
                    return {"asked": sorted((result.input_requests or {}).keys()), "state": result.request_state}
                return text_of(result)

            first = await send(args, None, None)
            out["first"] = first
            out["made_up"] = await send(args, "0" * 32)
            out["other_arguments"] = await send({"text": "y"}, first["state"])
            out["replayed"] = await send(args, first["state"])
            fresh = await send(args, None, None)
            out["without_answer"] = await send(args, fresh["state"], None)
            fresh = await send(args, None, None)
            out["answered"] = await send(args, fresh["state"])
            out["answered_again"] = await send(args, fresh["state"])
    return out


def main():
    scenario, config = sys.argv[1], json.loads(sys.argv[2])
    run = {"watch": watch, "code": code, "approve": approve, "forge": forge}[scenario]
    print(json.dumps(anyio.run(run, config)))


if __name__ == "__main__":
    main()
