"""The configured servers' tools as agentkit tools, named ``server__tool``.

The qualified name is the only name the agent, the embedder's
``before_tool_call``, plugin hooks and the audit ever see; the server's own
name is used only on the wire. A tool whose qualified name another installed
tool has is refused by the host's registry (neither is served, both plugins
are told); a qualified name agentkit cannot carry is left out with a warning.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from mcp import InputRequiredRoundsExceededError, MCPError

from agentkit.plugin_api import Tool, ToolContext, ToolResult

from ._embedder import MAX_INPUT_ROUNDS, McpAuditRecord, Reporter
from ._pool import ServerPool
from ._results import to_tool_result

_log = logging.getLogger("agentkit.mcp")
SEPARATOR = "__"
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: Seconds the host waits beyond the entry's own deadline, so the entry's clearer error arrives first.
_DEADLINE_MARGIN_S = 5.0


def qualified_name(server: str, tool: str) -> str:
    return f"{server}{SEPARATOR}{tool}"


def agent_tools(pool: ServerPool, listings: dict[str, list[Any] | Exception]) -> list[Tool]:
    """One agentkit tool per listed MCP tool; a server that could not be reached is logged and skipped."""
    tools: list[Tool] = []
    for server, listing in sorted(listings.items()):
        if isinstance(listing, Exception):
            _log.warning("MCP server %r contributes no tools: %s", server, listing)
            continue
        tools.extend(_new_tools(pool, server, listing))
    return tools


def _new_tools(pool: ServerPool, server: str, listing: list[Any]) -> list[Tool]:
    """Tools for the names of ``listing`` this process has not made yet (one object per name, ever)."""
    made = pool.tools.setdefault(server, {})
    tools = []
    for mcp_tool in listing:
        name = qualified_name(server, mcp_tool.name)
        if name in made:
            continue
        if not _TOOL_NAME.fullmatch(name):
            _log.warning("MCP tool %r of server %r is left out: %r is not a tool name agentkit can carry "
                         "(letters, digits, '_' and '-', at most 64)", mcp_tool.name, server, name)
            continue
        made[name] = _tool(pool, server, mcp_tool, name)
        tools.append(made[name])
    return tools


async def _add_listed_since(pool: ServerPool, server: str, context: ToolContext) -> None:
    """After a list-changed notice, enable on the running agent the tools the server added since."""
    connection = pool.connections[server]
    try:
        listing = await pool.run_async(connection.list_tools())
        added = _new_tools(pool, server, listing)
        if added and context.add_tools is not None:
            context.add_tools(*added)
    except Exception as exc:  # the call itself succeeded: a failed refresh only leaves the new tools out
        _log.warning("MCP server %r changed its tools, and they could not be added: %s", server, exc)


def _trail(context: ToolContext | None) -> Reporter | None:
    """The agent's audit trail for one call's records, as ``mcp.call`` (called on the pool's loop: it hops)."""
    audit = None if context is None else context.audit
    if audit is None:
        return None

    def report(record: McpAuditRecord) -> None:
        fields = record.to_dict()
        audit(fields.pop("kind"), **fields)

    return report


def _tool(pool: ServerPool, server: str, mcp_tool: Any, name: str) -> Tool:
    connection = pool.connections[server]

    async def handler(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        try:
            result = await pool.run_async(connection.call_tool(mcp_tool.name, arguments, name, _trail(context)))
        except MCPError as exc:
            return ToolResult.failure("mcp_error", detail=f"MCP server {server!r}: {exc}", mcp_server=server)
        except InputRequiredRoundsExceededError:
            return ToolResult.failure("mcp_too_many_questions", mcp_server=server, detail=(
                f"MCP server {server!r} asked more than {MAX_INPUT_ROUNDS} rounds of questions for one call"))
        except Exception as exc:
            return ToolResult.failure("mcp_unavailable", detail=str(exc), mcp_server=server)
        changed = connection.tools_changed
        if changed is not None and changed.is_set() and context is not None and context.add_tools is not None:
            await _add_listed_since(pool, server, context)
        return to_tool_result(result, mcp_server=server, mcp_tool=mcp_tool.name,
                              protocol_version=connection.protocol_version)

    handler.__name__ = name
    description = mcp_tool.description or mcp_tool.title or f"The {mcp_tool.name} tool of MCP server {server}."
    return Tool(
        name=name,
        description=description,
        input_schema=dict(mcp_tool.input_schema or {"type": "object", "properties": {}}),
        handler=handler,
        timeout=connection.config.timeout_s + _DEADLINE_MARGIN_S,
    )
