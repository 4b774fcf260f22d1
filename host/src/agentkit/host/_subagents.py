"""Subagents: an agent definition other agents delegate to, as a tool (see :mod:`._delegation`)."""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING

from agentkit.plugin_api import Tool
from agentkit.plugin_api._dataclass import dataclass

from ._agent import Agent
from ._budget import Budget
from ._delegation import Delegation, delegation_tool

if TYPE_CHECKING:
    from ._config import AgentConfig
    from ._plugins import PluginHost

__all__ = ["Subagent"]


@dataclass
class Subagent:
    """An agent definition to delegate to: its configuration, the tool's name and description, its budget slice.

    :param name: the tool's name, what the parent's model calls.
    :param description: what the subagent is for, for the parent's model.
    :param config: the child's configuration (model, system prompt, tools,
        policy); each delegation builds a new agent from it.
    :param budget: the slice each delegation asks for; it gets no more than
        the parent's run has left. ``None``: whatever is left.
    :param host: the plugin host to build the child with (default: the parent's, else discovered).
    """

    name: str
    description: str
    config: AgentConfig
    budget: Budget | None = None
    host: PluginHost | None = field(default=None, repr=False)

    def as_tool(self) -> Tool:
        """The tool that delegates: one argument, ``task``; answered with the child's final text."""
        return delegation_tool(self.name, self.description,
                               Delegation(self.name, self.config, self.budget, self.host, Agent))
