"""The ``<available_skills>`` block: what the model is shown of the skills.

Only each skill's name, description and the absolute path of its
instructions; the model reads the instructions itself, with the read tool
the agent actually has, when a task matches. Every field is XML-escaped, so a
description cannot close the block or forge a skill.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._escape import escape
from ._tiers import SkillEntry

__all__ = ["READ_TOOLS", "read_tool", "render_skills_block"]

#: Tools that can read a skill's file, in order of preference: the file reader, else a shell.
READ_TOOLS = ("read_file", "execute", "run_command", "powershell")

def read_tool(tools: Iterable[str]) -> str | None:
    """The tool the model should read instructions with, or ``None`` when the agent has none."""
    names = set(tools)
    return next((name for name in READ_TOOLS if name in names), None)


def _how(tool: str) -> str:
    if tool == "read_file":
        return "read its file with the read_file tool"
    return f"print its file with the {tool} tool"


def render_skills_block(entries: Iterable[SkillEntry], tool: str) -> str:
    """The block for ``entries``, telling the model to read them with ``tool``."""
    lines = [
        "<available_skills>",
        f"Skills are instructions for particular tasks. When a task matches a skill's description, "
        f"{_how(tool)} (the location below) before you start, and follow it. Relative paths in a "
        "skill's instructions are relative to the folder that holds its file.",
    ]
    for entry in entries:
        lines += [
            "<skill>",
            f"<name>{_escape(entry.skill.name)}</name>",
            f"<description>{_escape(entry.skill.description)}</description>",
            f"<location>{_escape(str(entry.instructions_path))}</location>",
            "</skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


def _escape(text: str) -> str:
    return escape(text, quotes=True)


