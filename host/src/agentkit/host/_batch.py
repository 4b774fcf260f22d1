"""One response's tool calls, executed as a batch.

Three phases:

1. prepare, in call order: announce the call, parse (with the strict wire
   decoder) and validate its arguments, ask the embedder's
   ``before_tool_call``, then the plugins' ``agentkit_before_tool_call``
   hooks (only for calls the embedder allowed);
2. execute: the abort decision is taken once, here, before any handler
   starts; then every runnable handler runs, concurrently unless one tool of
   the batch is sequential (sync handlers in daemon threads, handed over
   together: :mod:`._thread_batch`; async ones as tasks; ``INLINE`` sync ones
   on the loop's thread, one after another). Each call is settled on its own:
   a failing call never cancels its siblings (no fail-fast group is used);
3. finalize, in call order: the result message (made JSON-safe; past
   ``max_result_chars``, stored as an artifact the model gets a preview of,
   see :mod:`._artifact_results`), ``agentkit_after_tool_call``, the end event.

Every call yields exactly one result, whatever happened to it: each phase
of a call runs inside that call's own guard (:mod:`._guard`), so anything a
handler, hook or policy raises (``BaseException`` included), a deadline or
an abort becomes that call's error result and never reaches a sibling.
If the batch itself is cancelled, :attr:`ToolBatch.settled` keeps the
results it already had, for the loop to answer the rest.
"""

from __future__ import annotations

import asyncio
import copy
import functools
from collections.abc import Callable, Sequence
from dataclasses import field
from typing import Any

# The run's events, as plugin_api.ToolCallStart: they load with the first one someone hears.
from agentkit import plugin_api
from agentkit.plugin_api import (
    Block,
    CancelToken,
    Defer,
    ExecutionMode,
    SessionInfo,
    TextBlock,
    Tool,
    ToolContext,
    ToolResult,
    ToolResultMessage,
    ToolUseBlock,
)
from agentkit.plugin_api._dataclass import dataclass

from ._approvals import ask_person, settled
from ._arguments import parse_arguments
from ._batch_inputs import BatchServices, CallPolicy
from ._config import allow_all
from ._guard import (
    Abandoned,
    Launched,
    TimedOut,
    awaiting,
    guarded_call,
    launch,
    settle_all,
)
from ._progress import progress_for
from ._steps import RunSteps, settle_by_steps
from ._stopping.run_stop import STOP_BUDGET, RunStop
from ._thread_batch import HANDLER_GRACE, ThreadBatch, ThreadCall, given_up, tool_timeout_of
from ._tool_results import (
    LENGTH_NOT_EXECUTED,
    Rendered,
    Rendering,
    as_result,
    call_and_render,
    call_inline,
    render,
    spooled,
)
from ._tool_retries import REFUSALS

#: The decision of an authorization the run's abort interrupted.
ABORTED = Block("Operation aborted")
_HOST_DEFAULTS = CallPolicy()  # frozen: one shared instance is safe


@dataclass(slots=True)
class _Call:
    """One tool call of a batch, from preparation to its result."""

    call: ToolUseBlock
    tool: Tool | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    result: ToolResult | None = None  # set when the call is settled before execution
    rendered: Rendering | None = None  # when rendered in the handler's own thread
    terminate: bool = False
    # How the handler runs, for every phase: an async handler, or a sync one that said
    # it is cheap (INLINE), which runs on the loop's thread.
    asynchronous: bool = False
    inline: bool = False


class ToolBatch:
    """Runs the tool calls of one assistant message; see the module docstring.

    :param tools: the callable tools by name.
    :param session: the session handlers and hooks see.
    :param cancel: the token handlers see; with a ``stop``, the stop's own token.
    :param emit: where the call events go.
    :param heard: whether an event emitted now reaches anyone (none is built for nobody); ``None``: always.
    :param stop: the run's stop (abort, cancellation, run deadline); without
        one, the ``cancel`` token alone decides, and running calls are never
        given up on except at their deadline.
    :param policy: what every call is held to: authorization, deadlines,
        result size, options (:class:`~._batch_inputs.CallPolicy`).
    :param services: the collaborators the batch calls on: hooks, validators,
        images, artifacts, audit (:class:`~._batch_inputs.BatchServices`).
    :param run_id: the run's id, which every call's context carries.
    :param steps: where calls and authorizations go (a durable run's, :mod:`._steps`); ``None``: run here.
    """

    def __init__(
        self,
        *,
        tools: dict[str, Tool],
        session: SessionInfo,
        cancel: CancelToken,
        emit: Callable[[Any], None],
        services: BatchServices,
        heard: Callable[[], bool] | None = None,
        stop: RunStop | None = None,
        policy: CallPolicy = _HOST_DEFAULTS,
        run_id: str = "",
        steps: RunSteps | None = None,
    ) -> None:
        self.tools = tools
        self.run_id, self.steps = run_id, steps
        self.session = session
        self.cancel = cancel
        self.stop = stop
        self.emit, self.heard = emit, heard or (lambda: True)
        # Kept flat, once per batch: every call reads them, and the batch lives as long as its run.
        self.before_tool_call = policy.before_tool_call
        self.tool_options = policy.tool_options
        self.tool_timeout = policy.tool_timeout
        self.hook_timeout = policy.hook_timeout
        self.max_result_chars = policy.max_result_chars
        self.hooks = services.hooks
        self.hook_callers = services.hook_callers
        self.validators = services.validators
        self.admit_images = services.admit_images
        self.add_tools = services.add_tools
        self.artifacts = services.artifacts
        self.audit_for, self.retries = services.audit_for, services.retries
        #: The results of the current batch so far, by call id: what the loop
        #: keeps when the batch is cancelled before it returns.
        self.settled: dict[str, ToolResultMessage] = {}
        #: The calls of the current batch whose start was announced.
        self.started: set[str] = set()
        #: The authorization of the current batch's calls, by call id: ``(allowed|blocked, who blocked)``.
        self.decisions: dict[str, tuple[str, str | None]] = {}
        self._implementing: dict[str, bool] = {}  # by hook name, for the current batch
        self._asynchronous: dict[str, tuple[Any, bool]] = {}  # by tool name: (its handler, is_async)

    async def run(self, calls: Sequence[ToolUseBlock]) -> tuple[list[ToolResultMessage], bool]:
        """Results in call order, and whether every call voted to end the run."""
        self.settled, self.started, self.decisions = {}, set(), {}
        self._implementing = {}
        prepared = []
        runnable: list[_Call] = []  # the calls still to run after preparing, in call order
        sequential = False
        may_refuse = self._anyone_may_refuse()  # the same for every call of the batch
        for call in calls:
            item = self._admit(call)
            if item.result is None:
                # Asked only when someone may refuse: a call nobody checks awaits nothing. bench_loop: -117 bytecodes/turn
                # json sync, -181 json async, -159 sse (0.6-1.0%); kept: the plain form took the loop past +3% (decision 0034).
                if may_refuse:
                    await self._authorize(item)
                else:
                    self.decisions[call.id] = ("allowed", None)
                if item.result is None:  # neither refused when prepared nor by its authorization
                    runnable.append(item)
                    sequential = sequential or item.tool.execution_mode is ExecutionMode.SEQUENTIAL  # type: ignore[union-attr]  # admitted calls have their tool
            prepared.append(item)
        await self._execute_all(runnable, sequential)
        results = []
        after = self._implemented("agentkit_after_tool_call")
        for item in prepared:
            # Settled when prepared, by the abort decision, or by its execution.
            assert item.result is not None
            message = self.answer(item.call, item.result, item.rendered)
            if after:
                await self._after_call(item, message)
            results.append(message)
        terminate = bool(prepared) and all(item.terminate for item in prepared)
        return results, terminate

    async def _execute_all(self, runnable: list[_Call], sequential: bool) -> None:
        """Phase 2: settle every runnable call, by the batch's one abort decision or by running it."""
        inline = [item for item in runnable if item.inline]
        asynchronous = [item for item in runnable if not item.inline and item.asynchronous]
        threaded = [item for item in runnable if not item.inline and not item.asynchronous]
        if self.cancel.cancelled:  # the one abort decision for the whole batch
            for item in runnable:
                item.result = ToolResult.failure("aborted", "Operation aborted")
        elif self.steps is not None:
            await settle_by_steps(self.steps, runnable, self._execute, sequential)
        elif sequential:
            for item in runnable:
                item.result = await self._execute(item)
        elif runnable:
            # Sync calls go to worker threads at once (:mod:`._thread_batch`), async ones each in a task.
            threads = self._start_threads(threaded) if threaded else None
            launches: list[Launched] = []
            try:
                for item in inline:
                    item.result = await self._execute(item)
                launches.extend(map(self._launch, asynchronous))
                if launches:
                    await settle_all(launches, self.stop, HANDLER_GRACE, just_launched=True)
                if threads is not None:
                    await threads.settled  # the future itself: no coroutine of its own
            finally:
                if threads is not None:
                    threads.close()
                for launched in launches:
                    launched.future.cancel()  # only when this batch itself was cancelled
            for item, launched in zip([*asynchronous, *threaded], [*launches, *(threads.calls if threads else ())], strict=True):
                result = self._conclude(item, launched)
                item.result = result if result is not None else await self._await_returned(item, launched)

    def not_executed(self, calls: Sequence[ToolUseBlock]) -> list[ToolResultMessage]:
        """Answer calls of a response cut by the output limit without running them."""
        results = []
        self.decisions = {}
        for call in calls:
            self.started.add(call.id)
            self.emit(plugin_api.ToolCallStart(call))
            result = ToolResult.failure("not_executed", LENGTH_NOT_EXECUTED.format(name=call.name))
            results.append(self.answer(call, result))
        return results

    def answer(self, call: ToolUseBlock, result: ToolResult, rendered: Rendering | None = None) -> ToolResultMessage:
        """The result message of ``call``, without hooks: JSON-safe, within the inline limit, announced."""
        if type(result) is not ToolResult and spooled(result):  # a text kept whole, its ends shown
            from ._spooled_results import settle_spooled

            result, rendered = settle_spooled(result, call, self.artifacts, self.max_result_chars, self.emit,
                                              self.hooks.report), None
        text, ok, images = rendered if rendered is not None else self._render(result)
        limit = self.max_result_chars
        if limit is not None and len(text) > limit:  # most results fit
            from ._artifact_results import over_limit

            text = over_limit(self.artifacts, self.tools, call, text, ok, limit, self.emit, self.hooks.report)
        message = ToolResultMessage(call.id, call.name, [TextBlock(text), *images], not ok)  # by position: cheaper
        self.settled[call.id] = message
        if self.heard():
            self.emit(plugin_api.ToolCallEnd(message))
        return message

    # -- phase 1 ---------------------------------------------------------------------

    def _admit(self, call: ToolUseBlock) -> _Call:
        """Announce ``call`` and check its tool and arguments; a refused call comes back settled."""
        self.started.add(call.id)
        if self.heard():
            self.emit(plugin_api.ToolCallStart(call))
        tool = self.tools.get(call.name)
        item = _Call(call, tool)
        if tool is None:
            available = ", ".join(sorted(self.tools)) or "none"
            item.result = ToolResult.failure("unknown_tool", f"No tool named {call.name!r}. Available tools: {available}.")
            return item
        # ``tool.is_async``, asked once per handler for the batches of a run (test_loop_resources
        # holds it): inspect is slow; bench_loop: -78 bytecodes/turn json sync, -142 json async.
        handler = tool.handler
        known = self._asynchronous.get(tool.name)
        if known is None or known[0] is not handler:
            known = self._asynchronous[tool.name] = (handler, tool.is_async)
        item.asynchronous = asynchronous = known[1]
        item.inline = not asynchronous and tool.execution_mode is ExecutionMode.INLINE
        try:
            problem = self._parse_arguments(item)
        except Exception as exc:  # a schema the validator chokes on, a decoder defect
            problem = f"The arguments could not be checked ({type(exc).__name__}: {exc})."
        if problem:
            item.result = ToolResult.failure("invalid_arguments", problem)
        return item

    def _anyone_may_refuse(self) -> bool:
        """Whether the embedder's policy or a plugin's hook is asked."""
        return self._embedder_may_refuse() or self._implemented("agentkit_before_tool_call")

    def _embedder_may_refuse(self) -> bool:
        """Whether there is an embedder's policy to ask: ``allow_all`` never refuses."""
        policy = self.before_tool_call
        return policy is not None and policy is not allow_all

    async def _authorize(self, item: _Call) -> None:
        """Ask the embedder, then the plugins, then (for a deferred call) a person; a refusal settles it."""
        call = item.call
        decision, blocked_by = await (self._decide_call(item) if self.steps is None else
                                      self.steps.authorize(call, functools.partial(self._decide_call, item)))
        if type(decision) is Defer:
            decision = await self._ask_person(item, decision, blocked_by or "before_tool_call")
            if decision is None or item.result is not None:
                return
        # ABORTED: the run is stopping and nobody refused this call; the batch's
        # abort decision answers it.
        if decision is None:
            self.decisions[call.id] = ("allowed", None)
        elif decision is not ABORTED:
            assert isinstance(decision, Block)
            self.decisions[call.id] = ("blocked", blocked_by)
            item.result = ToolResult.failure("blocked", decision.reason)
            item.terminate = decision.terminate

    async def _decide_call(self, item: _Call) -> tuple[Block | Defer | None, str | None]:
        """The embedder's, then the plugins' decision on an admitted call, and who blocked (or deferred) it."""
        decision: Block | Defer | None = None
        blocked_by = "before_tool_call"
        if self._embedder_may_refuse():
            decision = await self._ask_embedder(item)
        # A deferral still goes to the plugins: any block wins over it (narrow-only).
        if (decision is None or type(decision) is Defer) and self._implemented("agentkit_before_tool_call"):
            objection = await self._ask_plugins(item)
            if objection is not None and (decision is None or isinstance(objection, Block)):
                decision = objection
                blocked_by = self.hooks.blocked_by.get(item.call.id, "agentkit_before_tool_call")
        return decision, blocked_by

    async def _ask_person(self, item: _Call, deferral: Defer, deferred_by: str) -> Block | None:
        """A deferred call, settled here unless a person approved it (``None``); a ``Block`` if asking failed."""
        asking = self.steps.ask_person if self.steps is not None else None  # only a durable run can wait
        try:
            answer = await ask_person(asking, item.call, deferral, stop=self.stop, report=self.hooks.report)
        except Abandoned:  # the run stopped while it waited
            return ABORTED
        if isinstance(answer, Block):
            return answer  # the asking failed closed
        self.decisions[item.call.id], item.result = settled(answer, item.call, deferral, deferred_by)
        return None

    def _parse_arguments(self, item: _Call) -> str | None:
        assert item.tool is not None
        arguments, problem = parse_arguments(item.call.arguments, item.tool, self.validators)
        if problem is None:
            item.arguments = arguments
        return problem

    async def _ask_embedder(self, item: _Call) -> Block | Defer | None:
        assert self.before_tool_call is not None
        decision = await self._decide(
            "before_tool_call", self.before_tool_call, item.call, copy.deepcopy(item.arguments),  # what runs is what was approved
            late="Authorization did not answer within {timeout} seconds.",
            failed=lambda exc: f"Authorization failed: {type(exc).__name__}: {exc}",
        )
        if decision is None or isinstance(decision, (Block, Defer)):
            return decision
        self.hooks.report(f"before_tool_call returned {decision!r}; only None, a Block or a Defer is understood "
                          "(Block(reason, terminate=True) also ends the run)")
        return Block("Authorization returned an unknown decision")

    def _implemented(self, hook: str) -> bool:
        """Whether a plugin implements ``hook``: asked once per batch, not per call (test_loop_resources)."""
        known = self._implementing.get(hook)
        if known is None:
            known = self._implementing[hook] = self.hook_callers is None or bool(self.hook_callers(hook))
        return known

    async def _ask_plugins(self, item: _Call) -> Block | Defer | None:
        return await self._decide(  # type: ignore[no-any-return]  # HookRunner answers None, a Block or a Defer
            "agentkit_before_tool_call", self.hooks.before_tool_call, item.call, item.arguments, self.session,
            late="Blocked: a plugin's check did not answer within {timeout} seconds.",
            failed=lambda exc: f"Blocked: a plugin's check failed ({type(exc).__name__}).",
        )

    async def _decide(self, name: str, function: Callable[..., Any], *args: Any, late: str,
                      failed: Callable[[Exception], str]) -> Any:
        """An authorization's answer within ``hook_timeout``; a block when it is late or raises (fail closed)."""
        try:
            return await guarded_call(function, *args, timeout=self.hook_timeout, stop=self.stop, name=name)
        except TimedOut:
            self.hooks.report(f"{name} did not answer within hook_timeout={self.hook_timeout}s; the call was blocked")
            return Block(late.format(timeout=self.hook_timeout))
        except Abandoned:
            return ABORTED
        except Exception as exc:
            self.hooks.report(f"{name} raised {type(exc).__name__}: {exc}")
            return Block(failed(exc))

    # -- phase 2 ---------------------------------------------------------------------

    def _context(self, item: _Call, tool: Tool) -> ToolContext:
        return ToolContext(
            root=self.session.root,
            call_id=item.call.id,
            cancel=self.cancel,
            options=self.tool_options.get(tool.name, {}),
            add_tools=self.add_tools,
            audit=None if self.audit_for is None else self.audit_for(tool.name, item.call.id),
            run_id=self.run_id,
            progress=progress_for(self, item.call),
        )

    def _launch(self, item: _Call) -> Launched:
        """Start an async handler's call in its own task; :meth:`_conclude` reads its result."""
        tool: Tool = item.tool  # type: ignore[assignment]  # admitted calls have their tool
        return launch(tool.handler, item.arguments, self._context(item, tool),
                      timeout=tool_timeout_of(tool, self.tool_timeout))

    def _start_threads(self, threaded: list[_Call]) -> ThreadBatch:
        """Hand the sync calls to worker threads; each result is rendered in its thread too (see :meth:`_execute`)."""
        threads = ThreadBatch(self.stop, HANDLER_GRACE)
        for item in threaded:
            tool: Tool = item.tool  # type: ignore[assignment]  # admitted calls have their tool
            threads.add(call_and_render, tool.handler, self._render, item.arguments, self._context(item, tool),
                        timeout=self.tool_timeout if tool.timeout is None else tool.timeout, thread_name=f"agentkit-tool-{tool.name}")
        return threads.start()

    def _conclude(self, item: _Call, launched: Launched | ThreadCall) -> ToolResult | None:
        """A settled call's result (an async handler's value, a sync one's rendering); ``None``: a coroutine."""
        try:
            value = launched.outcome()
        except Exception as exc:
            return self._failure(item, exc)
        return None if not item.asynchronous and not isinstance(value, Rendered) else self._success(item, value)

    async def _await_returned(self, item: _Call, launched: Launched | ThreadCall) -> ToolResult:
        """The result of the coroutine a sync handler returned, awaited within the rest of its deadline."""
        remaining = None if launched.deadline is None else max(0.0, launched.deadline - asyncio.get_running_loop().time())
        try:
            value = await guarded_call(awaiting(launched.outcome()), timeout=remaining, stop=self.stop,
                                       grace=HANDLER_GRACE, name=f"tool-{item.call.name}")
        except Exception as exc:
            return self._failure(item, exc)
        return self._success(item, value)

    async def _execute(self, item: _Call) -> ToolResult:
        tool: Tool = item.tool  # type: ignore[assignment]  # admitted calls have their tool
        context = self._context(item, tool)
        # A sync handler's result is rendered in its own thread too: what is slow or cannot serialize stays guarded.
        try:
            handler: Callable[..., Any]
            arguments: tuple[Any, ...] = (item.arguments, context)
            if item.inline:
                value = call_inline(call_and_render, tool.handler, self._render, *arguments)
                if isinstance(value, Rendered):
                    return self._success(item, value)
                # A sync function handing back a coroutine: awaited in a task, guarded like any handler.
                handler, arguments = awaiting(value), ()
            elif item.asynchronous:
                handler = tool.handler
            else:
                handler = functools.partial(call_and_render, tool.handler, self._render)
            value = await guarded_call(handler, *arguments, timeout=tool_timeout_of(tool, self.tool_timeout),
                                       stop=self.stop, grace=HANDLER_GRACE, name=f"tool-{tool.name}")
        except Exception as exc:
            return self._failure(item, exc)
        return self._success(item, value)

    def _failure(self, item: _Call, exc: Exception) -> ToolResult:
        """The result of a call that raised ``exc`` (its own error, or the guard's verdict)."""
        tool = item.tool
        assert tool is not None
        if isinstance(exc, REFUSALS):  # ToolError chose its error; Retry asks the model to call again
            return self.retries.answer(tool, item.call, exc)
        verdict = given_up(tool, item.call.id, exc, tool_timeout_of(tool, self.tool_timeout), self.hooks.report)
        return verdict or ToolResult.failure("tool_failed", f"{type(exc).__name__}: {exc}")

    def _success(self, item: _Call, value: Any) -> ToolResult:
        if isinstance(value, Rendered):
            item.rendered = value.rendered
            return value.result
        return as_result(value)

    # -- phase 3 ---------------------------------------------------------------------

    async def _after_call(self, item: _Call, message: ToolResultMessage) -> None:
        """``agentkit_after_tool_call`` for a finished call, guarded; what goes wrong is reported."""
        try:
            await guarded_call(
                self.hooks.after_tool_call, item.call, message, self.session,
                # Once the run is stopped, the grace bounds the hook to what is left of the stop budget.
                timeout=self.hook_timeout, stop=self.stop, grace=STOP_BUDGET, name="agentkit_after_tool_call",
            )
        except (TimedOut, Abandoned):
            self.hooks.report(f"agentkit_after_tool_call did not return in time for call {item.call.id}; it was abandoned")
        except Exception as exc:
            self.hooks.report(f"agentkit_after_tool_call raised {type(exc).__name__}: {exc}")

    def _render(self, result: ToolResult) -> Rendering:
        """The envelope as JSON text, whether it is a success, and its images."""
        return render(result, self.admit_images)
