"""Hooks of the ``agentkit.hooks`` category: the run's lifecycle.

Authorization hooks can only narrow. The embedder's own ``before_tool_call``
decides first; a call it blocks never reaches a plugin. A hook may also defer
a call to a person (:class:`~agentkit.plugin_api.Defer`); any block wins over
a deferral, and a deferred call runs only once a person approves it.

Guardrails narrow too: ``agentkit_input_guardrail`` and
``agentkit_output_guardrail`` may refuse a message or an answer, never change
it. Every plugin's guardrail is called (they are AND-ed: any refusal wins).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._hooks import Block, Defer, SessionInfo
from .._markers import hookspec
from .._messages import Message, ToolResultMessage, ToolUseBlock
from .._outcome import Outcome

if TYPE_CHECKING:  # annotations only: a provider plugin, which registers through these specs, makes no run event
    from .._run_events import Event


@hookspec(firstresult=True)
def agentkit_before_tool_call(
    call: ToolUseBlock, arguments: dict[str, Any], session: SessionInfo
) -> Block | Defer | None:
    """Object to a tool call the embedder has already allowed (or deferred to a person).

    :param call: the call as the model made it (id, name, argument text).
    :param arguments: the validated arguments, as a deep read-only copy
        (changing it raises ``TypeError``).
    :param session: the run the call belongs to.
    :returns: ``None`` for no objection, a :class:`~agentkit.plugin_api.Block`
        to refuse the call, or a :class:`~agentkit.plugin_api.Defer` to have a
        person decide. There is no "allow": any other value (``False``, ``0``,
        ``""`` and ``[]`` included) is reported and blocks the call (fails
        closed).

    Stops at the first ``Block``: later plugins are not consulted. A ``Defer``
    does not stop the scan, so a later plugin's ``Block`` still wins over it.
    Runs only for calls the embedder allowed or deferred, so a hook can never
    turn a block into an allow. An exception blocks the call (fails closed)
    and is reported; the run goes on. ``wrapper``/``hookwrapper``
    implementations are refused.

    .. versionadded:: 0.1
    .. versionchanged:: 0.2
        A hook may answer ``Defer(reason)``.
    """


@hookspec
def agentkit_after_tool_call(
    call: ToolUseBlock, result: ToolResultMessage, session: SessionInfo
) -> None:
    """Observe a tool call's result before it enters the transcript.

    :param call: the call as the model made it.
    :param result: a copy of the result message, including error and blocked
        results; changing it does not change the one in the history.
    :param session: the run the call belongs to.
    :returns: nothing; a returned value is ignored and reported.

    Called for every call, in call order, once the batch's handlers are
    done. An exception is reported and does not change the result or stop
    the run.

    .. versionadded:: 0.1
    """


@hookspec
def agentkit_session_start(session: SessionInfo) -> None:
    """A run is starting.

    :param session: the run.
    :returns: nothing; the return value is ignored.

    Called once per run, before the first request. An exception is reported
    and does not stop the run.

    .. versionadded:: 0.1
    """


@hookspec
def agentkit_session_end(session: SessionInfo, outcome: Outcome, error: str | None) -> None:
    """A run has ended, however it ended.

    :param session: the run.
    :param outcome: how the run ended, as on its result (an :class:`Outcome`,
        which is a ``str``): ``completed``, ``max_turns``, ``stop_policy``,
        ``terminated``, ``error``, ``aborted``, ``cancelled``, ``timeout`` or
        ``guardrail``.
    :param error: what went wrong, when ``outcome`` is ``error``, ``cancelled``,
        ``timeout`` or ``guardrail``; otherwise ``None``.
    :returns: nothing; the return value is ignored.

    Called once on every exit: clean, error, abort, cancellation and deadline
    alike, after every tool call of the run has its result. An exception is
    reported and does not change the outcome.

    .. versionadded:: 0.1
    .. versionchanged:: 0.2
        ``outcome`` is an :class:`Outcome`; a stop policy that fired is
        ``stop_policy`` whatever its name (the name is on ``RunResult.stopped_by``).
    """



@hookspec
def agentkit_run_observer(session: SessionInfo) -> Callable[[Event], None] | None:
    """Ask to observe a run's events: its start and end, each turn, request and tool call.

    :param session: the run about to start.
    :returns: ``None`` to leave this run alone (then the host does no work
        for this plugin), or a function the host calls with a copy of each
        event of the run, in order: every event of ``docs/events.md`` from
        ``agent_start`` to ``agent_end`` except the streamed pieces of a
        response (``block_start``, ``block_delta``, ``block_end``,
        ``output_partial``), whose whole is on ``message_end``.

    Called once per run, after ``agentkit_session_start``, on the event
    loop's thread; so is the function, right after the embedder's listeners
    get each event: keep both quick (a tracer records, it does not export).
    An exception, or an answer that is neither ``None`` nor callable, is
    reported and changes nothing: that plugin observes nothing of the run,
    or, when the function raises, the rest of the run goes on without it.

    .. versionadded:: 0.2
    """


@hookspec
def agentkit_input_guardrail(message: Message, text: str, source: str, session: SessionInfo) -> Block | None:
    """Refuse a message before any request carries it to the model.

    :param message: a copy of the message: the run's prompt, or a message
        queued with ``Agent.steer`` or ``Agent.follow_up``; changing it changes
        nothing.
    :param text: the message's text: its text blocks, joined with newlines.
    :param source: which it is: ``prompt``, ``steering`` or ``follow_up``.
    :param session: the run.
    :returns: ``None`` for no objection, or a
        :class:`~agentkit.plugin_api.Block` to refuse the message: it never
        enters the history nor any request, and the run ends at once with
        outcome ``guardrail`` (``Block.terminate`` changes nothing here).

    Called for every plugin, in pluggy's order, before the message joins the
    history (a prompt: after ``agentkit_session_start``, before the first
    request); any refusal wins. An exception, an answer that is neither
    ``None`` nor a ``Block``, or no answer within ``hook_timeout`` refuses the
    message (fails closed) and is reported. ``wrapper``/``hookwrapper``
    implementations are refused.

    .. versionadded:: 0.2
    """


@hookspec
def agentkit_output_guardrail(text: str, output: Any, session: SessionInfo) -> Block | None:
    """Refuse the model's final answer, with a reason the model is given to answer again.

    :param text: the text of the final response (for a structured run that
        answers through its final-answer tool, usually empty).
    :param output: for a run with an ``output_type``, a copy of the validated
        value; ``None`` otherwise.
    :param session: the run.
    :returns: ``None`` for no objection, or a
        :class:`~agentkit.plugin_api.Block` whose ``reason`` goes back to the
        model, which answers again, up to ``AgentConfig.output_retries`` times
        in a run; past that (or at once, with ``Block(reason,
        terminate=True)``) the run ends with outcome ``guardrail``. A guardrail
        cannot change the answer.

    Called for every plugin, in pluggy's order, once the answer would end the
    run (after the output validators accepted it); any refusal wins. An
    exception, an answer that is neither ``None`` nor a ``Block``, or no
    answer within ``hook_timeout`` refuses the answer (fails closed), naming
    the error, and is reported. ``wrapper``/``hookwrapper`` implementations
    are refused.

    .. versionadded:: 0.2
    """
