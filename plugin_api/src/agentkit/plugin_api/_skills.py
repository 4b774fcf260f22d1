"""The skill contract: named instructions a plugin offers the agent."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Skill:
    """A skill: a name and description the model sees, instructions it loads on demand.

    :param tools: names of tools the skill needs enabled.
    :param source: where the skill came from (a manifest path), for reports.
    """

    name: str
    description: str
    instructions: str
    tools: tuple[str, ...] = ()
    source: str | None = None
