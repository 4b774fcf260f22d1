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

Session start and end hooks fire on every exit, once, and so does
``agent_end``. Whatever ends the run (an exception of any kind, an abort, a
cancellation, a deadline), every tool call in the history has exactly one
result when it returns, and the outcome says what happened.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
import threading
import uuid
import weakref
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

from agentkit.plugin_api import (
    AgentEnd,
    AgentStart,
    AssistantMessage,
    Event,
    ImageBlock,
    Message,
    MessageEnd,
    ModelInfo,
    Outcome,
    Project,
    SessionInfo,
    StopReason,
    TextBlock,
    Tool,
    ToolResultMessage,
    ToolSpec,
    TurnEnd,
    TurnStart,
    UserMessage,
)

from ._artifact_results import READ_ARTIFACT, ArtifactKeeper
from ._audit import RunAudit, check_sink, server_descriptions
from ._batch import ToolBatch
from ._budget import PromptEstimator
from ._budget_account import Budget, RunAccount
from ._compaction import Compactor, compact_now
from ._config import AgentConfig, OutputT, RunResult, check_config
from ._context_files import load_context_files, render_context_file
from ._ending import (
    POLICY_FAILED,
    SESSION_END_FLOOR,
    RunState,
    aborted_message,
    answer_pending,
)
from ._guard import STOP_BUDGET, Abandoned, RunStop, TimedOut, guarded_call, wait_out
from ._hooks import HookRunner, streamed_piece
from ._images import admit, admit_messages, has_images
from ._interrupt import run_interruptibly
from ._plugins import PluginHost
from ._queues import MessageQueues
from ._registry import RegistrationError, check_tool
from ._repair import TranscriptRepair
from ._request import build_request
from ._settings import ModelSettings, check_settings
from ._skill_wiring import check_skill_tools, skills_read, tools_to_add
from ._stop import StopContext, any_of, as_policy, max_turns
from ._structured import StructuredOutput
from ._subagents import RunScope, Subagent, enter_run
from ._system_prompt import assemble_system_prompt
from .errors import AgentBusy, ConfigError, NothingToContinue, SessionNotFound
from .runtime import Pricing, ProviderRuntime, http_timeouts
from .sessions._artifacts import ArtifactStore
from .sessions._interrupted import interrupted_results
from .sessions._recorder import RunLog
from .sessions._session import Session
from .skills import SkillSet, load_skills, read_tool, render_skills_block

Prompt = str | Message | Sequence[TextBlock | ImageBlock]

_log = logging.getLogger("agentkit.skills")

#: Loop turns the loop takes to close an async generator its consumer dropped.
_CLOSE_TURNS = 5


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

    With a ``session`` (:class:`~agentkit.host.sessions.Session`), the
    history starts as the session's current branch and every run is written
    to it as it happens (see ``docs/sessions.md``); ``session_id`` is the
    session's id.
    """

    def __init__(self, config: AgentConfig, host: PluginHost | None = None, *,
                 session: Session | None = None) -> None:
        check_config(config)
        if config.audit is not None:
            check_sink(config.audit)
        self.config = config
        self.root = Path(config.root).expanduser().resolve()
        #: The project at ``root``: trusted when ``trust_project`` asks and its folders are the user's own.
        self.project = Project.open(self.root, trust=config.trust_project)
        self.host = host if host is not None else PluginHost.discover(project=self.project)
        _check_host_trust(self.host, self.project)
        self.model: ModelInfo = self.host.resolve_model(config.model)
        # The catalog lists a model only while the plugin that lists it serves its wire too.
        self.provider = self.host.providers[self.model.api]
        self.tools = self._select_tools()
        #: The skills this agent has (plugins, the user's folder, the trusted project's),
        #: and in ``skills.problems`` what was refused or skipped, one line each.
        self.skills: SkillSet = load_skills(self.host, self.root, trust_project=self.project.trusted)
        check_skill_tools(self.skills, self.tools, self.host.tools, config.before_tool_call)
        #: The context files (``AGENTS.md`` and kin) the system prompt carries, in order.
        self.context_files = load_context_files(self.root, trust_project=self.project.trusted,
                                                problems=self.skills.problems)
        self._context_text = [render_context_file(item) for item in self.context_files]  # fixed for the session
        self._require_authorization()
        self._warn_about_skills()
        #: The session each run is written to, if any.
        self.session = session
        resume = session.resume() if session is not None else None
        self.history: list[Message] = resume.messages if resume is not None else []
        #: The skills activated in this session, in order (the audit of which instructions the model loaded).
        self.active_skills: list[str] = []
        self.session_id = session.id if session is not None else config.session_id or uuid.uuid4().hex
        #: Keeps the tool results too long to inline as the session's artifacts (see ``docs/artifacts.md``).
        self.artifacts = ArtifactKeeper(ArtifactStore(), self.session_id, config.max_tool_result_chars,
                                        self._enable_read_artifact, ephemeral=session is None)
        if session is None:  # no session to delete them with: they last as long as this agent's history
            weakref.finalize(self, self.artifacts.store.delete, self.session_id)
        elif _has_artifacts(self.artifacts.store, self.session_id):  # the resumed history names them
            self._enable_read_artifact()
        self.stats = AgentStats()
        self.runtime = ProviderRuntime(
            transport=config.transport, retry=config.retry, credential_store=config.credential_store,
            request_timeout=config.request_timeout, response_limits=config.response_limits,
            timeout=http_timeouts(connect=config.connect_timeout, read=config.read_timeout),
            pricing=Pricing(self.host.models),  # at the model that served: a fallback may be dearer or cheaper
        )
        self._tool_specs: dict[str, ToolSpec] = {}
        self._validators: dict[str, Any] = {}  # each tool's argument validator, compiled once for the session
        # Kept across turns so that each turn repairs and estimates only new messages.
        self.transcript_repair = TranscriptRepair(self.model, self.provider)
        self.prompt_estimator = PromptEstimator()
        #: What of the history each request carries (``AgentConfig.compaction``); the history itself stays whole.
        self.compactor = Compactor(config.compaction)
        if resume is not None and resume.first_kept is not None:  # a compaction is permanent once applied
            self.compactor.restore(self.history, resume.first_kept, resume.summary)
        self._policy = self._stop_policy()
        self._busy = threading.Lock()
        self._queues = MessageQueues()
        self._stop = RunStop()  # replaced by each run; aborting between runs changes nothing
        self._parent_stop: RunStop | None = None  # a subagent's: its runs stop with its parent's run
        # A tuple, replaced on (un)subscribe: every event iterates it without copying it.
        self._listeners: tuple[Callable[[Event], object], ...] = ()
        self._last_result: RunResult | None = None
        self._overrides: dict[str, Any] = {}  # the running run's model settings (Agent.run's settings)
        self.structured: StructuredOutput | None = None  # the running run's output_type, if it has one
        self._ended: asyncio.Future[None] | None = None  # done when the current run's stream let go

    def subscribe(self, listener: Callable[[Event], object]) -> Callable[[], None]:
        """Call ``listener(event)`` for every event of every run; returns an unsubscribe function.

        A listener that raises is reported in the run's ``problems`` and never
        stops the run. Listeners are plain functions called on the event loop's
        thread; to consume events asynchronously, iterate :meth:`stream`.

        :raises TypeError: ``listener`` is an ``async def`` function, whose
            coroutine nothing would await.
        """
        if inspect.iscoroutinefunction(listener) or inspect.iscoroutinefunction(type(listener).__call__):
            raise TypeError(
                f"{listener!r} is an async function, which subscribe would call without awaiting; "
                "subscribe a plain function, or iterate agent.stream(...) to consume events asynchronously"
            )
        self._listeners = (*self._listeners, listener)
        return functools.partial(self._unsubscribe, listener)

    def _unsubscribe(self, listener: Callable[[Event], object]) -> None:
        listeners = list(self._listeners)
        listeners.remove(listener)
        self._listeners = tuple(listeners)

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

    def activate_skill(self, name: str) -> None:
        """Load skill ``name``: add the tools it brings, and record it in :attr:`active_skills`.

        The model activates a skill by reading its instructions (with
        ``read_file``, or a shell command naming the file); an embedder may
        call this between runs or from a tool handler. Tools added after the
        session's first request are deferred (see :meth:`add_tools`), so the
        provider's cached prefix survives. Activating an active skill does nothing.
        """
        if name not in self.skills.entries:
            known = ", ".join(sorted(self.skills.entries)) or "none"
            raise ConfigError(f"no skill named {name!r} (known: {known}); see 'agentkit skills list'")
        if name in self.active_skills:
            return
        self.add_tools(*tools_to_add(self.skills.entries[name], self.tools, self.host.tools))
        self.active_skills.append(name)

    def _activate_read_skills(self, calls: Sequence[Any], results: Sequence[Any], state: RunState) -> None:
        """Activate the skills whose instructions a successful call of this batch read."""
        for name in skills_read(calls, results, self.skills, self.root):
            if name not in self.active_skills:
                self.activate_skill(name)
                state.skills.append(name)

    def _enable_read_artifact(self) -> None:
        """Give the model ``read_artifact`` once the session has an artifact (a deferred tool, see :meth:`add_tools`)."""
        if READ_ARTIFACT not in self.tools:  # a tool of the embedder's that took the name stays
            self.add_tools(self.artifacts.tool)

    def _warn_about_skills(self) -> None:
        if self.skills.invocable() and read_tool(self.tools) is None:
            self.skills.problems.append(
                "the agent has skills but no tool to read them with (read_file, or a shell tool); "
                "the skills are left out of the system prompt: enable read_file"
            )
        for problem in self.skills.problems:
            _log.warning("%s", problem)

    def skills_block(self) -> str | None:
        """The ``<available_skills>`` block the model is shown, or ``None`` (no skill, or nothing to read one with)."""
        shown = self.skills.invocable()
        if not shown:  # most agents: no tool to look for
            return None
        reader = read_tool(self.tools)
        return None if reader is None else render_skills_block(shown, reader)

    def _plugin_of_tool(self, name: str) -> str:
        """The plugin whose tool ``name`` the agent runs; ``embedder`` for a tool given in code."""
        plugin = self.host.plugin_of("tool", name)  # the host serves a tool only with the plugin that registered it
        if plugin is not None and self.host.tools[name] is self.tools.get(name):
            return plugin
        return "embedder"

    def _mcp_servers(self, hooks: HookRunner) -> list[dict[str, Any]]:
        """The MCP servers behind the agent's tools, as the plugins that reach them describe them."""
        return server_descriptions(hooks.mcp_servers(sorted(self.tools)), hooks.report)

    def tool_options(self) -> dict[str, dict[str, Any]]:
        """Per-tool options handed to handlers: the embedder's, plus the skill folders ``read_file`` may read."""
        options = {name: dict(values) for name, values in self.config.tool_options.items()}
        folders = sorted({str(entry.folder) for entry in self.skills.invocable()})
        if folders and "read_file" in self.tools:
            read = options.setdefault("read_file", {})
            read["readable_paths"] = [*read.get("readable_paths", ()), *folders]
        return options

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
        """The system prompt every request carries; its order is documented in :mod:`._system_prompt`.

        A tool added after the first request is deferred and its guidelines are
        not added: the system prompt stays the cached prefix it was.
        """
        guidelines = [tool.prompt_guidelines for name, tool in self.tools.items()
                      if tool.prompt_guidelines and not self._is_deferred(name)]
        return assemble_system_prompt(self.config.system_prompt, self._context_text, self.skills_block(), guidelines)

    def _is_deferred(self, name: str) -> bool:
        if self.stats.requests == 0:
            return False
        spec = self._tool_specs.get(name)
        return spec is None or spec.deferred

    def as_tool(self, name: str, description: str, *, budget: Budget | None = None) -> Tool:
        """This agent's definition as a tool another agent delegates to (a :class:`~agentkit.host.Subagent`).

        Each call runs a new agent built from this one's configuration and
        plugin host, with a fresh history, on ``budget`` (turns, tokens, cost)
        taken from what the calling run has left. This agent's own history and
        session are not used. See ``docs/sessions.md``.
        """
        return Subagent(name, description, self.config, budget, host=self.host).as_tool()

    # -- control ---------------------------------------------------------------------

    def abort(self) -> None:
        """End the current run as ``aborted``; safe from any thread or task.

        An in-flight response is cut and recorded with what had arrived; a
        batch whose handlers had not started runs none of them, and running
        handlers see ``context.cancel`` set. The run ends within a second
        whatever handlers and hooks do: one still running then is abandoned
        (its call answered ``aborted``) and reported in the run's ``problems``.
        """
        self._stop.request(Outcome.ABORTED, "aborted by the caller")

    def steer(self, message: Prompt) -> None:
        """Queue a message that changes the course of the run; safe from any thread or task.

        It is added at the head of the next turn, just before its request (never
        between a response and its tool results), and keeps the run going if
        the model has just answered. Queued between runs, the next run takes it.
        See :mod:`agentkit.host._queues` and ``docs/embedding.md``.
        """
        self._queues.steering.extend(self._admitted(_as_messages(message)))

    def follow_up(self, message: Prompt) -> None:
        """Queue a message for when the run would end: it is added then, and the run goes on (the same run)."""
        self._queues.follow_ups.extend(self._admitted(_as_messages(message)))

    @property
    def has_queued_messages(self) -> bool:
        """Whether a steering message or a follow-up waits."""
        return bool(self._queues)

    def clear_queues(self) -> list[Message]:
        """Drop every queued message (steering and follow-ups); returns them, steering first."""
        return self._queues.clear()

    async def compact(self) -> str | None:
        """Cut the history now, whatever ``AgentConfig.compaction`` says: the last turn is kept, and
        what precedes it is summarized by the agent's model, as ``Compaction.summarize`` does when the
        window fills.

        Later requests start from the summary; the history itself stays whole. With a session, the
        cut is recorded there as any compaction is (a ``compaction`` entry), so a resumed agent starts
        from it too.

        :returns: the summary; ``""`` when the summary failed (an error, an empty answer) and the cut
            only dropped turns; ``None`` when there is nothing before the last prompt to cut.
        :raises AgentBusy: a run is in progress.
        """
        if not self._busy.acquire(blocking=False):
            raise AgentBusy("this agent is running; compact it once the run has ended")
        try:
            return await compact_now(self)
        finally:
            self._busy.release()

    @property
    def last_result(self) -> RunResult[Any] | None:
        """The result of the last run that ended, also when its caller was cancelled.

        Typed ``RunResult[Any]``: the last run may have had any ``output_type``.
        """
        return self._last_result

    # -- running ---------------------------------------------------------------------

    # The overloads give a run's result the type of its output: a class is the type of ``output``; a
    # JSON Schema (a dict), or an output type known only at run time, could hold anything.
    @overload
    async def run(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                  output_type: None = None) -> RunResult[None]: ...
    @overload
    async def run(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                  output_type: type[OutputT]) -> RunResult[OutputT]: ...
    @overload
    async def run(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                  output_type: Mapping[str, Any]) -> RunResult[Any]: ...
    @overload
    async def run(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                  output_type: type[Any] | Mapping[str, Any] | None = None) -> RunResult[Any]: ...
    async def run(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                  output_type: type[Any] | Mapping[str, Any] | None = None) -> RunResult[Any]:
        """Run until the model answers without tool calls, a stop policy fires, or the run fails.

        ``settings`` overrides the config's model settings for this run only.
        ``output_type`` (a JSON Schema dict, a dataclass, a ``TypedDict`` or a
        pydantic model) makes the run end with a validated value of that type
        in ``RunResult.output`` (see :mod:`._structured`).

        Failures inside the run end it with a result (``error``, ``aborted``,
        ``timeout``...), never an exception. Cancelling the task that awaits
        it stops the run, answers every pending tool call, records the outcome
        ``cancelled`` (see :attr:`last_result`) and re-raises ``CancelledError``.
        """
        overrides = check_settings(settings)
        structured = self._structured(output_type, overrides)
        new = await self._admitted_async(_as_messages(prompt))
        async with self._claim(overrides, structured) as stop:
            # No consumer of events: the run's own task, awaited directly, with no queue between.
            task = asyncio.ensure_future(self._run(new, _discard, stop))
            if await wait_out(task, lambda: stop.request(Outcome.CANCELLED, "the task awaiting the run was cancelled",
                                                         on_loop=True)):
                raise asyncio.CancelledError
        result = self._last_result
        if result is None:  # _run always records one; this would be a host defect
            raise RuntimeError("the run ended without a result")
        return result

    @overload
    def run_sync(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                 output_type: None = None) -> RunResult[None]: ...
    @overload
    def run_sync(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                 output_type: type[OutputT]) -> RunResult[OutputT]: ...
    @overload
    def run_sync(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                 output_type: Mapping[str, Any]) -> RunResult[Any]: ...
    @overload
    def run_sync(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                 output_type: type[Any] | Mapping[str, Any] | None = None) -> RunResult[Any]: ...
    def run_sync(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                 output_type: type[Any] | Mapping[str, Any] | None = None) -> RunResult[Any]:
        """``run`` for code that is not async.

        Ctrl-C aborts the run (a second press too): it ends within a second
        with a well-formed history and outcome ``aborted``, then
        ``KeyboardInterrupt`` is raised. A third press raises at once.
        """
        result, interrupted = run_interruptibly(self.run(prompt, settings=settings, output_type=output_type),
                                                self.abort)
        if interrupted:
            raise KeyboardInterrupt
        return result

    async def continue_(self) -> RunResult[None]:
        """Run again without a new user message, from where the history ends.

        A history ending with the user's message or tool results (a run cut
        short, a resumed session), or with an answer that failed or was
        aborted, is asked again; one ending with a complete answer goes on
        with the next queued message (steering, else follow-up).

        :raises NothingToContinue: the history is empty, or ends with a
            complete answer and nothing is queued; call ``run(prompt)``.
        :raises AgentBusy: a run is in progress.
        """
        if self._busy.locked():
            raise AgentBusy("this agent is already running; wait for the run to end or call abort()")
        if not self.history:
            raise NothingToContinue("the history is empty: there is nothing to continue; call run(prompt)")
        last = self.history[-1]
        if not isinstance(last, AssistantMessage) or last.stop_reason in (StopReason.ERROR, StopReason.ABORTED):
            return await self.run(None)
        queued, queue = self._queues.take_steering(), self._queues.steering
        if queued is None:
            queued, queue = self._queues.take_follow_up(), self._queues.follow_ups
        if queued is None:
            raise NothingToContinue("the history ends with a complete answer and no message is queued; "
                                    "call run(prompt), or queue one with steer() or follow_up()")
        try:
            return await self.run(queued)
        except AgentBusy:  # another caller started a run meanwhile: the message stays queued
            queue.appendleft(queued)
            raise

    def continue_sync(self) -> RunResult[None]:
        """``continue_`` for code that is not async; Ctrl-C as in :meth:`run_sync`."""
        result, interrupted = run_interruptibly(self.continue_(), self.abort)
        if interrupted:
            raise KeyboardInterrupt
        return result

    async def stream(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                     output_type: type[Any] | Mapping[str, Any] | None = None) -> AsyncIterator[Event]:
        """Run and yield every event as it happens; the last one is ``agent_end``.

        A consumer that stops reading (``break``, ``aclose()``) ends the run as
        ``aborted``; a run started right after waits for that end. ``settings``
        overrides the config's model settings for this run only.

        :raises ConfigError: ``settings`` names something that is no model setting, or
            ``output_type`` is no type a run can end with.
        """
        overrides = check_settings(settings)
        structured = self._structured(output_type, overrides)
        new = await self._admitted_async(_as_messages(prompt))
        async with self._claim(overrides, structured) as stop:
            queue: asyncio.Queue[Event | None] = asyncio.Queue()
            task = asyncio.ensure_future(self._run(new, queue.put_nowait, stop))
            try:
                while (event := await queue.get()) is not None:
                    yield event
            except asyncio.CancelledError:  # the reason only: the request below sets the stop's event at once
                stop.request(Outcome.CANCELLED, "the task awaiting the run was cancelled")
                raise
            finally:
                if not task.done():  # the consumer stopped listening: stop the run too
                    stop.request(Outcome.ABORTED, "the consumer stopped reading the run's events", on_loop=True)
                # The run finishes its bookkeeping (every call answered, agent_end)
                # whatever further cancellations arrive; it ends within the stop budget.
                # A cancellation of the consumer itself is already on its way out of this block.
                if await wait_out(task):
                    raise asyncio.CancelledError

    def _admitted(self, messages: list[Message]) -> list[Message]:
        """The embedder's messages with their images normalized for the model (see :mod:`._images`).

        :raises ImageError: the model takes no images, or one cannot be read or fetched.
        """
        if not has_images(messages):
            return messages
        return admit_messages(messages, self.model, root=self.root, fetcher=self.config.image_fetcher)

    def _admit_tool_images(self, images: list[ImageBlock]) -> list[TextBlock | ImageBlock]:
        """A tool result's images normalized for the model; a path must stay in the workspace."""
        return admit(images, self.model, root=self.root, fetcher=self.config.image_fetcher, from_tool=True)

    async def _admitted_async(self, messages: list[Message]) -> list[Message]:
        """:meth:`_admitted` off the event loop when there is an image to decode or fetch."""
        return await asyncio.to_thread(self._admitted, messages) if has_images(messages) else messages

    def _structured(self, output_type: Any, overrides: dict[str, Any]) -> StructuredOutput | None:
        """The run's structured output, checked against its settings and tools before the run starts."""
        if output_type is None:
            return None
        structured = StructuredOutput(output_type)
        structured.check_settings({"tool_choice": self.config.tool_choice, **overrides}, set(self.tools), self.model)
        return structured

    @contextlib.asynccontextmanager
    async def _claim(self, overrides: dict[str, Any],
                     structured: StructuredOutput | None) -> AsyncIterator[RunStop]:
        """Take the agent for one run, with the run's stop, settings and output; released when the run has ended."""
        if not self._busy.acquire(blocking=False) and not await self._previous_run_stopped():
            raise AgentBusy("this agent is already running; wait for the run to end or call abort()")
        ended = self._ended = asyncio.get_running_loop().create_future()
        unlink = None
        try:
            stop = RunStop()
            stop.bind(asyncio.get_running_loop())
            self._stop = stop
            if self._parent_stop is not None:
                unlink = self._parent_stop.link(lambda: stop.request(Outcome.ABORTED, "the parent's run was stopped"))
            self._overrides = overrides
            self.structured = structured
            yield stop
        finally:
            if unlink is not None:
                unlink()
            self._busy.release()
            ended.set_result(None)

    async def _previous_run_stopped(self) -> bool:
        """Wait for the running run to end if it was stopped, and take the agent; ``False`` if it goes on.

        A consumer's bare ``break`` leaves its stream to be closed by the loop a
        few turns later, and that close stops the run: those turns are given
        first. A run still going then is another caller's, and is left alone.
        """
        for _ in range(_CLOSE_TURNS):
            if self._stop.requested:
                break
            await asyncio.sleep(0)
        ended = self._ended
        if not self._stop.requested or ended is None or ended.get_loop() is not asyncio.get_running_loop():
            return False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(ended), STOP_BUDGET + SESSION_END_FLOOR + 1.0)
        return self._busy.acquire(blocking=False)

    async def _run(self, new: list[Message], put: Any, stop: RunStop) -> None:
        hooks = HookRunner(self.host.hook_callers)
        session = SessionInfo(self.session_id, self.model.key, self.root)
        state = RunState()
        batch: ToolBatch | None = None
        log: RunLog | None = None
        audit = RunAudit(self.config.audit, self.session_id, uuid.uuid4().hex, self.model.key, hooks.report)
        cancelled = failed = False
        timer = None
        loop = asyncio.get_running_loop()
        account = RunAccount(state, self.config.budget)
        scope: RunScope | None = None

        observers: list[tuple[str, Callable[[Event], object]]] = []  # plugins that asked to see this run

        streamed = put is not _discard  # a run nobody streams skips the call per event

        def emit(event: Event) -> None:
            if streamed:
                put(event)
            for listener in self._listeners:
                try:
                    listener(event)
                except BaseException as exc:  # embedder code never takes the run down
                    hooks.report(f"event listener {listener!r} raised {type(exc).__name__}: {exc}")
            if observers and not streamed_piece(event):
                hooks.observe(observers, event)

        def append(message: Message) -> None:
            self.history.append(message)
            state.added.append(message)
            if log is not None:
                log.record(message)
            audit.observe(message, batch.decisions if batch is not None else {})

        try:
            if self.config.run_timeout is not None:
                timer = loop.call_later(
                    self.config.run_timeout, stop.request, Outcome.TIMEOUT,
                    f"the run took longer than run_timeout={self.config.run_timeout}s",
                )
            log = RunLog.start(self.session, self.model.key, self.config.reasoning, stop)
            scope = RunScope(self, account, stop, emit, log)
            enter_run(scope)  # set in the run's own task: its tool calls see it, its caller does not
            if self.config.audit is not None:  # the trail is kept in the session too once it is asked for
                audit.log = log
            audit.start(self.skills.entries, self._mcp_servers(hooks) if audit.kept else ())
            await self._hook(hooks, stop, "agentkit_session_start", session=session)
            observers.extend(hooks.run_observers(session))
            if log is not None:  # a killed process may have left calls unanswered: answer them first, in the log
                for answer in interrupted_results(self.history):
                    append(answer)
            for message in new:
                append(message)
            emit(AgentStart(list(new)))
            batch = ToolBatch(
                tools=self.tools,
                hooks=hooks,
                session=session,
                before_tool_call=self.config.before_tool_call,
                tool_options=self.tool_options(),
                cancel=stop.cancel,
                emit=emit,
                stop=stop,
                tool_timeout=self.config.tool_timeout,
                hook_timeout=self.config.hook_timeout,
                max_result_chars=self.config.max_tool_result_chars,
                hook_callers=self.host.hook_callers,
                validators=self._validators,
                admit_images=self._admit_tool_images,
                add_tools=self.add_tools,
                artifacts=self.artifacts,
                audit_for=lambda name, call_id: audit.for_call(self._plugin_of_tool(name), name, call_id),
            )
            async with self.runtime.session():  # one HTTP client, its connections reused, for the run's requests
                await self._turns(state, batch, hooks, stop, emit, append, log, account)
        except asyncio.CancelledError:
            cancelled = True
            state.outcome, state.error = Outcome.CANCELLED, "the run's task was cancelled"
        except BaseException as exc:  # a defect in the host, a provider or a plugin: end as an error
            state.outcome, state.error = Outcome.ERROR, f"{type(exc).__name__}: {exc}"
            failed = True
        finally:
            if timer is not None:
                timer.cancel()
            # Every call gets its one result first, before anything else can fail or be cancelled.
            try:
                answer_pending(state, batch, append, emit)
            except Exception as exc:  # never seen; the end of the run must still be reported
                hooks.report(f"answering the pending tool calls failed: {type(exc).__name__}: {exc}")
            # A delegation the batch gave up on is still winding down: its child ends before this run does.
            if scope is not None and scope.children and await wait_out(
                    asyncio.ensure_future(scope.end_children()),
                    lambda: stop.request(Outcome.CANCELLED, "the run's task was cancelled", on_loop=True)):
                cancelled = True
            if failed:
                append(AssistantMessage([], StopReason.ERROR, provider=self.model.vendor, api=self.model.api,
                                        model=self.model.id, error_message=state.error))
            if log is not None:
                log.end(state)
            if audit.started:
                audit.end(state.outcome.value, state.error, state.skills)
            # Its own task, waited for through further cancellations: the hook is
            # bounded by its deadline and the stop budget, and reports the end
            # before agent_end does, never after the run has returned.
            ending = asyncio.ensure_future(self._hook(
                hooks, stop, "agentkit_session_end", abandon_on_stop=False, session=session,
                outcome=state.outcome, error=state.error,
            ))
            if await wait_out(ending, lambda: stop.request(Outcome.CANCELLED, "the run's task was cancelled",
                                                           on_loop=True)):
                cancelled = True
            self._last_result = RunResult(state.outcome, state.added, state.usage, state.turn, state.error,
                                          list(hooks.problems),  # a copy: abandoned threads may still report
                                          skills=list(state.skills), stopped_by=state.stopped_by,
                                          output=state.output)
            if scope is not None:
                scope.ended = True
            emit(AgentEnd(state.outcome, list(state.added), state.error))
            put(None)
        if cancelled:
            raise asyncio.CancelledError

    async def _turns(self, state: RunState, batch: ToolBatch, hooks: HookRunner, stop: RunStop,
                     emit: Any, append: Any, log: RunLog | None, account: RunAccount) -> None:
        """The turns of one run; the outcome is left in ``state``."""
        while True:
            steering = None if stop.requested else self._queues.take_steering()
            if steering is not None:  # at the head of a turn: after the results, before the request
                append(steering)
            if log is not None:
                log.before_request()
            if stop.requested:
                self._end_stopped(state, stop, append)
                return
            state.turn += 1
            emit(TurnStart(state.turn))
            message = await self._request(emit, stop, log, state)
            append(message)
            state.usage = state.usage + message.usage
            if message.stop_reason in (StopReason.ERROR, StopReason.ABORTED):
                emit(TurnEnd(state.turn, message, []))
                state.outcome = Outcome.ERROR if message.stop_reason is StopReason.ERROR else Outcome.ABORTED
                state.error = message.error_message
                if message.stop_reason is StopReason.ABORTED and stop.reason is not None:
                    state.outcome, state.error = stop.reason, stop.detail
                return
            settled = self.structured.settle(message, batch) if self.structured is not None else None
            if settled is not None:  # a structured run's final answer, or output to retry
                for result in settled.results:
                    append(result)
                emit(TurnEnd(state.turn, message, settled.results))
                if settled.retry is not None:
                    append(settled.retry)
                if settled.ends(state):
                    return
                continue
            calls = message.tool_calls
            if not calls:
                emit(TurnEnd(state.turn, message, []))
                if stop.requested:
                    return
                if self._queues.steering:
                    continue  # pending steering keeps the run going
                follow_up = self._queues.take_follow_up()
                if follow_up is None:
                    return
                append(follow_up)
                continue
            if message.stop_reason is StopReason.LENGTH:
                results, terminate = batch.not_executed(calls), False
            else:
                results, terminate = await batch.run(calls)
            for result in results:
                append(result)
            self._activate_read_skills(calls, results, state)
            emit(TurnEnd(state.turn, message, results))
            if stop.requested:
                self._end_stopped(state, stop, append)
                return
            if terminate:
                state.outcome = Outcome.TERMINATED
                return
            if self._policy is not None:
                context = StopContext(state.turn, message, results, self.history, state.added, state.usage)
                fired = await self._check_policy(context, hooks, stop)
                if fired is POLICY_FAILED:
                    state.outcome, state.error = Outcome.ERROR, hooks.problems[-1]
                    return
                if fired is not None:
                    state.outcome, state.stopped_by = fired.outcome, fired.name
                    return
            if self.config.budget is not None and account.exhausted():
                state.outcome, state.stopped_by = Outcome.STOP_POLICY, "budget"
                return

    def _end_stopped(self, state: RunState, stop: RunStop, append: Any) -> None:
        reason = stop.reason or Outcome.ABORTED
        message = aborted_message(self.model)
        if stop.detail:
            message.error_message = stop.detail
        append(message)
        state.outcome = reason
        state.error = stop.detail if reason is not Outcome.ABORTED else None

    async def _check_policy(self, context: StopContext, hooks: HookRunner, stop: RunStop) -> Any:
        """The policy that fired, ``None``, or ``POLICY_FAILED`` (reported) when it raised or hung."""
        try:
            return await guarded_call(self._policy.fired, context, timeout=self.config.hook_timeout,
                                      stop=stop, name="stop_policy")
        except Abandoned:
            return None  # the stop itself ends the run on the next turn
        except TimedOut:
            hooks.report(f"the stop policy did not answer within hook_timeout={self.config.hook_timeout}s")
        except Exception as exc:
            hooks.report(f"the stop policy raised {type(exc).__name__}: {exc}")
        return POLICY_FAILED

    async def _hook(self, hooks: HookRunner, stop: RunStop, hook: str, *, abandon_on_stop: bool = True,
                    **kwargs: Any) -> None:
        """An observing hook, off the loop, within ``hook_timeout``; once the run was stopped, within its budget."""
        if not self.host.hook_callers(hook):
            return
        timeout = self.config.hook_timeout
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

    async def _request(self, emit: Any, stop: RunStop, log: RunLog | None, state: RunState) -> AssistantMessage:
        # The wire gets a compacted, repaired view of the history (failed turns
        # and their results left out, foreign thinking and ids adapted, every
        # call answered) and limits that fit the model; the history stays as it happened.
        view, checkpoint = await self.compactor.view(self, stop.event)
        if checkpoint is not None:
            state.usage = state.usage + checkpoint.usage  # a summary is the run's spending too
            if log is not None:
                log.compacted(checkpoint.first_kept, checkpoint.summary)
        request = build_request(self, view, overrides=self._overrides, first=state.turn == 1)
        self.stats.requests += 1
        message: AssistantMessage | None = None
        structured = self.structured
        async for events in self.runtime.stream_batches(self.provider, request, abort=stop.event):
            if structured is None:  # asked once per list, not per event
                for event in events:
                    emit(event)
            else:
                for event in events:
                    emit(event)
                    partial = structured.partial(event)
                    if partial is not None:
                        emit(partial)
            # The runtime's lists are never empty, and its one MessageEnd is the last event of the last.
            last = events[-1]
            if isinstance(last, MessageEnd):
                message = last.message
        if message is None:
            raise RuntimeError(f"provider {self.model.api!r} ended a response without message_end")
        return message


def _has_artifacts(store: ArtifactStore, owner: str) -> bool:
    try:
        return bool(store.list(owner))
    except (OSError, SessionNotFound):  # an unreadable data directory, an id that names no folder
        return False


def _discard(event: Event | None) -> None:
    """Where a run's events go when nobody streams them (listeners still get each one)."""


def _as_messages(prompt: Prompt | None) -> list[Message]:
    if prompt is None:
        return []
    if isinstance(prompt, str):
        return [UserMessage.text(prompt)]
    if isinstance(prompt, UserMessage | AssistantMessage | ToolResultMessage):
        return [prompt]
    return [UserMessage(list(prompt))]


def _check_host_trust(host: PluginHost, project: Project) -> None:
    """Refuse a host whose tools were registered for a project this agent does not trust.

    Tool plugins built their tools for ``host.project`` (the MCP client, from a
    trusted project's ``agentkit.toml``); an agent that does not trust that
    project must not be handed them.
    """
    if host.project.trusted and (not project.trusted or host.project.root != project.root):
        raise ConfigError(
            f"the PluginHost trusts the project {host.project.root}, but this agent does not trust it "
            f"(root {project.root}, trust_project={project.trusted}): build the host for the agent's project, "
            "PluginHost.discover(project=Project.open(root, trust=...))"
        )
