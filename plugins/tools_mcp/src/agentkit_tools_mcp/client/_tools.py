"""The configured servers' tools as agentkit tools, named ``server__tool``.

The qualified name is the only name the agent, the embedder's
``before_tool_call``, plugin hooks and the audit ever see; the server's own
name is used only on the wire. A tool whose qualified name another installed
tool has is refused by the host's registry (neither is served, both plugins
are told). A server that cannot be reached, a qualified name agentkit cannot
carry and a schema that is not JSON Schema each leave out only what they
concern, and are told in one line (on stderr while the host is built, in the
``agentkit.mcp`` log when a running agent lists again).

A tool the server marks read-only (``readOnlyHint: true``) runs beside the
other calls of its response; any other is ``SEQUENTIAL``, so that a response's
calls that may change what a server holds run one at a time, in call order,
and a read the model asked for after a write sees it (the plugin API orders
a whole batch, not one server's calls: a batch with such a call runs wholly
in call order).

A tool the server marks read-only or idempotent (``idempotentHint: true``) is
``retry_safe``: a durable run whose process died during its call runs it again.

Before each call, a tool list made stale by a list-changed notice or an
expired ``ttlMs`` is read again (see ``_listing``), and again after a call
that brought a notice. Tools new to the server are enabled on the running
agent through ``ToolContext.add_tools`` (declared after the cached prompt
prefix); a tool the server no longer lists is answered with an
``mcp_tool_removed`` error without a call.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from typing import Any

from mcp import InputRequiredRoundsExceededError, MCPError

from agentkit.plugin_api import ExecutionMode, Tool, ToolContext, ToolResult

from ._connection import ProtocolFault
from ._embedder import MAX_INPUT_ROUNDS
from ._pool import ServerPool
from ._results import to_tool_result
from ._screen import one_line

_log = logging.getLogger("agentkit.mcp")
SEPARATOR = "__"
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: Seconds the host waits beyond the entry's own deadline, so the entry's clearer error arrives first.
_DEADLINE_MARGIN_S = 5.0


def qualified_name(server: str, tool: str) -> str:
    return f"{server}{SEPARATOR}{tool}"


#: Where a problem line goes: stderr while the host is built, the log while an agent runs.
Problems = Callable[[str], None]


def log_problem(line: str) -> None:
    _log.warning("%s", line)


def agent_tools(pool: ServerPool, listings: dict[str, list[Any] | Exception],
                problems: Problems = log_problem) -> list[Tool]:
    """One agentkit tool per listed MCP tool; what is left out (a server, a tool) is one line to ``problems``."""
    tools: list[Tool] = []
    for server, listing in sorted(listings.items()):
        if isinstance(listing, Exception):
            problems(f"MCP server {server!r} contributes no tools: {_reason(server, listing)}")
        else:
            tools.extend(_new_tools(pool, server, listing, problems, already_made=True))
    return tools


def _reason(server: str, exc: Exception) -> str:
    """Why ``server`` failed, without the server's name the message may start with."""
    text = one_line(str(exc) or type(exc).__name__, cap=400)
    return text.removeprefix(f"MCP server {server!r} ")


def _new_tools(pool: ServerPool, server: str, listing: list[Any], problems: Problems,
               already_made: bool = False) -> list[Tool]:
    """Tools for the names of ``listing`` this process has not made yet (one object per name, ever);
    with ``already_made``, those it made before too (a second host of the process registers them all)."""
    connection = pool.connections[server]
    for tool_name, why in connection.screen.left_out:  # tools the listing lost on the way: unusable schemas
        problems(f"MCP tool {tool_name!r} of server {server!r} is left out: {why}" if tool_name is not None
                 else f"a tool of MCP server {server!r} is left out: {why}")
    connection.screen.left_out.clear()
    made = pool.tools.setdefault(server, {})
    tools = []
    for mcp_tool in listing:
        name = qualified_name(server, mcp_tool.name)
        if name in made:
            if already_made:
                tools.append(made[name])
            continue
        if not _TOOL_NAME.fullmatch(name):
            problems(f"MCP tool {mcp_tool.name!r} of server {server!r} is left out: {name!r} is not a tool name "
                     "agentkit can carry (letters, digits, '_' and '-', at most 64)")
            continue
        made[name] = _tool(pool, server, mcp_tool, name)
        tools.append(made[name])
    return tools


def register_each(register: Callable[..., None], pool: ServerPool, tools: list[Tool], problems: Problems) -> None:
    """``register`` each tool (the registry's, or a running agent's ``add_tools``); one the host refuses
    (a schema that is not JSON Schema) is left out alone."""
    for tool in tools:
        try:
            register(tool)
        except Exception as exc:
            server, mcp_name = tool.name.split(SEPARATOR, 1)  # a server's name never holds the separator
            problems(f"MCP tool {mcp_name!r} of server {server!r} is left out: {one_line(str(exc), cap=400)}")
            pool.tools.get(server, {}).pop(tool.name, None)  # not made: a later listing may offer it again


async def _relist_if_stale(pool: ServerPool, server: str, context: ToolContext | None) -> None:
    """Read a stale tool list again (list-changed, ``ttlMs``), and enable on the running agent the tools it adds."""
    connection = pool.connections[server]
    if context is None or context.add_tools is None or not connection.listing_is_stale():
        return  # outside an agent's run nothing could be enabled: the list is read by the next run that can
    try:
        listing = await pool.run_async(connection.relist())
        added = [] if listing is None else _new_tools(pool, server, listing, log_problem)
        register_each(context.add_tools, pool, added, log_problem)
    except Exception as exc:  # the call goes on: a failed refresh only leaves the last list in force
        _log.warning("MCP server %r's tools could not be listed again (the last list stays in force): %s",
                     server, exc)


def _tool(pool: ServerPool, server: str, mcp_tool: Any, name: str) -> Tool:
    connection = pool.connections[server]

    home = pool.loop
    listing = connection.listing
    mcp_name = mcp_tool.name

    async def handler(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        if connection.listing_is_stale():  # checked here first: most calls find it fresh, and skip a coroutine
            await _relist_if_stale(pool, server, context)
        if listing.names is not None and mcp_name not in listing.names:  # ``listing.lists``, on every call
            return ToolResult.failure("mcp_tool_removed", mcp_server=server, detail=(
                f"MCP server {server!r} no longer lists the tool {mcp_name!r}: it was removed during "
                "this session; use another tool"))
        try:
            # The run's audit trail takes the call's record (as mcp.call), on the connection's loop.
            call = connection.call_tool(mcp_name, arguments, name, None if context is None else context.audit)
            # On the connection's loop (the tool's home_loop) the call is awaited as it is; from another, it hops.
            result = await (call if asyncio.get_running_loop() is home else pool.run_async(call))
        except MCPError as exc:
            return ToolResult.failure("mcp_error", detail=f"MCP server {server!r}: {exc}", mcp_server=server)
        except ProtocolFault as exc:
            return ToolResult.failure("mcp_error", detail=str(exc), mcp_server=server)
        except InputRequiredRoundsExceededError:
            return ToolResult.failure("mcp_too_many_questions", mcp_server=server, detail=(
                f"MCP server {server!r} asked more than {MAX_INPUT_ROUNDS} rounds of questions for one call"))
        except Exception as exc:
            return ToolResult.failure("mcp_unavailable", detail=str(exc), mcp_server=server)
        changed = connection.tools_changed
        if changed is not None and changed.is_set():  # the call brought a list-changed notice (a TTL waits)
            await _relist_if_stale(pool, server, context)
        return to_tool_result(result, mcp_server=server, mcp_tool=mcp_name,
                              protocol_version=connection.protocol_version)

    handler.__name__ = name
    description = mcp_tool.description or mcp_tool.title or f"The {mcp_tool.name} tool of MCP server {server}."
    return Tool(
        name=name,
        description=description,
        input_schema=dict(mcp_tool.input_schema or {"type": "object", "properties": {}}),
        handler=handler,
        execution_mode=ExecutionMode.PARALLEL if _read_only(mcp_tool) else ExecutionMode.SEQUENTIAL,
        timeout=connection.config.timeout_s + _DEADLINE_MARGIN_S,
        retry_safe=_read_only(mcp_tool) or _idempotent(mcp_tool),
        home_loop=pool.loop,  # a run from sync code runs there: its calls need no hop (decision 0058)
    )


def _idempotent(mcp_tool: Any) -> bool:
    """Whether the server says a second call with the same arguments changes nothing more (``idempotentHint``)."""
    annotations = getattr(mcp_tool, "annotations", None)
    return annotations is not None and annotations.idempotent_hint is True


def _read_only(mcp_tool: Any) -> bool:
    """Whether the server says the tool changes nothing (``readOnlyHint``; absent, it may change anything)."""
    annotations = getattr(mcp_tool, "annotations", None)
    return annotations is not None and annotations.read_only_hint is True

