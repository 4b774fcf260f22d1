"""The system prompt, assembled in one documented order.

1. the embedder's base prompt (``AgentConfig.system_prompt``);
2. the project context files (``AGENTS.md`` and kin), least specific first;
3. the ``<available_skills>`` block;
4. the enabled tools' prompt guidelines, in tool order.

Parts are separated by a blank line; empty parts are left out, and with
nothing to say there is no system prompt at all. Everything before the tool
guidelines is fixed for the agent's lifetime, so the provider's cached prefix
survives a tool added mid-session (its guidelines go last).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

__all__ = ["CONTEXT_FILES", "USER_FOLDER", "assemble_system_prompt", "may_have_context_files"]

#: The context files tried in each folder, first match wins (read by :mod:`._context_files`).
CONTEXT_FILES = ("AGENTS.override.md", "AGENTS.md", "CLAUDE.md")
#: The user's folder under HOME.
USER_FOLDER = ".agentkit"


def assemble_system_prompt(
    base: str | None, context: Iterable[str], skills_block: str | None, guidelines: Iterable[str]
) -> str | None:
    """The parts joined in the documented order, or ``None`` when every part is empty."""
    parts = [base or "", *context, skills_block or "", *guidelines]
    return "\n\n".join(part for part in parts if part) or None


def may_have_context_files(home: Path | None, trust_project: bool) -> bool:
    """Whether an agent may have context files: its project is trusted, or the user has one of their own.

    Asked before :mod:`._context_files` is loaded, so an agent without any loads none of it.
    """
    if trust_project:
        return True
    return home is not None and any((home / USER_FOLDER / name).is_file() for name in CONTEXT_FILES)
