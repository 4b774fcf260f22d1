"""The loop of one run: its turns, its requests, its start and its end, each a step taking the :class:`~._run.Run`.

The loop, in order, each turn:

1. send the request (system prompt, history, tools) and stream the response;
2. append the assistant message as it ended, whatever its stop reason;
3. an ``error`` or ``aborted`` response ends the run;
4. no tool-use blocks: the run is complete. Otherwise the tool calls run as a
   batch, whatever the stop reason says (some wires say "stop" beside tool
   calls); a response cut by the output limit runs none of them and answers
   each with an error;
5. one result message per call is appended, in call order;
6. the stop policies are consulted, now that the results are in history.

Session start and end hooks fire on every exit, once, and so does
``agent_end``. Whatever ends the run (an exception of any kind, an abort, a
cancellation, a deadline), every tool call in the history has exactly one
result when it returns, and the outcome says what happened.

Nothing here is given the agent: :class:`~agentkit.host.Agent` makes the run
and calls :func:`drive`; every step reads and changes only the run.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

# The run's events, as plugin_api.TurnStart: they load with the first one someone hears.
from agentkit import plugin_api
from agentkit.plugin_api import (
    AssistantMessage,
    Message,
    MessageEnd,
    Outcome,
    Provider,
    ProviderRequest,
    SessionInfo,
    StopReason,
    ToolUseBlock,
)

from ._config import RunResult
from ._hooks import streamed_piece
from ._request import build_request
from ._route import Route
from ._run import Run, enter_run, heard, hearing
from ._run_features import (
    input_blocked,
    no_trail,
    output_checked,
    record_retry,
    settle_answer,
    settle_structured,
)
from ._run_state import RetryBudget
from ._stopping.ending import POLICY_FAILED, SESSION_END_FLOOR, answer_pending, wait_out
from ._stopping.policies import StopContext
from ._stopping.run_stop import STOP_BUDGET
from ._turn_ends import end_failed, end_stopped
from .runtime import ModelUnavailable

if TYPE_CHECKING:
    from agentkit.plugin_api import Event

    from ._batch import ToolBatch

__all__ = ["drive", "request", "run_turns"]


# -- the run's start and end -------------------------------------------------------------


async def drive(run: Run, new: list[Message]) -> None:
    """Run ``run`` from ``new`` (the caller's messages) to its end; the result goes to ``run.finished``."""
    state, stop = run.state, run.stop
    run.emit, run.append = _emitter(run), _appender(run)
    run.session_info = session = SessionInfo(run.session_id, run.model.key, run.root)
    cancelled = failed = False
    timer = None
    try:
        if run.config.timeouts.run is not None:
            timer = asyncio.get_running_loop().call_later(
                run.config.timeouts.run, stop.request, Outcome.TIMEOUT,
                f"the run took longer than run_timeout={run.config.timeouts.run}s",
            )
        if await _begin(run, new, session):
            async with run.runtime.session():  # one HTTP client, its connections reused, for the run's requests
                await run_turns(run)
    except asyncio.CancelledError:
        cancelled = True
        state.outcome, state.error = Outcome.CANCELLED, "the run's task was cancelled"
    except BaseException as exc:  # a defect in the host, a provider or a plugin: end as an error
        state.outcome, state.error = Outcome.ERROR, f"{type(exc).__name__}: {exc}"
        failed = True
    finally:
        if timer is not None:
            timer.cancel()
        if await _finish(run, session, failed):
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError


async def _begin(run: Run, new: list[Message], session: SessionInfo) -> bool:
    """The run's log, its audit trail, ``session_start`` and the caller's messages; whether the run goes on
    (an input guardrail may have blocked the caller's messages)."""
    hooks, config = run.hooks, run.config
    run.log = log = None
    if run.session is not None:
        # Here, not at the top (once a run): the session's writer, and the store under it, are for a run that has one.
        from .sessions._recorder import RunLog

        run.log = log = RunLog.start(run.session, run.model.key, config.reasoning, run.stop)
    enter_run(run)  # set in the run's own task: its tool calls see it, its caller does not
    if run.steps is not None:  # before anything is written or emitted: the steps may wrap both
        run.steps.begin(run)
        log = run.log
    if run.audit is not None:  # a trail asked for (AgentConfig.audit) is kept in the session too
        # Here, not at the top (once a run): the trail's records and sinks are for a run that keeps one.
        from ._audit import server_descriptions

        run.audit.log = log
        run.audit.start(run.toolset.skills.entries,
                        server_descriptions(hooks.mcp_servers(sorted(run.toolset.tools)), hooks.report))
    await call_hook(run, "agentkit_session_start", session=session)
    run.observers.extend(hooks.run_observers(session))
    if log is not None:  # a killed process may have left calls unanswered: answer them first, in the log
        # Here, not at the top (once a run): only a session's log can hold a turn a killed process left.
        from .sessions._interrupted import interrupted_results

        for answer in interrupted_results(run.history):
            run.append(answer)
    run.output_checked = output_checked(run)
    if run.output_checked or run.structured is not None:  # the retries of an answer something checks
        run.output_budget = RetryBudget(config.output_retries)
    blocked = None
    for message in new:  # none joins the history unless every one passed the guardrails
        blocked = blocked or await input_blocked(run, message, "prompt")
    for message in new if blocked is None else ():
        run.append(message)
    if heard(run):  # nobody listening: the run builds no event of its own (nor loads their module)
        run.emit(plugin_api.AgentStart(list(new)))
    if blocked is not None:
        run.emit(blocked)
    return blocked is None


def _tool_batch(run: Run) -> ToolBatch:
    """The run's tool batch, made at its first use and reused by every turn after: a run whose model calls
    no tool (an agent's first request included) never loads the batch."""
    if run.batch is None:
        assert run.session_info is not None  # set by drive before anything runs
        run.batch = _batch(run, run.session_info)
    return run.batch


def _batch(run: Run, session: SessionInfo) -> ToolBatch:
    """The run's tool batch, reused by every turn."""
    # Here, not at the top (once a run, at its first tool call): see _tool_batch.
    from ._batch import ToolBatch
    from ._batch_inputs import BatchServices, CallPolicy
    from ._tool_retries import ToolRetries

    config, toolset, audit, stop = run.config, run.toolset, run.audit, run.stop
    return ToolBatch(
        tools=toolset.tools,
        session=session,
        cancel=stop.cancel,
        emit=run.emit,
        heard=hearing(run),
        stop=stop,
        run_id=run.run_id,
        steps=run.steps,
        policy=CallPolicy(
            before_tool_call=config.trust.before_tool_call,
            tool_options=toolset.options(config.tool_options),
            tool_timeout=config.timeouts.tool,
            hook_timeout=config.timeouts.hook,
            max_result_chars=config.limits.max_tool_result_chars,
        ),
        services=BatchServices(
            hooks=run.hooks,
            hook_callers=run.host.hook_callers,
            validators=toolset.validators,
            admit_images=functools.partial(_admit_tool_images, run),
            add_tools=toolset.add,
            artifacts=run.artifacts,
            audit_for=no_trail if audit is None else audit.calls(toolset.plugin_of),
            retries=ToolRetries(lambda: run.state.turn, functools.partial(record_retry, run)),
        ),
    )


def _admit_tool_images(run: Run, images: list[Any]) -> list[Any]:
    """A tool result's images normalized for the model; a path must stay in the workspace."""
    from ._images import admit  # asked only of a result that has images

    return admit(images, run.model, root=run.root, fetcher=run.config.connection.image_fetcher, from_tool=True)


async def _finish(run: Run, session: SessionInfo, failed: bool) -> bool:
    """Answer every pending call, record and report the end; whether a cancellation arrived meanwhile."""
    state, stop, hooks = run.state, run.stop, run.hooks
    cancelled = False

    def on_cancel() -> None:
        stop.request(Outcome.CANCELLED, "the run's task was cancelled", on_loop=True)

    # Every call gets its one result first, before anything else can fail or be cancelled.
    try:
        # Calls whose batch was never made (the run failed right after their response) are answered too.
        calls = any(isinstance(message, AssistantMessage) and message.tool_calls for message in state.added)
        answer_pending(state, _tool_batch(run) if calls else run.batch, run.append, run.emit)
    except Exception as exc:  # never seen; the end of the run must still be reported
        hooks.report(f"answering the pending tool calls failed: {type(exc).__name__}: {exc}")
    # A delegation the batch gave up on is still winding down: its child ends before this run does.
    if run.children and await wait_out(asyncio.ensure_future(run.end_children()), on_cancel):
        cancelled = True
    if failed:
        model = run.model
        run.append(AssistantMessage([], StopReason.ERROR, provider=model.vendor, api=model.api, model=model.id,
                                    error_message=state.error))
    if run.log is not None:
        run.log.end(state)
    if run.audit is not None and run.audit.started:
        run.audit.end(state.outcome.value, state.error, state.skills)
    # Its own task, waited for through further cancellations: the hook is
    # bounded by its deadline and the stop budget, and reports the end
    # before agent_end does, never after the run has returned.
    ending = asyncio.ensure_future(call_hook(run, "agentkit_session_end", abandon_on_stop=False, session=session,
                                             outcome=state.outcome, error=state.error))
    if await wait_out(ending, on_cancel):
        cancelled = True
    run.finished(RunResult(state.outcome, state.added, state.usage, state.turn, state.error,
                           list(hooks.problems),  # a copy: abandoned threads may still report
                           skills=list(state.skills), stopped_by=state.stopped_by, output=state.output))
    run.ended = True
    if heard(run):
        run.emit(plugin_api.AgentEnd(state.outcome, list(state.added), state.error))
    if run.put is not None:
        run.put(None)
    return cancelled


def _emitter(run: Run) -> Callable[[Event], None]:
    """Where every event of the run goes: the stream (if any), the subscribers, the observing plugins."""
    put, subscribers, observers, hooks = run.put, run.subscribers, run.observers, run.hooks

    def emit(event: Event) -> None:
        if put is not None:
            put(event)
        for listener in subscribers.all:
            try:
                listener(event)
            except BaseException as exc:  # embedder code never takes the run down
                hooks.report(f"event listener {listener!r} raised {type(exc).__name__}: {exc}")
        if observers and not streamed_piece(event):
            hooks.observe(observers, event)

    return emit


def _appender(run: Run) -> Callable[[Message], None]:
    """Where every message of the run goes: the history, the run's own list, its log, its audit trail."""
    history, added, audit = run.history, run.state.added, run.audit

    def append(message: Message) -> None:
        history.append(message)
        added.append(message)
        log = run.log
        if log is not None:
            log.record(message)
        if audit is not None:
            batch = run.batch
            audit.observe(message, batch.decisions if batch is not None else {})

    return append


# -- the turns ---------------------------------------------------------------------------


async def run_turns(run: Run) -> None:
    """The turns of one run; the outcome is left in ``run.state``."""
    state, stop, queues, append, emit = run.state, run.stop, run.queues, run.append, run.emit
    while True:
        steering = None if stop.requested else queues.take_steering()
        if steering is not None:  # at the head of a turn: after the results, before the request
            if (blocked := await input_blocked(run, steering, "steering")) is not None:
                emit(blocked)
                return
            append(steering)
            emit(plugin_api.SteeringMessage(steering))
        if run.log is not None:
            run.log.before_request()
        if stop.requested:
            end_stopped(run)
            return
        state.turn += 1
        if heard(run):
            emit(plugin_api.TurnStart(state.turn))
        steps = run.steps
        message = await (request(run) if steps is None else steps.model_request(functools.partial(request, run)))
        append(message)
        state.usage = state.usage + message.usage
        if message.stop_reason in (StopReason.ERROR, StopReason.ABORTED):
            end_failed(run, message)
            return
        if run.structured is not None and (ends := await settle_structured(run, message, _tool_batch(run))) is not None:
            if ends:  # a structured run's final answer, or output to retry
                return
            continue
        calls = message.tool_calls
        if not calls:
            if await _answered(run, message):
                return
            continue
        if await _ran_tools(run, _tool_batch(run), message, calls):
            return


async def _answered(run: Run, message: AssistantMessage) -> bool:
    """A response without tool calls: whether the run ends, or a queued message (or a retry) keeps it going."""
    if heard(run):
        run.emit(plugin_api.TurnEnd(run.state.turn, message, []))
    if run.stop.requested:
        return True
    if run.queues.steering:
        return False  # pending steering keeps the run going
    follow_up = run.queues.take_follow_up()
    if follow_up is None:
        if not run.output_checked:
            return True
        ends = await settle_answer(run, message.text)  # or a refusal goes back to the model
        if run.stop.requested:  # stopped while the answer was checked: it was not accepted
            end_stopped(run)
            return True
        return ends
    if (blocked := await input_blocked(run, follow_up, "follow_up")) is not None:
        run.emit(blocked)
        return True
    run.append(follow_up)
    return False


async def _ran_tools(run: Run, batch: ToolBatch, message: AssistantMessage, calls: list[ToolUseBlock]) -> bool:
    """Run a response's tool calls and consult the stop policies; whether the run ends here."""
    state, stop = run.state, run.stop
    if message.stop_reason is StopReason.LENGTH:
        results, terminate = batch.not_executed(calls), False
    else:
        results, terminate = await batch.run(calls)
    for result in results:
        run.append(result)
    state.skills.extend(run.toolset.activate_read_skills(calls, results))
    if heard(run):
        run.emit(plugin_api.TurnEnd(state.turn, message, results))
    if stop.requested:
        end_stopped(run)
        return True
    if terminate:
        state.outcome = Outcome.TERMINATED
        return True
    if run.policy is not None:
        context = StopContext(state.turn, message, results, run.history, state.added, state.usage)
        fired = await check_policy(run, context)
        if fired is POLICY_FAILED:
            state.outcome, state.error = Outcome.ERROR, run.hooks.problems[-1]
            return True
        if fired is not None:
            state.outcome, state.stopped_by = fired.outcome, fired.name
            return True
    if run.config.limits.budget is not None and run.account.exhausted():
        state.outcome, state.stopped_by = Outcome.STOP_POLICY, "budget"
        return True
    return False


async def check_policy(run: Run, context: StopContext) -> Any:
    """The policy that fired, ``None``, or ``POLICY_FAILED`` (reported) when it raised or hung."""
    assert run.policy is not None
    # Here, not at the top: a policy is consulted after a batch of tool calls, which loaded the guard already.
    from ._guard import Abandoned, TimedOut, guarded_call

    hook_timeout = run.config.timeouts.hook
    try:
        return await guarded_call(run.policy.fired, context, timeout=hook_timeout, stop=run.stop,
                                  name="stop_policy")
    except Abandoned:
        return None  # the stop itself ends the run on the next turn
    except TimedOut:
        run.hooks.report(f"the stop policy did not answer within hook_timeout={hook_timeout}s")
    except Exception as exc:
        run.hooks.report(f"the stop policy raised {type(exc).__name__}: {exc}")
    return POLICY_FAILED


async def call_hook(run: Run, hook: str, *, abandon_on_stop: bool = True, **kwargs: Any) -> None:
    """An observing hook, off the loop, within ``hook_timeout``; once the run was stopped, within its budget."""
    if not run.host.hook_callers(hook):
        return
    from ._guard import Abandoned, TimedOut, guarded_call  # here: a hook some plugin implements

    stop, hooks = run.stop, run.hooks
    timeout = run.config.timeouts.hook
    end = stop.budget_end()
    if end is not None:  # still called, with a floor: the end of a run is always reported
        left = max(SESSION_END_FLOOR, end - asyncio.get_running_loop().time())
        timeout = left if timeout is None else min(timeout, left)
    # A hook called once the run was stopped has its own floor (above); one
    # the stop reaches while it runs is given up like any other call.
    watch = abandon_on_stop or not stop.event.is_set()
    try:
        await guarded_call(functools.partial(hooks.notify, hook, **kwargs), timeout=timeout,
                           stop=stop if watch else None, grace=STOP_BUDGET, name=hook)
    except TimedOut:
        hooks.report(f"{hook} did not return within {timeout:.3g}s; it was abandoned")
    except Abandoned:
        hooks.report(f"{hook} did not return before the run was stopped; it was abandoned")
    except Exception as exc:
        hooks.report(f"{hook} raised {type(exc).__name__}: {exc}")


# -- one request -------------------------------------------------------------------------


async def request(run: Run) -> AssistantMessage:
    """Send the turn's request and stream its response; every event is emitted, the message returned."""
    # The wire gets a compacted, repaired view of the history (failed turns
    # and their results left out, foreign thinking and ids adapted, every
    # call answered) and limits that fit the model; the history stays as it happened.
    state, compactor = run.state, run.compactor
    if compactor is None:  # nothing to cut: the whole history
        view = run.history
    else:
        view, checkpoint = await compactor.view(run.history, run.prompt_parts, run.stop.event)
        if checkpoint is not None:
            state.usage = state.usage + checkpoint.usage  # a summary is the run's spending too
            if run.log is not None:
                run.log.compacted(checkpoint.first_kept, checkpoint.summary)
    if run.fallbacks:
        return await _request_with_fallbacks(run, view)
    return await _stream(run, run.provider, build_request(run, view, first=state.turn == 1))


async def _request_with_fallbacks(run: Run, view: list[Message]) -> AssistantMessage:
    """The turn's request sent to each model in turn until one serves it (see :class:`~._route.Route`).

    A model that fails in a way another may cure, before any of its response
    was handed over (:class:`~.runtime.ModelUnavailable`), passes the same
    request, built afresh for the next model, on; the last model's failure is
    the turn's. Nothing of a failed attempt enters the history.
    """
    routes = (Route(run.model, run.provider, run.transcript_repair), *run.fallbacks)
    first, last = run.state.turn == 1, len(routes) - 1
    for index, route in enumerate(routes):
        request = build_request(run, view, first=first, route=route)
        try:
            return await _stream(run, route.provider, request, fallback=index < last)
        except ModelUnavailable as exc:
            run.emit(plugin_api.ModelFallback(run.state.turn, route.model.key, routes[index + 1].model.key, str(exc)))
    raise AssertionError("the last model's failure ends its stream")  # unreachable: fallback=False


async def _stream(run: Run, provider: Provider, request: ProviderRequest, fallback: bool = False) -> AssistantMessage:
    """Stream ``request``'s response through ``provider``; every event is emitted, the message returned."""
    run.stats.requests += 1
    message: AssistantMessage | None = None
    structured, emit = run.structured, run.emit
    async for events in run.runtime.stream_batches(provider, request, abort=run.stop.event, fallback=fallback):
        # Whether anyone hears is asked once a list: nobody there, nothing between its events makes one listen.
        for event in events if structured is not None or heard(run) else ():
            emit(event)
            if structured is not None:
                partial = structured.partial(event)
                if partial is not None:
                    emit(partial)
        # The runtime's lists are never empty, and its one MessageEnd is the last event of the last.
        last = events[-1]
        if isinstance(last, MessageEnd):
            message = last.message
    if message is None:
        raise RuntimeError(f"provider {request.model.api!r} ended a response without message_end")
    return message

