"""Building blocks for host tests: an agent on the scripted provider with code plugins."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agentkit_provider_faux import FauxProvider, Script, Turn

from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.plugin_api import Skill, Tool, hookimpl


class SkillsPlugin:
    """A plugin object contributing the given skills."""

    def __init__(self, *skills: Skill) -> None:
        self.skills = skills

    @hookimpl
    def agentkit_register_skills(self, register: Any) -> None:
        for skill in self.skills:
            register(skill)


def noop_tool(name: str) -> Tool:
    """A tool called ``name`` that takes nothing and answers ``ok``."""
    return Tool(name, f"The {name} tool.", {"type": "object", "properties": {}}, lambda arguments, context: "ok")


class ToolsPlugin:
    """A plugin object contributing the given tools."""

    def __init__(self, *tools: Tool) -> None:
        self.tools = tools

    @hookimpl
    def agentkit_register_tools(self, register: Any) -> None:
        for tool in self.tools:
            register(tool)


class FauxPlugin:
    @hookimpl
    def agentkit_register_providers(self, register: Any) -> None:
        register(FauxProvider())


def make_host(*plugins: object) -> PluginHost:
    """A host with the scripted provider and ``plugins``, nothing discovered."""
    host = PluginHost()
    host.register(FauxPlugin(), name="faux")
    for index, plugin in enumerate(plugins):
        record = host.register(plugin, name=f"plugin{index}")
        assert record.status == "loaded", record.reason
    return host


def make_agent(
    turns: Iterable[Turn | dict[str, Any]],
    *plugins: object,
    root: Path | str = ".",
    **config: Any,
) -> tuple[Agent, Script]:
    script = Script(turns)
    connection = dataclasses.replace(config.pop("connection", Connection()), transport=script)
    agent = Agent(AgentConfig(model="faux/scripted", root=root, connection=connection, **config),
                  host=make_host(*plugins))
    return agent, script
