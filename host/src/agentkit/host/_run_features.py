"""What a run asks of the features it may not use, without loading them.

A plain run (no audit sink, no guardrail or output validator, no structured
output) asks each feature only whether it has anything to do, and the answer
is a field of the run or its configuration, or a hook no plugin implements.
The feature's module is imported here, in the branch taken only when the
answer is yes, so a first run loads none of them; each such import runs once
a run, once a turn of a run that uses the feature, or when a plugin uses it.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

# The run's events, as plugin_api.TurnEnd: they load with the first one built.
from agentkit import plugin_api

from ._hooks import INPUT_GUARDRAIL, OUTPUT_GUARDRAIL
from ._turn_ends import end_stopped

if TYPE_CHECKING:
    from collections.abc import Callable

    from agentkit.plugin_api import AssistantMessage, Message, PromptBlocked, RetryRequested

    from ._batch import ToolBatch
    from ._run import Run

__all__ = ["input_blocked", "no_trail", "output_checked", "record_retry", "settle_answer", "settle_structured"]


def output_checked(run: Run) -> bool:
    """Whether anything checks this run's final answer (validators or a plugin's output guardrail)."""
    return bool(run.config.output_validators) or bool(run.host.hook_callers(OUTPUT_GUARDRAIL))


async def input_blocked(run: Run, message: Message, source: str) -> PromptBlocked | None:
    """What :func:`._guardrails.input_blocked` says of ``message``; ``None`` (let in) when no plugin guards input."""
    if not run.host.hook_callers(INPUT_GUARDRAIL):
        return None
    from ._guardrails import input_blocked

    return await input_blocked(run, message, source)


async def settle_answer(run: Run, text: str) -> bool:
    """:func:`._guardrails.settle_answer`, for a run whose answer something checks (:func:`output_checked`)."""
    from ._guardrails import settle_answer

    return await settle_answer(run, text)


def record_retry(run: Run, event: RetryRequested) -> None:
    """:func:`._guardrails.record_retry`: a tool asked for a retry."""
    from ._guardrails import record_retry

    record_retry(run, event)


async def settle_structured(run: Run, message: AssistantMessage, batch: ToolBatch) -> bool | None:
    """What a structured run's response meant: ``None`` when it is neither its final answer nor output
    to retry (its tool calls run as any others); else whether the run ends here."""
    from ._guardrails import STOPPED, check_answer, report_retry

    assert run.structured is not None and run.output_budget is not None
    settled = await run.structured.settle(message, batch, run.output_budget,
                                          functools.partial(check_answer, run) if run.output_checked else None)
    if settled is None:
        return None
    for result in settled.results:
        run.append(result)
    run.emit(plugin_api.TurnEnd(run.state.turn, message, settled.results))
    if settled.refusal is STOPPED:  # stopped while the output was checked: it was not accepted
        end_stopped(run)
        return True
    if settled.refusal is not None:
        report_retry(run, settled.refusal, run.output_budget, settled.retried)
    if settled.retry is not None:
        run.append(settled.retry)
    return settled.ends(run.state)


def no_trail(name: str, call_id: str) -> Callable[..., None]:
    """``audit_for`` of a run whose audit trail nobody keeps: every call's ``ToolContext.audit`` is :func:`_unkept`."""
    return _unkept


def _unkept(kind: str, /, **fields: Any) -> None:
    """A record nobody keeps: a plugin's misuse still raises, as it does in a run that keeps its trail."""
    from ._audit import plugin_fields

    plugin_fields(kind, fields)
