"""The skill contract: named instructions the model loads when a task calls for them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ._dataclass import dataclass

if TYPE_CHECKING:
    from ._tools import Tool


@dataclass(frozen=True, slots=True)
class Skill:
    """A skill: a name and description the model sees, instructions it reads on demand.

    The model is shown only the name, the description and where the
    instructions are; it reads them with its file tool when a task matches.

    :param name: 1-64 letters, digits, ``_``, ``.`` or ``-``; unique across skills.
    :param description: what the skill is for, so the model knows when to load it.
    :param instructions: the instructions as text, for a skill that ships no file
        (the host writes them to a private file the model can read). Prefer ``path``.
    :param tools: what the skill needs: names of installed tools to enable, and
        :class:`~agentkit.plugin_api.Tool` objects of its own, merged with the
        agent's tools (a name the agent already has is an error unless ``overrides``
        lists it).
    :param source: where the skill came from (a manifest path), for reports.
    :param path: the file holding the instructions (``SKILL.md``, ``prompt.md``);
        relative paths in it are relative to its folder.
    :param overrides: names of the agent's tools this skill's own tools may replace.
    :param version: the skill's version, for reports.
    :param author: who wrote it, for reports.
    :param min_api_version: the oldest ``agentkit-plugin-api`` the skill works with;
        an older installed API rejects the skill.
    :param model_invocable: ``False`` keeps the skill out of what the model is
        shown (an embedder may still activate it).
    """

    name: str
    description: str
    instructions: str = ""
    tools: tuple[str | Tool, ...] = ()
    source: str | None = None
    path: Path | str | None = None
    overrides: tuple[str, ...] = ()
    version: str | None = None
    author: str | None = None
    min_api_version: str | None = None
    model_invocable: bool = True
