"""The canonical request a run sends for a transcript.

One function, used by the loop for every turn and by ``agentkit run
--dry-run`` to show what the first turn would send, so the two cannot drift:
the repaired transcript (:mod:`._repair`), the agent's system prompt and
tools, the model settings with the tool-choice rule (:mod:`._settings`), and
the catalog clamps on ``max_tokens`` and ``reasoning`` (:mod:`._budget`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agentkit.plugin_api import Message, ProviderRequest

from ._settings import request_settings
from ._token_limits import clamp_max_tokens, clamp_reasoning

if TYPE_CHECKING:
    from ._route import Route
    from ._run import Run

__all__ = ["build_request"]


def build_request(run: Run, history: Sequence[Message], *, first: bool = True,
                  route: Route | None = None) -> ProviderRequest:
    """The request ``run`` sends for ``history``; ``history`` is not changed.

    The run's model settings (``run.overrides``, see :class:`._settings.ModelSettings`)
    override its configuration's; ``first`` says whether it is the run's first
    request (a forcing tool choice applies to it only). ``route``: built for
    that model instead of the run's own (a fallback).
    """
    if route is None:
        model, messages = run.model, run.transcript_repair(history)
    else:
        model, messages = route.model, route.transcript_repair(history)
    system, tools = run.system_prompt(), run.toolset.specs()
    settings = request_settings(run.config.settings, run.overrides, first=first)
    requested = min(settings["max_tokens"] or model.max_output, model.max_output)
    request = ProviderRequest(
        model=model,
        messages=messages,
        system=system,
        tools=tools,
        max_tokens=clamp_max_tokens(requested, model, run.prompt_estimator.tokens(messages, system, tools)),
        temperature=settings["temperature"],
        top_p=settings["top_p"],
        top_k=settings["top_k"],
        stop_sequences=settings["stop_sequences"],
        seed=settings["seed"],
        tool_choice=settings["tool_choice"],
        reasoning=clamp_reasoning(run.config.reasoning, model),
        session_id=run.session_id,
        options=run.config.connection.provider_options,
    )
    # A structured run adds its final-answer tool (see ._structured).
    return request if run.structured is None else run.structured.shape(request)
