"""Where skills come from: installed plugins, the user's skills folder, the project's.

Precedence, highest first: user, project, plugin. A skill of a higher tier
shadows one of the same name below it, and the shadowing is reported. Two
skills of the same name within one folder tier are both refused (as two
plugins claiming one name are). The project tier is read only when the
embedder trusts the project (``Trust.project``), and a project
skill whose folder or files are symbolic links leading out of the repository
is refused as ``read_file`` refuses such a path. When HOME cannot be resolved
to an absolute folder, the user tier is skipped, never looked for relative to
the working directory.
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

from agentkit.plugin_api import Project, Skill, ToolError
from agentkit.plugin_api._dataclass import dataclass

from ._folders import PROJECT_SKILLS, USER_SKILLS, user_home

if TYPE_CHECKING:
    from .._plugins import PluginHost

__all__ = ["PROJECT_SKILLS", "TIERS", "USER_SKILLS", "SkillEntry", "SkillSet", "load_skills", "user_home"]

#: Tiers from lowest to highest precedence.
TIERS = ("plugin", "project", "user")


@dataclass(frozen=True, slots=True)
class SkillEntry:
    """A skill that passed the checks, with where it came from.

    :param tier: ``plugin``, ``user`` or ``project``.
    :param origin: the plugin's name, or the skill's folder.
    :param instructions_path: the absolute path the model reads the instructions from.
    """

    skill: Skill
    tier: str
    origin: str
    instructions_path: Path

    @property
    def folder(self) -> Path:
        """The folder relative paths in the instructions are resolved against."""
        return self.instructions_path.parent


@dataclass
class SkillSet:
    """The skills an agent has, and what was refused or skipped on the way (one line each)."""

    entries: dict[str, SkillEntry] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    trust_project: bool = False
    user_folder: Path | None = None
    project_folder: Path | None = None

    def invocable(self) -> list[SkillEntry]:
        """The skills the model may choose, in name order."""
        return [entry for _, entry in sorted(self.entries.items()) if entry.skill.model_invocable]


def load_skills(host: PluginHost | None, root: Path, *, trust_project: bool) -> SkillSet:
    """Every skill from the three tiers, checked; refusals are in ``problems``, never raised."""
    found = SkillSet(trust_project=trust_project)
    tiers: dict[str, dict[str, SkillEntry]] = {tier: {} for tier in TIERS}
    if host is not None and host.skills:
        # Here, not at the top: the checks (packaging, tomllib) are for an agent that has a skill.
        from ._check import check_skill
        from ._manifest import SkillRejected

        for name, skill in host.skills.items():
            plugin = host.plugin_of("skill", name) or "?"
            try:
                path = check_skill(skill, f"plugin {plugin!r}")
            except SkillRejected as exc:
                found.problems.append(str(exc))
                continue
            tiers["plugin"][name] = SkillEntry(skill, "plugin", plugin, path)
    project = (root / PROJECT_SKILLS)
    found.project_folder = project
    if trust_project:
        tiers["project"] = _read_tier(project, "project", found.problems, within=Project(root).folders()[0])
    elif project.is_dir():
        found.problems.append(f"{project}: project skills not loaded: the project is not trusted "
                              "(AgentConfig(trust=Trust(project=True)), 'agentkit run --trust-project')")
    home = user_home()
    if home is None:
        found.problems.append("HOME cannot be resolved: user skills skipped")
    else:
        found.user_folder = home / USER_SKILLS
        tiers["user"] = _read_tier(found.user_folder, "user", found.problems)
    for tier in TIERS:
        for name, entry in tiers[tier].items():
            shadowed = found.entries.get(name)
            if shadowed is not None:
                found.problems.append(f"{entry.tier} skill {name!r} ({entry.origin}) shadows the "
                                      f"{shadowed.tier} skill of that name ({shadowed.origin})")
            found.entries[name] = entry
    return found


def _read_tier(folder: Path, tier: str, problems: list[str], within: Path | None = None) -> dict[str, SkillEntry]:
    """The skills of ``folder``; with ``within``, only those whose files stay inside that folder, links resolved."""
    if not folder.is_dir():
        return {}
    # Here, not at the top: the checks (packaging, tomllib) are for a folder that may hold a skill.
    from ._check import check_skill
    from ._manifest import SkillRejected, read_skill_folder

    entries: dict[str, SkillEntry] = {}
    claims: dict[str, list[Path]] = {}
    for child in sorted(folder.iterdir()):
        if not child.is_dir() or child.name.startswith("."):
            continue
        try:
            if within is not None:
                _check_contained(child, within)
            skill, warnings = read_skill_folder(child)
            problems.extend(warnings)
            path = check_skill(skill, str(skill.source or child))
        except SkillRejected as exc:
            problems.append(str(exc))
            continue
        claims.setdefault(skill.name, []).append(child)
        entries[skill.name] = SkillEntry(skill, tier, str(child.resolve()), path)
    for name, folders in claims.items():
        if len(folders) > 1:
            del entries[name]
            problems.append(f"{tier} skill {name!r} is declared by {', '.join(map(str, folders))}, so neither "
                            "is loaded: rename one")
    return entries


#: The files of a skill folder the host reads or points the model at.
_SKILL_FILES = ("SKILL.md", "skill.toml", "prompt.md")


def _check_contained(skill_folder: Path, within: Path) -> None:
    """Refuse a skill whose folder or files lead out of ``within`` through a link, with ``read_file``'s words."""
    from agentkit.plugin_api.workspace import locate

    from ._manifest import SkillRejected  # loaded already: only _read_tier calls this

    below = skill_folder.relative_to(within)
    for relative in (below, *(below / name for name in _SKILL_FILES if (skill_folder / name).exists())):
        try:
            locate(within, str(relative)).close()
        except ToolError as exc:
            raise SkillRejected(f"{within / relative}: not loaded: {exc}") from None
