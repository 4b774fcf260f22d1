"""The MCP client: configured servers' tools in an agent (the ``agentkit.tools`` plugin ``mcp``).

Loading the plugin costs a TOML read: the SDK is imported only when
``agentkit.toml`` names a server.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from agentkit.plugin_api import Tool, hookimpl

from ._embedder import InputRequest, McpAuditRecord, set_audit_sink, set_input_handler

__all__ = ["InputRequest", "McpAuditRecord", "agentkit_mcp_servers", "agentkit_register_tools", "close_all",
           "set_audit_sink", "set_input_handler"]


@hookimpl
def agentkit_register_tools(register: Callable[[Tool], None]) -> None:
    """Connect to the servers of ``agentkit.toml`` and register their tools as ``server__tool``.

    ``mcp_servers`` (off by default) is registered too, servers or not.

    A configuration error fails this plugin with its message (the host
    reports it); a server that cannot be reached is logged and contributes
    nothing, and the others are still served.
    """
    from .._config import load_servers
    from ._status import status_tool

    servers = load_servers()
    if not servers:
        register(status_tool(dict))
        return
    from ._pool import shared_pool
    from ._tools import agent_tools

    pool = shared_pool(servers)
    register(status_tool(lambda: pool.connections))
    for tool in agent_tools(pool, pool.list_all()):
        register(tool)


@hookimpl
def agentkit_mcp_servers(tools: Sequence[str]) -> list[dict[str, Any]]:
    """The configured servers behind ``tools``, for the run's ``session_start`` audit record.

    Reads what the connections already know: no server is contacted, and a
    process that connected to none answers at once.
    """
    pools = sys.modules.get(f"{__name__}._pool")
    return [] if pools is None else pools.describe_servers(tools)


def close_all() -> None:
    """End every MCP connection of the process (and its stdio servers); they reopen on the next use."""
    pools = sys.modules.get(f"{__name__}._pool")
    if pools is not None:
        pools.close_all()
