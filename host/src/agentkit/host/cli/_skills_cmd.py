"""``agentkit skills list`` and ``agentkit skills show NAME``: the skills an agent here would have.

The same loader the agent uses (:func:`agentkit.host.skills.load_skills`): the
installed plugins, the user's ``~/.agentkit/skills/``, and the project's
``<root>/.agentkit/skills/`` only with ``--trust-project``. What was refused
or skipped is printed to stderr, one line each.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import Tool
from agentkit.plugin_api.errors import UsageError

from .._terminal import visible, visible_line

if TYPE_CHECKING:
    from ..skills import SkillEntry, SkillSet


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    skills = commands.add_parser("skills")
    actions = skills.add_subparsers(dest="action", metavar="ACTION", parser_class=type(skills))
    listing = actions.add_parser("list", help="list the skills, with their tier and source")
    listing.add_argument("--json", action="store_true", help="print the list as JSON")
    show = actions.add_parser("show", help="show one skill and its instructions")
    show.add_argument("name", help="the skill's name (see 'agentkit skills list')")
    for parser in (listing, show):
        parser.add_argument("--root", default=".", help="the workspace root (default: .)")
        parser.add_argument("--trust-project", action="store_true",
                            help="trust the project: also read its skills under ROOT/.agentkit/skills/ "
                                 "(and let its agentkit.toml's MCP servers start)")
    listing.set_defaults(handler=list_skills)
    show.set_defaults(handler=show_skill)
    skills.set_defaults(handler=lambda args: skills.error("say what to do: 'agentkit skills list' or "
                                                          "'agentkit skills show NAME'"))


def _load(args: argparse.Namespace) -> SkillSet:
    root = Path(args.root).expanduser()
    if not root.is_dir():
        raise UsageError(f"--root {args.root!r} is not a directory")
    from .._plugins import PluginHost  # the host and the loader only once a skills command runs
    from ..skills import load_skills
    from .support import open_project

    project = open_project(root, args.trust_project)
    found = load_skills(PluginHost.discover(project=project), project.root, trust_project=project.trusted)
    for problem in found.problems:
        print(f"note: {visible_line(problem)}", file=sys.stderr)
    return found


def _row(entry: SkillEntry, found: SkillSet) -> dict[str, Any]:
    skill = entry.skill
    return {
        "name": skill.name,
        "tier": entry.tier,
        "source": entry.origin,
        "description": skill.description,
        "invocable": skill.model_invocable,
        "trusted": entry.tier != "project" or found.trust_project,
        "location": str(entry.instructions_path),
        "version": skill.version,
        "author": skill.author,
        "tools": [item.name if isinstance(item, Tool) else item for item in skill.tools],
    }


def list_skills(args: argparse.Namespace) -> int:
    found = _load(args)
    rows = [_row(entry, found) for _, entry in sorted(found.entries.items())]
    if args.json:
        print(json.dumps({"trust_project": found.trust_project, "skills": rows, "problems": found.problems},
                         indent=2))
        return 0
    if not rows:
        print("No skills: install a skill plugin, or add a SKILL.md folder under ~/.agentkit/skills/.")
    for row in rows:
        invocable = "" if row["invocable"] else "  (not shown to the model)"
        print(visible_line(f"{row['name']}  [{row['tier']}: {row['source']}]{invocable}"))
        print(f"    {visible_line(row['description'])}")
    print(f"project skills: {'trusted' if found.trust_project else 'not trusted (pass --trust-project)'}")
    return 0


def show_skill(args: argparse.Namespace) -> int:
    found = _load(args)
    entry = found.entries.get(args.name)
    if entry is None:
        known = ", ".join(sorted(found.entries)) or "none"
        raise UsageError(f"no skill named {args.name!r} (known: {known}); see 'agentkit skills list'")
    row = _row(entry, found)
    for key in ("name", "tier", "source", "description", "invocable", "trusted", "version", "author", "tools",
                "location"):
        value = row[key]
        if value not in (None, []):
            print(f"{key}: {visible_line(', '.join(value) if isinstance(value, list) else str(value))}")
    print()
    print(visible(entry.instructions_path.read_text(encoding="utf-8", errors="replace").rstrip("\n")))
    return 0
