"""Remote A2A agents as tools (the ``agentkit.tools`` plugin ``a2a``).

Each ``[[a2a.agents]]`` entry of ``agentkit.toml`` is one tool (``a2a__NAME``),
or one per skill its card declares (``per_skill = true``); see
``docs/a2a.md``. The user's entries always; a project's only when the host's
project is trusted (docs/decisions/0026), as the MCP client's servers. Each
card is read once while the host is built; an agent that cannot be reached or
whose card is unusable is one ``warning:`` line on stderr and contributes no
tool. Loading the plugin costs a TOML read: the SDK is imported only when an
agent is configured.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from agentkit.plugin_api import Project, Tool, hookimpl

__all__ = ["agentkit_register_tools"]


@hookimpl
def agentkit_register_tools(register: Callable[[Tool], None], project: Project) -> None:
    """Read each configured agent's card and register its tool(s), and ``a2a_agents`` (off by default).

    A project's entries are neither read for tools nor contacted unless
    ``project.trusted``; each is named in one note line on stderr that says
    how to trust it. A configuration error fails this plugin with its message
    (the host reports it).
    """
    from ._config import load_agents, read_agents, untrusted_note

    if project.trusted:
        agents = load_agents(project.root, trusted=True)
    else:
        problems: list[str] = []
        every = read_agents(project.root, problems=problems)
        for line in [*problems, *(untrusted_note(agent) for agent in every if agent.tier == "project")]:
            print(line, file=sys.stderr)
        agents = sorted((agent for agent in every if agent.tier == "user"), key=lambda agent: agent.name)
    from ._status import status_tool

    described: list[dict[str, Any]] = []
    register(status_tool(lambda: [dict(item) for item in described]))
    if not agents:
        return
    from ._cards import CardProblem, fetch_card
    from ._config import A2AConfigError
    from ._tools import agent_tools

    for entry in agents:
        about: dict[str, Any] = {"agent": entry.name, "tier": entry.tier, "tools": []}
        described.append(about)
        try:
            card = fetch_card(entry.resolved_url(os.environ), entry.resolved_headers(os.environ),
                              entry.connect_timeout_s)
        except (CardProblem, A2AConfigError) as exc:
            about["problem"] = str(exc)
            print(f"warning: A2A agent {entry.name!r} contributes no tool: {exc}", file=sys.stderr)
            continue
        about["card_name"] = card.name
        for tool in agent_tools(entry, card, lambda: os.environ):
            try:
                register(tool)
            except Exception as exc:  # a name another plugin holds: this tool alone is left out
                print(f"warning: A2A tool {tool.name!r} is left out: {exc}", file=sys.stderr)
            else:
                about["tools"].append(tool.name)
