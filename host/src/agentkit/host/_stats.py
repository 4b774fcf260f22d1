"""Counters of one agent that cannot flake, for tests and benchmarks."""

from __future__ import annotations

from agentkit.plugin_api._dataclass import dataclass

__all__ = ["AgentStats"]


@dataclass
class AgentStats:
    """Counters that cannot flake, for tests and benchmarks."""

    requests: int = 0
    tool_specs_built: int = 0
