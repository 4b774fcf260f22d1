"""How a run ends: the answers to calls left pending, the message of a stopped response, the end's time floors.

Whatever ended the run, :func:`answer_pending` gives every tool call of a
usable response exactly one result (the one the batch had settled, or an
error saying why there is none) before anything else of the run's end runs;
:func:`wait_out` lets that bookkeeping finish whatever cancellations arrive.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentkit import plugin_api
from agentkit.plugin_api import (
    AssistantMessage,
    Message,
    ModelInfo,
    Outcome,
    StopReason,
    ToolResult,
    ToolResultMessage,
)

if TYPE_CHECKING:
    from agentkit.plugin_api import Event

    from .._batch import ToolBatch
    from .._run_state import RunState

__all__ = ["POLICY_FAILED", "SESSION_END_FLOOR", "aborted_message", "answer_pending", "wait_out"]

#: Seconds the session-end hooks get even when the run's stop budget is spent.
SESSION_END_FLOOR = 0.2

#: A stop policy that raised or hung: the run ends as an error.
POLICY_FAILED = object()

#: How a call left unanswered is answered, by the run's outcome.
_PENDING_DETAIL = {
    Outcome.CANCELLED: "The run was cancelled before this call finished.",
    Outcome.TIMEOUT: "The run's deadline passed before this call finished.",
    Outcome.ERROR: "The run failed before this call finished.",
}


def answer_pending(state: RunState, batch: ToolBatch | None, append: Callable[[Message], None],
                   emit: Callable[[Event], None]) -> None:
    """Give every tool call of the run one result: the one the batch had, or an error saying why not."""
    if batch is None:
        return
    answered = {message.tool_use_id for message in state.added if isinstance(message, ToolResultMessage)}
    for message in list(state.added):
        if not isinstance(message, AssistantMessage) or message.stop_reason in (StopReason.ERROR, StopReason.ABORTED):
            continue  # a failed response's calls are never run nor sent again
        for call in message.tool_calls:
            if call.id in answered:
                continue
            answered.add(call.id)
            settled = batch.settled.get(call.id)
            if settled is None:
                if call.id not in batch.started:
                    emit(plugin_api.ToolCallStart(call))
                reason = state.outcome if state.outcome in _PENDING_DETAIL else Outcome.ABORTED
                detail = _PENDING_DETAIL.get(reason, "Operation aborted")
                settled = batch.answer(call, ToolResult.failure(reason.value, detail))
            append(settled)


def aborted_message(model: ModelInfo) -> AssistantMessage:
    return AssistantMessage(
        [], StopReason.ABORTED, provider=model.vendor, api=model.api, model=model.id,
        error_message="aborted by the caller",
    )


async def wait_out(future: asyncio.Future[Any], on_cancel: Callable[[], None] | None = None) -> bool:
    """Wait for ``future`` to finish whatever cancellations arrive meanwhile; whether any did.

    The run's bookkeeping must finish before its caller sees a cancellation;
    ``on_cancel`` (called on each one) may hurry it along. The future's own
    failure is retrieved, not raised: it reports its failures itself.
    """
    cancelled = False
    while not future.done():
        try:
            await asyncio.wait({future})
        except asyncio.CancelledError:
            cancelled = True
            if on_cancel is not None:
                on_cancel()
    if not future.cancelled():
        future.exception()
    return cancelled
