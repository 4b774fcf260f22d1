"""The tools of one agent: which are enabled, their wire specs, deferral, validators and skills.

A :class:`Toolset` is made once per agent from its plugin host and
configuration. It owns what the tools of a session share across runs:

* **selection and collisions**: the installed tools plus the embedder's
  ``extra_tools``, narrowed by ``AgentConfig.tools``; a second, different tool
  of a name already enabled is refused;
* **specs and deferral**: each tool's wire spec is built once; a tool added
  after the session's first request is *deferred* (listed after the others,
  its prompt guidelines left out) so that the provider's cached prefix survives;
* **argument validators**, compiled once per tool for all the batches of the session;
* **skills**: the skills the agent has, and activating one (its tools are
  added) when the model reads its instructions.

It knows nothing of runs or of the agent: the loop asks it for specs and
guidelines, and the batch for tools, validators and the plugin behind a tool.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import Tool, ToolSpec

from ._registry import RegistrationError, check_tool
from .errors import ConfigError
from .skills._folders import PROJECT_SKILLS, USER_SKILLS, may_have_skills, user_home

if TYPE_CHECKING:
    from ._arguments import ArgumentValidator
    from ._config import AgentConfig
    from ._plugins import PluginHost
    from ._stats import AgentStats
    from .skills import SkillSet

__all__ = ["Toolset", "select_tools"]

_log = logging.getLogger("agentkit.skills")


def select_tools(installed: Mapping[str, Tool], config: AgentConfig) -> dict[str, Tool]:
    """The tools an agent with ``config`` starts with: the installed ones and ``extra_tools``, as ``tools`` says."""
    available: dict[str, Tool] = dict(installed)
    for tool in config.extra_tools:
        if tool.name in available:
            raise ConfigError(f"extra tool {tool.name!r} has the name of an installed tool; rename it")
        available[tool.name] = tool
    if config.tools is None:
        extra = {tool.name for tool in config.extra_tools}
        return {name: tool for name, tool in available.items() if tool.default_enabled or name in extra}
    unknown = [name for name in config.tools if name not in available]
    if unknown:
        raise ConfigError(
            f"unknown tool(s) {', '.join(unknown)} in AgentConfig.tools; installed: {', '.join(sorted(available)) or 'none'}"
        )
    return {name: available[name] for name in config.tools}


def agent_toolset(host: PluginHost, config: AgentConfig, root: Path, trusted: bool, stats: AgentStats) -> Toolset:
    """The toolset an agent starts with: its tools (:func:`select_tools`) and skills, checked together."""
    tools = select_tools(host.tools, config)
    home = user_home()
    skills: SkillSet | Callable[[], SkillSet]
    if may_have_skills(host, root, home):
        # Here, not at the top: the tiers, the checks and the wiring are for an agent that may have a skill.
        from ._skill_wiring import check_skill_tools
        from .skills import load_skills

        skills = load_skills(host, root, trust_project=trusted)
        check_skill_tools(skills, tools, host.tools, config.trust.before_tool_call)
    else:
        assert home is not None  # an unresolved HOME is a problem to report: may_have_skills says yes
        skills = functools.partial(_no_skills, root, home, trusted)
    return Toolset(tools, installed=host.tools, plugin_of=host.plugin_of, skills=skills, root=root,
                   authorized=config.trust.before_tool_call is not None, stats=stats)


def _no_skills(root: Path, home: Path, trust_project: bool) -> SkillSet:
    """What :func:`.skills.load_skills` finds where :func:`.skills._folders.may_have_skills` said no: no skill,
    no problem; made when someone asks for the skills of an agent that has none."""
    from .skills import SkillSet

    return SkillSet(trust_project=trust_project, user_folder=home / USER_SKILLS, project_folder=root / PROJECT_SKILLS)


class Toolset:
    """The enabled tools of one agent and what is kept per tool for its session (see the module docstring).

    :param tools: the enabled tools by name; changed in place as tools are added.
    :param installed: the plugin host's tools, to find a skill's tools and the plugin behind a tool.
    :param plugin_of: the host's ``plugin_of(kind, name)``.
    :param skills: the skills the agent has; or, for an agent that has none (nothing to load), the
        function that makes their empty set when someone asks (:attr:`skills`).
    :param root: the workspace, where a skill's instructions are read from.
    :param authorized: whether the embedder set ``before_tool_call`` (tools that run commands need it).
    :param stats: the agent's counters: a tool first seen after ``stats.requests > 0`` is deferred.
    """

    def __init__(self, tools: dict[str, Tool], *, installed: Mapping[str, Tool],
                 plugin_of: Callable[[str, str], str | None],
                 skills: SkillSet | Callable[[], SkillSet], root: Path, authorized: bool, stats: AgentStats) -> None:
        self.tools = tools
        self.installed = installed
        self._plugin_of = plugin_of
        # None while nobody asked for the skills of an agent that has none: every use below asks this first.
        self._skills: SkillSet | None = None if callable(skills) else skills
        self._no_skills: Callable[[], SkillSet] | None = skills if callable(skills) else None
        self.root = root
        self.authorized = authorized
        self.stats = stats
        #: The skills activated in this session, in order (the audit of which instructions the model loaded).
        self.active_skills: list[str] = []
        #: Each tool's argument validator, compiled once for the session (see :mod:`._batch`).
        self.validators: dict[str, tuple[Tool, ArgumentValidator]] = {}
        self._specs: dict[str, ToolSpec] = {}

    @property
    def skills(self) -> SkillSet:
        """The skills the agent has (plugins, the user's folder, the trusted project's), and what was refused."""
        if self._skills is None:
            assert self._no_skills is not None
            self._skills = self._no_skills()
        return self._skills

    # -- what the wire gets ----------------------------------------------------------

    def specs(self) -> list[ToolSpec]:
        """The wire projection of the enabled tools, built once per tool.

        The same objects are sent on every request, so a steady-state request
        builds no schema again. A tool added after the first request is
        deferred: it is listed after the tools already declared and stays
        deferred, so the provider's cached prefix survives it.
        """
        for name, tool in self.tools.items():
            if name not in self._specs:
                deferred = self.stats.requests > 0
                self._specs[name] = ToolSpec(tool.name, tool.description, tool.input_schema, deferred)
                self.stats.tool_specs_built += 1
        return [spec for name, spec in self._specs.items() if name in self.tools]

    def is_deferred(self, name: str) -> bool:
        if self.stats.requests == 0:
            return False
        spec = self._specs.get(name)
        return spec is None or spec.deferred

    def guidelines(self) -> list[str]:
        """The prompt guidelines of the tools that are not deferred, in tool order."""
        return [tool.prompt_guidelines for name, tool in self.tools.items()
                if tool.prompt_guidelines and not self.is_deferred(name)]

    def skills_block(self) -> str | None:
        """The ``<available_skills>`` block the model is shown, or ``None`` (no skill, or nothing to read one with)."""
        shown = self._skills.invocable() if self._skills is not None else None
        if not shown:  # most agents: no tool to look for
            return None
        # Here (once a request): the block is for an agent that has a skill.
        from .skills import read_tool, render_skills_block

        reader = read_tool(self.tools)
        return None if reader is None else render_skills_block(shown, reader)

    # -- changing the set ------------------------------------------------------------

    def add(self, *tools: Tool) -> None:
        """Enable more tools; a different tool of an enabled name is refused (see :meth:`Agent.add_tools`)."""
        for tool in tools:
            known = self.tools.get(tool.name)
            if known is not None and known is not tool:
                raise ConfigError(f"a different tool named {tool.name!r} is already enabled; rename one")
            try:
                check_tool(tool)
            except RegistrationError as exc:
                raise ConfigError(str(exc)) from exc
        for tool in tools:
            self.tools[tool.name] = tool
        self.require_authorization()

    def activate_skill(self, name: str) -> None:
        """Add the tools skill ``name`` brings and record it as active (see :meth:`Agent.activate_skill`)."""
        if name not in self.skills.entries:
            known = ", ".join(sorted(self.skills.entries)) or "none"
            raise ConfigError(f"no skill named {name!r} (known: {known}); see 'agentkit skills list'")
        if name in self.active_skills:
            return
        from ._skill_wiring import tools_to_add  # here: an agent that has the skill

        self.add(*tools_to_add(self.skills.entries[name], self.tools, self.installed))
        self.active_skills.append(name)

    def activate_read_skills(self, calls: Sequence[Any], results: Sequence[Any]) -> list[str]:
        """Activate the skills whose instructions a successful call of a batch read; returns those newly active."""
        if self._skills is None or not self._skills.entries:  # every turn of an agent without skills
            return []
        from ._skill_wiring import skills_read  # here (once a turn): an agent that has a skill

        activated = []
        for name in skills_read(calls, results, self._skills, self.root):
            if name not in self.active_skills:
                self.activate_skill(name)
                activated.append(name)
        return activated

    # -- what handlers and the audit get ---------------------------------------------

    def options(self, configured: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
        """Per-tool options handed to handlers: ``configured``, plus the skill folders ``read_file`` may read."""
        options = {name: dict(values) for name, values in configured.items()}
        folders = sorted({str(entry.folder) for entry in self._skills.invocable()}) if self._skills is not None else ()
        if folders and "read_file" in self.tools:
            read = options.setdefault("read_file", {})
            read["readable_paths"] = [*read.get("readable_paths", ()), *folders]
        return options

    def plugin_of(self, name: str) -> str:
        """The plugin whose tool ``name`` the agent runs; ``embedder`` for a tool given in code."""
        plugin = self._plugin_of("tool", name)  # the host serves a tool only with the plugin that registered it
        if plugin is not None and self.installed[name] is self.tools.get(name):
            return plugin
        return "embedder"

    # -- checks ----------------------------------------------------------------------

    def require_authorization(self) -> None:
        """Refuse tools that run commands unless the embedder decides about each call."""
        needing = sorted(name for name, tool in self.tools.items() if tool.requires_authorization)
        if needing and not self.authorized:
            raise ConfigError(
                f"tool(s) {', '.join(needing)} run arbitrary commands, and AgentConfig.before_tool_call is not set. "
                "Set before_tool_call=agentkit.host.allow_all to allow every call on purpose, or a restrictive "
                "policy (the shell plugin ships one), or leave these tools out with AgentConfig.tools"
            )

    def warn_about_skills(self) -> None:
        """Log (and keep in ``skills.problems``) what keeps the skills from working."""
        if self._skills is None:  # no skill, no problem
            return
        from .skills import read_tool  # here: an agent that may have a skill

        if self._skills.invocable() and read_tool(self.tools) is None:
            self._skills.problems.append(
                "the agent has skills but no tool to read them with (read_file, or a shell tool); "
                "the skills are left out of the system prompt: enable read_file"
            )
        for problem in self._skills.problems:
            _log.warning("%s", problem)
