"""Tool calls deferred to a person: the answer a person gives, and who may wait for one.

The embedder's ``before_tool_call`` or a plugin hook answers
:class:`~agentkit.plugin_api.Defer` to have a person decide about a call. Only
a run that can outlive its process can wait for that person (a durable run:
``agentkit run --durable`` parks the run in its database and goes on when
``agentkit runs approve``/``deny`` answers): its steps
(:meth:`~._steps.RunSteps.ask_person`) wait for the answer. Without them, the
call is answered with an error that names ``--durable``, at once: a run that
cannot be parked never hangs waiting for someone who has no way to answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from agentkit.plugin_api import Block, Defer, ToolResult, ToolUseBlock
from agentkit.plugin_api._dataclass import dataclass

from ._guard import Abandoned, guarded_call
from ._stopping.run_stop import RunStop

__all__ = ["NEEDS_DURABLE_RUN", "Approval", "ask_person", "denied", "not_waitable", "settled"]

#: The error of a deferred call in a run that cannot wait for a person.
NEEDS_DURABLE_RUN = "approval_needs_durable_run"


@dataclass(frozen=True, slots=True)
class Approval:
    """A person's answer about one deferred call.

    :param approved: whether the call may run.
    :param reason: why, in the person's words (shown to the model when the
        call is denied); ``None``: no reason given.
    """

    approved: bool
    reason: str | None = None


def not_waitable(call: ToolUseBlock, deferral: Defer) -> ToolResult:
    """The result of ``call``, deferred to a person in a run that cannot wait for one."""
    return ToolResult.failure(
        NEEDS_DURABLE_RUN,
        f"The call to {call.name!r} needs a person's approval ({deferral.reason}), and only a durable run "
        "can wait for one: run it with --durable (pip install agentkit-durable).",
    )


def denied(call: ToolUseBlock, answer: Approval) -> ToolResult:
    """The result of ``call``, which a person denied."""
    return ToolResult.failure("denied", f"A person denied the call to {call.name!r}: {answer.reason or 'no reason given'}.")


async def ask_person(ask: Callable[[ToolUseBlock, Defer], Awaitable[Approval]] | None, call: ToolUseBlock,
                     deferral: Defer, *, stop: RunStop | None, report: Callable[[str], None]) -> Approval | Block | None:
    """The person's answer about ``call``; ``None`` when no one can be asked (a run that is not durable).

    While the run waits, its stop (abort, deadline) still ends the wait
    (:class:`~._guard.Abandoned` is raised). When asking fails (a database
    that went away), the answer is a ``Block``, failing closed as a hook that
    raises does.
    """
    if ask is None:
        return None
    try:
        answer = await guarded_call(ask, call, deferral, timeout=None, stop=stop, name="ask-person")
    except Abandoned:
        raise  # the run stopped while it waited: the batch's abort decision answers the call
    except Exception as exc:
        report(f"asking a person about call {call.id} failed: {type(exc).__name__}: {exc}")
        return Block(f"Blocked: a person's approval could not be asked for ({type(exc).__name__}).")
    if not isinstance(answer, Approval):
        report(f"asking a person about call {call.id} answered {answer!r}, not an Approval; the call was blocked")
        return Block("Blocked: the approval answered nothing a person decided.")
    return answer


def settled(answer: Approval | None, call: ToolUseBlock, deferral: Defer,
            deferred_by: str) -> tuple[tuple[str, str | None], ToolResult | None]:
    """The batch's decision about a deferred call (for the audit), and its result unless it runs.

    ``answer`` ``None``: nobody could be asked (the result names ``--durable``).
    """
    if answer is None:
        return ("blocked", deferred_by), not_waitable(call, deferral)
    if answer.approved:
        return ("allowed", None), None
    return ("blocked", "person"), denied(call, answer)
