"""What a run's messages and final answer go through before they count: guardrails and output validators.

* A message the model is about to be given (the run's prompt, a steering or
  follow-up message) is shown to every plugin's ``agentkit_input_guardrail``
  before it joins the history. A refusal keeps it out of the history and of
  every request, and ends the run with outcome ``guardrail``.
* An answer that would end the run is shown first to the embedder's output
  validators (``AgentConfig.output_validators``), then to every plugin's
  ``agentkit_output_guardrail``. A validator that raises
  :class:`~agentkit.plugin_api.Retry`, or a guardrail that refuses, sends the
  reason back to the model, which answers again: at most
  ``AgentConfig.output_retries`` times in a run, a budget shared with the
  retries of a structured output that did not fit its type. Past it, the run
  ends as ``error`` (a validator, the type) or ``guardrail`` (a guardrail).

Both only narrow: they see copies and refuse or say nothing; neither can
change what the model said. A guardrail that raises, answers something else
than ``None`` or a ``Block``, or misses ``hook_timeout`` refuses (fails
closed). A validator that raises anything but ``Retry`` is a defect of the
embedder's: the run ends as ``error`` naming it, without a retry.

Each refusal is a ``retry_requested`` event and a ``retry`` entry in the
session log; a blocked message, a ``prompt_blocked`` event and a
``guardrail`` entry.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import (
    Message,
    Outcome,
    PromptBlocked,
    Retry,
    RetryRequested,
    TextBlock,
    UserMessage,
)

from ._guard import Abandoned, TimedOut, guarded_call
from ._hooks import INPUT_GUARDRAIL, OUTPUT_GUARDRAIL
from ._refusals import Refusal, ValidatorFailed, exhausted
from ._run_state import RetryBudget

if TYPE_CHECKING:
    from ._run import Run

__all__ = ["STOPPED", "check_answer", "input_blocked", "note_retry", "record_retry", "report_retry", "settle_answer"]

#: What a check the run's stop interrupted answers: not an acceptance (an unchecked message or
#: answer is never let through), and no refusal of anyone's either: the stop ends the run, with its own outcome.
STOPPED = Refusal("the run was stopped before the check answered", "stop", Outcome.ABORTED, terminate=True)

async def input_blocked(run: Run, message: Message, source: str) -> PromptBlocked | None:
    """The event to emit when a guardrail refused ``message`` (``prompt``, ``steering``, ``follow_up``);
    then the run ends with outcome ``guardrail``, the refusal in its session log."""
    if not run.host.hook_callers(INPUT_GUARDRAIL):
        return None
    assert run.session_info is not None  # set before the first message is checked
    text = "\n".join(block.text for block in getattr(message, "content", ()) if isinstance(block, TextBlock))
    refusal = await _guardrail(run, INPUT_GUARDRAIL, message=message, text=text, source=source,
                               session=run.session_info)
    if refusal is None:
        return None
    if refusal is STOPPED:  # kept out of the history all the same: it was never checked
        run.state.outcome, run.state.error = run.stop.reason or Outcome.ABORTED, run.stop.detail
        return PromptBlocked(refusal.reason, refusal.by, source)
    if run.log is not None:
        run.log.custom("guardrail", {"source": source, "by": refusal.by, "reason": refusal.reason})
    run.state.outcome, run.state.error = Outcome.GUARDRAIL, f"{refusal.by} blocked the {_SOURCES[source]}: {refusal.reason}"
    return PromptBlocked(refusal.reason, refusal.by, source)


_SOURCES = {"prompt": "prompt", "steering": "steering message", "follow_up": "follow-up message"}


async def check_answer(run: Run, text: str, output: Any) -> Refusal | None:
    """The first refusal of the run's answer: its validators' (in order), then its guardrails' (AND-ed).

    :param output: what the validators are given: the validated value of a
        structured run, the text of any other.
    :raises ValidatorFailed: a validator raised something else than ``Retry``, or missed ``hook_timeout``.
    """
    timeout = run.config.timeouts.hook
    for validator in run.config.output_validators:
        name = getattr(validator, "__name__", repr(validator))
        try:
            await guarded_call(validator, output, timeout=timeout, stop=run.stop, name="output-validator")
        except Retry as exc:
            return Refusal(str(exc.reason), "validator", Outcome.ERROR)
        except Abandoned:
            return STOPPED
        except TimedOut as exc:
            raise ValidatorFailed(f"output validator {name} did not return within hook_timeout={timeout}s") from exc
        except Exception as exc:
            raise ValidatorFailed(f"output validator {name} raised {type(exc).__name__}: {exc}") from exc
    if run.host.hook_callers(OUTPUT_GUARDRAIL):
        assert run.session_info is not None
        structured = run.structured is not None
        return await _guardrail(run, OUTPUT_GUARDRAIL, text=text, output=output if structured else None,
                                session=run.session_info)
    return None


async def _guardrail(run: Run, hook: str, **kwargs: Any) -> Refusal | None:
    """Every plugin's answer to ``hook`` within ``hook_timeout``; a late one refuses (fails closed)."""
    timeout = run.config.timeouts.hook
    try:
        answer = await guarded_call(functools.partial(run.hooks.guardrail, hook, **kwargs), timeout=timeout,
                                    stop=run.stop, name=hook)
    except Abandoned:
        return STOPPED
    except TimedOut:
        run.hooks.report(f"{hook} did not answer within hook_timeout={timeout}s; it counts as a refusal")
        return Refusal(f"a guardrail did not answer within {timeout} seconds", "guardrail", Outcome.GUARDRAIL)
    if answer is None:
        return None
    plugin, reason, terminate = answer
    return Refusal(reason, f"plugin:{plugin}", Outcome.GUARDRAIL, terminate)


def note_retry(run: Run, refusal: Refusal, budget: RetryBudget) -> bool:
    """Count ``refusal`` against ``budget`` and report it; whether the model tries again."""
    retried = budget.refuse() and not refusal.terminate
    report_retry(run, refusal, budget, retried)
    return retried


def report_retry(run: Run, refusal: Refusal, budget: RetryBudget, retried: bool) -> None:
    """A refused answer's ``retry_requested`` event, and its entry in the session log."""
    record_retry(run, RetryRequested(refusal.reason, refusal.by, budget.refusals, budget.limit, retried))


def record_retry(run: Run, event: RetryRequested) -> None:
    """Emit ``event`` and write it in the session log as a ``retry`` entry (an answer's, or a tool's)."""
    run.emit(event)
    if run.log is not None:
        run.log.custom("retry", {name: value for name, value in dataclasses.asdict(event).items() if name != "type"})


async def settle_answer(run: Run, text: str) -> bool:
    """Check a text run's final answer; whether the run ends (accepted, or refused for good: outcome set).

    A refusal with a retry left appends the reason as a user message, and the run goes on.
    """
    state, budget = run.state, run.output_budget
    assert budget is not None  # made by the run's start
    try:
        refusal = await check_answer(run, text, text)
    except ValidatorFailed as exc:
        state.outcome, state.error = Outcome.ERROR, str(exc)
        return True
    if refusal is None or refusal is STOPPED:  # a stopped check: the caller ends the run with the stop's outcome
        return True
    if note_retry(run, refusal, budget):
        run.append(UserMessage.text(f"The answer was not accepted: {refusal.reason}. Answer again."))
        return False
    state.outcome, state.error = refusal.outcome, exhausted(refusal, budget)
    return True
