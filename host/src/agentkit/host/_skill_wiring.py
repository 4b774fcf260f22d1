"""How an agent's skills meet its tools: the checks at construction, and activation.

A skill's own tool may not take a name the agent already has unless the
skill lists it in ``overrides``; nor may two skills bring one name; an
installed tool a skill names must exist, and one that runs commands needs the
embedder's policy. Everything is checked when the agent is built, so that
activating a skill mid-run cannot fail. Overrides replace the agent's tool from
the start (a tool's definition never changes under the provider's cached
prefix); everything else a skill brings is added when it is activated.

The model activates a skill by reading its instructions: a successful
``read_file`` of the path, or a shell command that names it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agentkit.plugin_api import Tool

from ._registry import RegistrationError, check_tool
from .errors import ConfigError, SkillConflictError
from .skills import READ_TOOLS, SkillEntry, SkillSet

__all__ = ["check_skill_tools", "skills_read", "tools_to_add"]


def check_skill_tools(skills: SkillSet, tools: dict[str, Tool], installed: Mapping[str, Tool],
                      before_tool_call: Any) -> None:
    """Refuse skills whose tools conflict; apply declared overrides to ``tools``.

    :raises SkillConflictError: a name taken without ``overrides``, or brought by two skills.
    :raises ConfigError: a named tool nobody serves, an invalid tool, a command tool without a policy.
    """
    brought: dict[str, str] = {}
    for name, entry in sorted(skills.entries.items()):
        skill = entry.skill
        for item in skill.tools:
            if isinstance(item, str):
                tool = tools.get(item) or installed.get(item)
                if tool is None:
                    raise ConfigError(f"skill {name!r} ({entry.origin}) needs the tool {item!r}, which no "
                                      "installed plugin serves; install it or remove the skill")
                _require_policy(name, tool, before_tool_call)
                continue
            try:
                check_tool(item)
            except RegistrationError as exc:
                raise ConfigError(f"skill {name!r}: {exc}") from exc
            _require_policy(name, item, before_tool_call)
            if item.name in brought:
                raise SkillConflictError(f"skills {brought[item.name]!r} and {name!r} both bring a tool named "
                                         f"{item.name!r}; remove one of the skills")
            if item.name in tools and item.name not in skill.overrides:
                raise SkillConflictError(
                    f"skill {name!r} ({entry.origin}) brings a tool named {item.name!r}, which the agent already "
                    f"has; rename the skill's tool, or declare overrides=({item.name!r},) in the skill"
                )
            brought[item.name] = name
            if item.name in tools:
                tools[item.name] = item


def _require_policy(skill: str, tool: Tool, before_tool_call: Any) -> None:
    if tool.requires_authorization and before_tool_call is None:
        raise ConfigError(
            f"skill {skill!r} brings the tool {tool.name!r}, which runs arbitrary commands, and "
            "Trust.before_tool_call is not set: set a policy (or agentkit.host.allow_all), or remove the skill"
        )


def tools_to_add(entry: SkillEntry, tools: Mapping[str, Tool], installed: Mapping[str, Tool]) -> list[Tool]:
    """The tools activating ``entry`` adds: those it brings that the agent does not have yet."""
    added = []
    for item in entry.skill.tools:
        tool = item if isinstance(item, Tool) else tools.get(item) or installed[item]
        if tools.get(tool.name) is not tool:
            added.append(tool)
    return added


def skills_read(calls: Sequence[Any], results: Sequence[Any], skills: SkillSet, root: Path) -> list[str]:
    """The skills whose instructions file a successful call among ``calls`` read."""
    if not skills.entries:
        return []  # every turn of an agent without skills: no arguments parsed for nothing
    by_path = {str(entry.instructions_path): name for name, entry in skills.entries.items()}
    answered = {result.tool_use_id: result for result in results}
    read = []
    for call in calls:
        result = answered.get(call.id)
        if result is not None and not result.is_error:
            read += [name for name in _read_by(call, by_path, root) if name not in read]
    return read


def _read_by(call: Any, by_path: dict[str, str], root: Path) -> list[str]:
    try:
        arguments = call.parsed_arguments()
    except ValueError:
        return []
    if not isinstance(arguments, dict):
        return []
    if call.name == "read_file":
        raw = arguments.get("path")
        if not isinstance(raw, str):
            return []
        path = Path(raw).expanduser()
        path = path if path.is_absolute() else root / path
        folder = path.parent.resolve()  # as the instructions path is kept: folder resolved, name as is
        name = by_path.get(str(folder / path.name))
        return [name] if name else []
    command = arguments.get("command")
    if call.name in READ_TOOLS and isinstance(command, str):
        return [name for path, name in by_path.items() if path in command]
    return []
