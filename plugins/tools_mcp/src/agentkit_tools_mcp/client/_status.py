"""``mcp_servers``: what the agent can reach over MCP, for a model (or a person) asking why a tool is missing.

Registered whether or not a server is configured, and off by default: an
embedder enables it by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentkit.plugin_api import ExecutionMode, Tool, ToolContext

STATUS_TOOL = "mcp_servers"


def status_tool(connections: Callable[[], dict[str, Any]]) -> Tool:
    """The tool; ``connections()`` gives the live ``ServerConnection`` of each configured server."""

    def mcp_servers(arguments: dict[str, Any], context: ToolContext) -> list[dict[str, Any]]:
        return [
            {"server": name, "transport": connection.config.transport, "era": connection.era,
             "protocol_version": connection.protocol_version, "calls": connection.calls,
             "reconnects": connection.reconnects}
            for name, connection in sorted(connections().items())
        ]

    return Tool(
        name=STATUS_TOOL,
        description="List the MCP servers configured in agentkit.toml: transport, negotiated era and "
                    "protocol version, calls made and reconnects.",
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
        handler=mcp_servers,
        execution_mode=ExecutionMode.INLINE,
        default_enabled=False,
    )
