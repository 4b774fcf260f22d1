"""A careful code-review skill: the model sees its name and description, and reads
``instructions.md`` (beside this module) when it is asked to review a change."""

from collections.abc import Callable
from pathlib import Path

from agentkit.plugin_api import Skill, hookimpl

#: The instructions the model reads on demand.
INSTRUCTIONS = Path(__file__).with_name("instructions.md")

REVIEW = Skill(
    name="code-review",
    description=(
        "Review a change (a diff, a branch or a set of files) for defects a maintainer would block it for: "
        "wrong behaviour, missing tests, broken contracts. Use it when asked to review or check code."
    ),
    path=INSTRUCTIONS,
    version="0.1.0",
    author="agentkit",
)


@hookimpl
def agentkit_register_skills(register: Callable[[Skill], None]) -> None:
    register(REVIEW)


__all__ = ["INSTRUCTIONS", "REVIEW", "agentkit_register_skills"]
