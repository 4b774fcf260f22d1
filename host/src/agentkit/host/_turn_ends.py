"""How a run's turns end before their answer: a response that failed or was aborted, or a stop that was requested.

The loop calls these where a turn finds its run over; what follows (the
answers to calls left pending, the end hooks) is the run's end, in
:mod:`._stopping.ending` and :func:`._loop.drive`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# TurnEnd, as the run's other events, loads with the first one built.
from agentkit import plugin_api
from agentkit.plugin_api import AssistantMessage, Outcome, StopReason

from ._stopping.ending import aborted_message

if TYPE_CHECKING:
    from ._run import Run

__all__ = ["end_failed", "end_stopped"]


def end_failed(run: Run, message: AssistantMessage) -> None:
    """A response that failed or was aborted ends the run."""
    state, stop = run.state, run.stop
    run.emit(plugin_api.TurnEnd(state.turn, message, []))
    state.outcome = Outcome.ERROR if message.stop_reason is StopReason.ERROR else Outcome.ABORTED
    state.error = message.error_message
    if message.stop_reason is StopReason.ABORTED and stop.reason is not None:
        state.outcome, state.error = stop.reason, stop.detail


def end_stopped(run: Run) -> None:
    """End a run whose stop was requested: the stopped response is recorded, the outcome is the stop's."""
    stop, state = run.stop, run.state
    reason = stop.reason or Outcome.ABORTED
    message = aborted_message(run.model)
    if stop.detail:
        message.error_message = stop.detail
    run.append(message)
    state.outcome = reason
    state.error = stop.detail if reason is not Outcome.ABORTED else None
