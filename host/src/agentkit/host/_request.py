"""The canonical request an agent sends for a transcript.

One function, used by the loop for every turn and by ``agentkit run
--dry-run`` to show what the first turn would send, so the two cannot drift:
the repaired transcript (:mod:`._repair`), the agent's system prompt and
tools, the model settings with the tool-choice rule (:mod:`._settings`), and
the catalog clamps on ``max_tokens`` and ``reasoning`` (:mod:`._budget`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import Message, ProviderRequest

from ._budget import clamp_max_tokens, clamp_reasoning
from ._settings import request_settings

if TYPE_CHECKING:
    from ._agent import Agent

__all__ = ["build_request"]


def build_request(agent: Agent, history: Sequence[Message], *, overrides: Mapping[str, Any] | None = None,
                  first: bool = True) -> ProviderRequest:
    """The request ``agent`` sends for ``history``; ``history`` is not changed.

    :param overrides: the run's model settings (see :class:`._settings.ModelSettings`).
    :param first: whether it is the run's first request (a forcing tool choice applies to it only).
    """
    model = agent.model
    messages = agent.transcript_repair(history)
    system, tools = agent.system_prompt(), agent.tool_specs()
    settings = request_settings(agent.config, overrides or {}, first=first)
    requested = min(settings["max_tokens"] or model.max_output, model.max_output)
    request = ProviderRequest(
        model=model,
        messages=messages,
        system=system,
        tools=tools,
        max_tokens=clamp_max_tokens(requested, model, agent.prompt_estimator.tokens(messages, system, tools)),
        temperature=settings["temperature"],
        top_p=settings["top_p"],
        top_k=settings["top_k"],
        stop_sequences=settings["stop_sequences"],
        seed=settings["seed"],
        tool_choice=settings["tool_choice"],
        reasoning=clamp_reasoning(agent.config.reasoning, model),
        session_id=agent.session_id,
        options=agent.config.connection.provider_options,
    )
    # A structured run adds its final-answer tool (see ._structured).
    return request if agent.structured is None else agent.structured.shape(request)
