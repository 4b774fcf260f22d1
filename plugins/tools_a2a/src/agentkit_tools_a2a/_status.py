"""``a2a_agents``: the remote agents configured, and why one contributes no tool.

Registered whether or not an agent is configured, and off by default: an
embedder enables it by name (as the MCP client's ``mcp_servers``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentkit.plugin_api import ExecutionMode, Tool, ToolContext

STATUS_TOOL = "a2a_agents"


def status_tool(agents: Callable[[], list[dict[str, Any]]]) -> Tool:
    """The tool; ``agents()`` gives one mapping per configured agent (name, tier, tools or problem)."""

    def a2a_agents(arguments: dict[str, Any], context: ToolContext) -> list[dict[str, Any]]:
        return agents()

    return Tool(
        name=STATUS_TOOL,
        description="List the remote A2A agents configured in agentkit.toml: each one's tools, or why it has none.",
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
        handler=a2a_agents,
        execution_mode=ExecutionMode.INLINE,
        default_enabled=False,
    )
