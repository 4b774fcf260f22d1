"""The agent and its loop.

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

Session start and end hooks fire on every exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentkit.plugin_api import (
    AgentEnd,
    AgentStart,
    AssistantMessage,
    CancelToken,
    Event,
    ImageBlock,
    Message,
    MessageEnd,
    ModelInfo,
    SessionInfo,
    StopReason,
    TextBlock,
    Tool,
    ToolSpec,
    TurnEnd,
    TurnStart,
    Usage,
    UserMessage,
)

from ._batch import ToolBatch
from ._catalog import PromptEstimator, with_served_cost
from ._config import AgentConfig, RunResult
from ._hooks import HookRunner
from ._plugins import PluginHost
from ._registry import RegistrationError, check_tool
from ._repair import TranscriptRepair
from ._request import build_request
from ._stop import StopContext, any_of, as_policy, max_turns
from .errors import AgentBusy, ConfigError
from .runtime import ProviderRuntime, http_timeouts

Prompt = str | Message | Sequence[TextBlock | ImageBlock]


@dataclass
class AgentStats:
    """Counters that cannot flake, for tests and benchmarks."""

    requests: int = 0
    tool_specs_built: int = 0


class Agent:
    """An agent: a model, tools from plugins, and a history that grows with each run.

    ``run`` and ``stream`` are async; ``run_sync`` wraps ``run`` for scripts.
    ``abort`` may be called from any task or thread.

    ``history`` is a plain list of canonical messages. To continue a session
    with another model, give a new agent the old one's history
    (``new.history = old.history``): each request sends a repaired view of it
    that the new model's wire accepts (failed turns left out, foreign
    thinking and tool-call ids adapted, every call answered), and the history
    itself is never changed.
    """

    def __init__(self, config: AgentConfig, host: PluginHost | None = None) -> None:
        self.config = config
        self.host = host if host is not None else PluginHost.discover()
        self.model: ModelInfo = self.host.resolve_model(config.model)
        provider = self.host.providers.get(self.model.api)
        if provider is None:
            raise ConfigError(f"no installed provider implements wire {self.model.api!r} for {config.model}")
        self.provider = provider
        self.root = Path(config.root).expanduser().resolve()
        self.tools = self._select_tools()
        self._require_authorization()
        self.history: list[Message] = []
        self.session_id = config.session_id or uuid.uuid4().hex
        self.stats = AgentStats()
        self.runtime = ProviderRuntime(
            transport=config.transport, retry=config.retry, credential_store=config.credential_store,
            request_timeout=config.request_timeout, response_limits=config.response_limits,
            timeout=http_timeouts(connect=config.connect_timeout, read=config.read_timeout),
        )
        self._tool_specs: dict[str, ToolSpec] = {}
        # Kept across turns so that each turn repairs and estimates only new messages.
        self.transcript_repair = TranscriptRepair(self.model, self.provider)
        self.prompt_estimator = PromptEstimator()
        self._policy = self._stop_policy()
        self._busy = threading.Lock()
        self._abort_lock = threading.Lock()
        self._abort_event: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._cancel = CancelToken()
        self._listeners: list[Any] = []
        self._last_result: RunResult | None = None

    def subscribe(self, listener: Any) -> Any:
        """Call ``listener(event)`` for every event of every run; returns an unsubscribe function.

        A listener that raises is reported in the run's ``problems`` and never
        stops the run.
        """
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    # -- set-up ----------------------------------------------------------------------

    def _select_tools(self) -> dict[str, Tool]:
        available: dict[str, Tool] = dict(self.host.tools)
        for tool in self.config.extra_tools:
            if tool.name in available:
                raise ConfigError(f"extra tool {tool.name!r} has the name of an installed tool; rename it")
            available[tool.name] = tool
        if self.config.tools is None:
            extra = {tool.name for tool in self.config.extra_tools}
            return {name: tool for name, tool in available.items() if tool.default_enabled or name in extra}
        unknown = [name for name in self.config.tools if name not in available]
        if unknown:
            raise ConfigError(
                f"unknown tool(s) {', '.join(unknown)} in AgentConfig.tools; installed: {', '.join(sorted(available)) or 'none'}"
            )
        return {name: available[name] for name in self.config.tools}

    def _require_authorization(self) -> None:
        needing = sorted(name for name, tool in self.tools.items() if tool.requires_authorization)
        if needing and self.config.before_tool_call is None:
            raise ConfigError(
                f"tool(s) {', '.join(needing)} run arbitrary commands, and AgentConfig.before_tool_call is not set. "
                "Set before_tool_call=agentkit.host.allow_all to allow every call on purpose, or a restrictive "
                "policy (the shell plugin ships one), or leave these tools out with AgentConfig.tools"
            )

    def _stop_policy(self) -> Any:
        policies = []
        if self.config.max_turns is not None:
            policies.append(max_turns(self.config.max_turns))
        if self.config.stop_policy is not None:
            policies.append(as_policy(self.config.stop_policy))
        return any_of(*policies) if policies else None

    def tool_specs(self) -> list[ToolSpec]:
        """The wire projection of the enabled tools, built once per tool.

        The same objects are sent on every request, so a steady-state request
        builds no schema again. A tool added after the first request is
        deferred: it is listed after the tools already declared and stays
        deferred, so the provider's cached prefix survives it.
        """
        for name, tool in self.tools.items():
            if name not in self._tool_specs:
                deferred = self.stats.requests > 0
                self._tool_specs[name] = ToolSpec(tool.name, tool.description, tool.input_schema, deferred)
                self.stats.tool_specs_built += 1
        return [spec for name, spec in self._tool_specs.items() if name in self.tools]

    def add_tools(self, *tools: Tool) -> None:
        """Enable more tools, between runs or from a tool handler during one.

        Added after the session's first request, they are declared after the
        tools already sent (see :meth:`tool_specs`).
        """
        for tool in tools:
            known = self.tools.get(tool.name)
            if known is not None and known is not tool:
                raise ConfigError(f"a different tool named {tool.name!r} is already enabled; rename one")
            try:
                check_tool(tool)
            except RegistrationError as exc:
                raise ConfigError(str(exc)) from exc
        for tool in tools:
            self.tools[tool.name] = tool
        self._require_authorization()

    def system_prompt(self) -> str | None:
        parts = [self.config.system_prompt] if self.config.system_prompt else []
        parts += [tool.prompt_guidelines for tool in self.tools.values() if tool.prompt_guidelines]
        return "\n\n".join(parts) or None

    # -- control ---------------------------------------------------------------------

    def abort(self) -> None:
        """End the current run as ``aborted``; safe from any thread or task.

        An in-flight response is cut and recorded with what had arrived; a
        batch whose handlers had not started runs none of them, and running
        handlers see ``context.cancel`` set.
        """
        with self._abort_lock:
            self._cancel.cancel()
            loop, event = self._loop, self._abort_event
        if loop is not None and event is not None:
            with contextlib.suppress(RuntimeError):  # the loop already closed: the run is over
                loop.call_soon_threadsafe(event.set)

    # -- running ---------------------------------------------------------------------

    async def run(self, prompt: Prompt | None = None) -> RunResult:
        """Run until the model answers without tool calls, a stop policy fires, or the run fails."""
        result = None
        async for event in self.stream(prompt):
            if isinstance(event, AgentEnd):
                result = self._last_result
        assert result is not None
        return result

    def run_sync(self, prompt: Prompt | None = None) -> RunResult:
        """``run`` for code that is not async."""
        return asyncio.run(self.run(prompt))

    async def stream(self, prompt: Prompt | None = None) -> AsyncIterator[Event]:
        """Run and yield every event as it happens; the last one is ``agent_end``."""
        if not self._busy.acquire(blocking=False):
            raise AgentBusy("this agent is already running; wait for the run to end or call abort()")
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        try:
            with self._abort_lock:
                self._loop = asyncio.get_running_loop()
                self._abort_event = asyncio.Event()
                self._cancel = CancelToken()
            task = asyncio.ensure_future(self._run(_as_messages(prompt), queue.put_nowait))
            try:
                while True:
                    event = await queue.get()
                    if event is None:
                        break
                    yield event
            finally:
                if not task.done():  # the consumer stopped listening: stop the run too
                    self.abort()
                await task
        finally:
            with self._abort_lock:
                self._loop = None
                self._abort_event = None
            self._busy.release()

    async def _run(self, new: list[Message], put: Any) -> None:
        hooks = HookRunner(self.host.hook_callers)
        session = SessionInfo(self.session_id, self.model.key, self.root)
        added: list[Message] = []
        usage = Usage()
        turn = 0
        stop_reason, error = "completed", None
        batch: ToolBatch | None = None

        def emit(event: Event) -> None:
            put(event)
            for listener in list(self._listeners):
                try:
                    listener(event)
                except Exception as exc:
                    hooks.report(f"event listener {listener!r} raised {type(exc).__name__}: {exc}")

        def append(message: Message) -> None:
            self.history.append(message)
            added.append(message)

        try:
            hooks.notify("agentkit_session_start", session=session)
            for message in new:
                append(message)
            emit(AgentStart(list(new)))
            batch = ToolBatch(
                tools=self.tools,
                hooks=hooks,
                session=session,
                before_tool_call=self.config.before_tool_call,
                tool_options=dict(self.config.tool_options),
                cancel=self._cancel,
                emit=emit,
            )
            while True:
                if self._cancel.cancelled:
                    append(_aborted_message(self.model))
                    stop_reason = "aborted"
                    break
                turn += 1
                emit(TurnStart(turn))
                message = await self._request(emit)
                append(message)
                usage = usage + message.usage
                if message.stop_reason in (StopReason.ERROR, StopReason.ABORTED):
                    emit(TurnEnd(turn, message, []))
                    stop_reason = message.stop_reason.value
                    error = message.error_message
                    break
                calls = message.tool_calls
                if not calls:
                    emit(TurnEnd(turn, message, []))
                    break
                if message.stop_reason is StopReason.LENGTH:
                    results, terminate = batch.not_executed(calls), False
                else:
                    results, terminate = await batch.run(calls)
                for result in results:
                    append(result)
                emit(TurnEnd(turn, message, results))
                if self._cancel.cancelled:
                    append(_aborted_message(self.model))
                    stop_reason = "aborted"
                    break
                if terminate:
                    stop_reason = "terminated"
                    break
                if self._policy is not None:
                    context = StopContext(turn, message, results, self.history, added, usage)
                    fired = self._policy.check(context)
                    if fired:
                        stop_reason = fired
                        break
        except Exception as exc:  # a defect in the host or a provider codec: end as an error
            stop_reason, error = "error", f"{type(exc).__name__}: {exc}"
            append(AssistantMessage([], StopReason.ERROR, provider=self.model.vendor, api=self.model.api,
                                    model=self.model.id, error_message=error))
        finally:
            if batch is not None:
                batch.close()
            hooks.notify("agentkit_session_end", session=session, outcome=stop_reason, error=error)
            self._last_result = RunResult(stop_reason, added, usage, turn, error, hooks.problems)
            put(AgentEnd(stop_reason, list(added), error))
            put(None)

    async def _request(self, emit: Any) -> AssistantMessage:
        # The wire gets a repaired view of the history (failed turns and their
        # results left out, foreign thinking and ids adapted, every call
        # answered) and limits that fit the model; the history stays as it happened.
        request = build_request(self, self.history)
        self.stats.requests += 1
        message: AssistantMessage | None = None
        async for event in self.runtime.stream(self.provider, request, abort=self._abort_event):
            if isinstance(event, MessageEnd):
                # Priced at the model that answered (a fallback may be dearer or cheaper).
                event = MessageEnd(with_served_cost(event.message, self.model, self.host.models))
                message = event.message
            emit(event)
        if message is None:
            raise RuntimeError(f"provider {self.model.api!r} ended a response without message_end")
        return message


def _aborted_message(model: ModelInfo) -> AssistantMessage:
    return AssistantMessage(
        [], StopReason.ABORTED, provider=model.vendor, api=model.api, model=model.id,
        error_message="aborted by the caller",
    )


def _as_messages(prompt: Prompt | None) -> list[Message]:
    if prompt is None:
        return []
    if isinstance(prompt, str):
        return [UserMessage.text(prompt)]
    if isinstance(prompt, (UserMessage, AssistantMessage)) or hasattr(prompt, "role"):
        return [prompt]  # type: ignore[list-item]
    return [UserMessage(list(prompt))]  # type: ignore[arg-type]
