"""MCP for agentkit: MCP servers' tools in an agent, and agentkit's tools served over MCP.

What an embedder sets for the client (see ``docs/mcp.md``): where MCP audit
records go, and who answers a server's questions. Importing this package does
not import the MCP SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .client import close_all

if TYPE_CHECKING:
    from .client import InputRequest, McpAuditRecord, set_audit_sink, set_input_handler

__all__ = ["InputRequest", "McpAuditRecord", "close_all", "set_audit_sink", "set_input_handler"]


def __getattr__(name: str) -> Any:
    # The embedder's settings load with their first use (see agentkit_tools_mcp.client): not for
    # `agentkit mcp serve`, which imports this package for its command and its plugin.
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import client

    value = getattr(client, name)
    globals()[name] = value
    return value
