"""Hooks of the ``agentkit.skills`` category."""

from __future__ import annotations

from collections.abc import Callable

from .._markers import hookspec
from .._skills import Skill


@hookspec
def agentkit_register_skills(register: Callable[[Skill], None]) -> None:
    """Register the skills this plugin provides.

    :param register: call once per :class:`~agentkit.plugin_api.Skill`.
    :returns: nothing; the return value is ignored.

    Called once per plugin when the host builds its registry. A skill name
    another plugin registers too is a collision: neither plugin serves it,
    and both are told. An exception marks this plugin failed, with the
    reason, and the host goes on without it. Each agent then checks every
    skill (a missing instructions file rejects it, reported in
    ``agent.skills.problems``) and shows the model each invocable skill's
    name, description and instructions path in its system prompt.

    .. versionadded:: 0.1
    .. versionchanged:: 0.1
       ``Skill`` gained ``path``, ``overrides`` and metadata; skills reach
       the model through the ``<available_skills>`` block.
    """
