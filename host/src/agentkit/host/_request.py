"""The canonical request an agent sends for a transcript.

One function, used by the loop for every turn and by ``agentkit run
--dry-run`` to show what the first turn would send, so the two cannot drift:
the repaired transcript (:mod:`._repair`), the agent's system prompt and
tools, and the catalog clamps on ``max_tokens`` and ``reasoning``
(:mod:`._budget`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agentkit.plugin_api import Message, ProviderRequest

from ._budget import clamp_max_tokens, clamp_reasoning

if TYPE_CHECKING:
    from ._agent import Agent

__all__ = ["build_request"]


def build_request(agent: Agent, history: Sequence[Message]) -> ProviderRequest:
    """The request ``agent`` sends for ``history``; ``history`` is not changed."""
    model = agent.model
    messages = agent.transcript_repair(history)
    system, tools = agent.system_prompt(), agent.tool_specs()
    requested = min(agent.config.max_tokens or model.max_output, model.max_output)
    return ProviderRequest(
        model=model,
        messages=messages,
        system=system,
        tools=tools,
        max_tokens=clamp_max_tokens(requested, model, agent.prompt_estimator.tokens(messages, system, tools)),
        temperature=agent.config.temperature,
        tool_choice=agent.config.tool_choice,
        reasoning=clamp_reasoning(agent.config.reasoning, model),
        session_id=agent.session_id,
        options=agent.config.provider_options,
    )
