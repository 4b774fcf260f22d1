"""The agent: what a user configures and calls.

An :class:`Agent` is made from an :class:`~agentkit.host.AgentConfig` and a
plugin host; it owns what lasts across runs: its history, session, toolset
(:mod:`._toolset`), compaction state, queues, subscribers and runtime. Each
``run`` or ``stream`` makes one :class:`~._run.Run` (:mod:`._run`) lending the
run those parts, and hands it to the loop (:mod:`._loop`), which never sees
the agent itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, overload

from agentkit.plugin_api import (
    AssistantMessage,
    Message,
    Outcome,
    Project,
    StopReason,
    Tool,
    ToolSpec,
)

from ._agent_parts import (
    agent_compactor,
    agent_models,
    check_agent,
    context_files,
    provider_runtime,
    run_audit,
    run_structured,
    stop_policy,
)
from ._artifact_results import READ_ARTIFACT, ArtifactKeeper, discard_artifacts, has_artifacts
from ._config import AgentConfig, AgentOutputT, OutputT, OutputTypeArg, RunResult
from ._hooks import HookRunner
from ._ids import random_hex
from ._loop import drive
from ._plugins import PluginHost, check_host_trust
from ._prompt import Prompt, admitted, admitted_async, as_messages
from ._queues import MessageQueues
from ._repair import TranscriptRepair
from ._run import Run, Subscribers
from ._run_slot import RunSlot
from ._run_state import RunAccount, RunState
from ._settings import ModelSettings, check_settings
from ._stats import AgentStats
from ._stopping.ending import wait_out
from ._stopping.interrupt import home_loop, run_interruptibly
from ._stopping.run_stop import RunStop
from ._system_prompt import assemble_system_prompt
from ._token_limits import PromptEstimator
from ._toolset import agent_toolset
from .errors import AgentBusy, NothingToContinue

if TYPE_CHECKING:  # annotations only: an agent without a session loads no store, loader or tree
    from agentkit.plugin_api import Event

    from ._budget import Budget
    from ._steps import RunSteps
    from ._structured import StructuredOutput
    from .sessions._session import Session
    from .skills import SkillSet

__all__ = ["Agent", "AgentStats", "Prompt"]


class Agent(Generic[AgentOutputT]):
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
    session's id. With an ``output_type``, every run ends with a validated value of
    that type unless the call gives its own (see :meth:`run`); ``Agent(config,
    output_type=Invoice)`` is an ``Agent[Invoice]``, ``Agent(config)`` an ``Agent[None]``.
    """

    #: Where runs hand their requests and calls (:class:`~agentkit.host.RunSteps`: durable runs); ``None``: nowhere.
    run_steps: RunSteps | None = None

    # ``Agent(config)`` is an ``Agent[None]``, ``Agent(config, output_type=Invoice)`` an ``Agent[Invoice]``; no
    # catch-all: it would also take ``Agent[int] = Agent(config, output_type=Invoice)``.
    @overload
    def __init__(self: Agent[None], config: AgentConfig, host: PluginHost | None = None, *,
                 session: Session | None = None, output_type: None = None) -> None: ...
    @overload
    def __init__(self: Agent[AgentOutputT], config: AgentConfig, host: PluginHost | None = None, *,
                 session: Session | None = None, output_type: type[AgentOutputT]) -> None: ...
    @overload
    def __init__(self: Agent[Any], config: AgentConfig, host: PluginHost | None = None, *,
                 session: Session | None = None, output_type: Mapping[str, Any]) -> None: ...
    def __init__(self, config: AgentConfig, host: PluginHost | None = None, *,
                 session: Session | None = None, output_type: OutputTypeArg = None) -> None:
        check_agent(config, output_type)
        #: The output type of every run not given its own (``run(..., output_type=...)``), or ``None``.
        self.output_type = output_type
        self.config = config
        self.root = Path(config.root).expanduser().resolve()
        #: The project at ``root``: trusted when ``trust_project`` asks and its folders are the user's own.
        self.project = Project.open(self.root, trust=config.trust.project)
        self.host = host if host is not None else PluginHost.discover(project=self.project)
        check_host_trust(self.host, self.project)
        #: The agent's model, its wire's codec, and where a turn goes when that model cannot serve it.
        self.model, self.provider, self.fallbacks = agent_models(self.host, config.models)
        self.stats = AgentStats()
        #: The agent's tools: specs, deferral, validators, skill activation (see :mod:`._toolset`).
        self.toolset = agent_toolset(self.host, config, self.root, self.project.trusted, self.stats)
        #: The context files (``AGENTS.md`` and kin) the system prompt carries, in order.
        self.context_files, self._context_text = context_files(self.root, self.project.trusted, self.toolset)
        self.toolset.require_authorization()
        self.toolset.warn_about_skills()
        #: The session each run is written to, if any.
        self.session = session
        resume = session.resume() if session is not None else None
        self.history: list[Message] = resume.messages if resume is not None else []
        self.session_id = session.id if session is not None else config.session_id or random_hex()
        #: Keeps the tool results too long to inline as the session's artifacts (see ``docs/artifacts.md``).
        self.artifacts = ArtifactKeeper(None, self.session_id, config.limits.max_tool_result_chars,
                                        self._enable_read_artifact, ephemeral=session is None)
        if session is None:  # no session to delete them with: they last as long as this agent's history
            weakref.finalize(self, discard_artifacts, self.artifacts.slot, self.session_id)
        elif has_artifacts(self.artifacts.store, self.session_id):  # the resumed history names them
            self._enable_read_artifact()
        self.runtime = provider_runtime(config, self.host)
        # Kept across turns so that each turn repairs and estimates only new messages.
        self.transcript_repair = TranscriptRepair(self.model, self.provider)
        self.prompt_estimator = PromptEstimator()
        #: What of the history each request carries (``AgentConfig.compaction``); ``None``: all of it, nothing to cut.
        self.compactor = agent_compactor(config, (self.model, self.provider, self.runtime, self.session_id),
                                         self.history, resume)
        self._policy = stop_policy(config)
        self._slot = RunSlot()
        self._busy = self._slot.busy  # the slot's lock: taken by a run, and by compact() between runs
        self._queues = MessageQueues()
        self._subscribers = Subscribers()
        self._last_result: RunResult | None = None
        self._overrides: dict[str, Any] = {}  # the running run's model settings (Agent.run's settings)
        self.structured: StructuredOutput | None = None  # the running run's output_type, if it has one

    def subscribe(self, listener: Callable[[Event], object]) -> Callable[[], None]:
        """Call ``listener(event)`` for every event of every run; returns an unsubscribe function.

        A listener that raises is reported in the run's ``problems`` and never
        stops the run. Listeners are plain functions called on the event loop's
        thread; to consume events asynchronously, iterate :meth:`stream`.

        :raises TypeError: ``listener`` is an ``async def`` function, whose
            coroutine nothing would await.
        """
        return self._subscribers.add(listener)

    # -- tools and skills ------------------------------------------------------------

    @property
    def tools(self) -> dict[str, Tool]:
        """The enabled tools by name (the toolset's; add with :meth:`add_tools`)."""
        return self.toolset.tools

    @tools.setter
    def tools(self, tools: dict[str, Tool]) -> None:
        self.toolset.tools = tools

    @property
    def skills(self) -> SkillSet:
        """The skills this agent has (plugins, user, trusted project); ``skills.problems``: what was refused."""
        return self.toolset.skills

    @property
    def active_skills(self) -> list[str]:
        """The skills activated in this session, in order (the audit of which instructions the model loaded)."""
        return self.toolset.active_skills

    def activate_skill(self, name: str) -> None:
        """Load skill ``name``: add the tools it brings, and record it in :attr:`active_skills`.

        The model activates a skill by reading its instructions (with
        ``read_file``, or a shell command naming the file); an embedder may
        call this between runs or from a tool handler. Tools added after the
        session's first request are deferred (see :meth:`add_tools`), so the
        provider's cached prefix survives. Activating an active skill does nothing.
        """
        self.toolset.activate_skill(name)

    def _enable_read_artifact(self) -> None:
        """Give the model ``read_artifact`` once the session has an artifact (a deferred tool, see :meth:`add_tools`)."""
        if READ_ARTIFACT not in self.toolset.tools:  # a tool of the embedder's that took the name stays
            self.add_tools(self.artifacts.tool)

    def skills_block(self) -> str | None:
        """The ``<available_skills>`` block the model is shown, or ``None`` (no skill, or nothing to read one with)."""
        return self.toolset.skills_block()

    def tool_options(self) -> dict[str, dict[str, Any]]:
        """Per-tool options handed to handlers: the embedder's, plus the skill folders ``read_file`` may read."""
        return self.toolset.options(self.config.tool_options)

    def tool_specs(self) -> list[ToolSpec]:
        """The wire projection of the enabled tools, built once per tool.

        The same objects are sent on every request, so a steady-state request
        builds no schema again. A tool added after the first request is
        deferred: it is listed after the tools already declared and stays
        deferred, so the provider's cached prefix survives it.
        """
        return self.toolset.specs()

    def add_tools(self, *tools: Tool) -> None:
        """Enable more tools, between runs or from a tool handler during one.

        Added after the session's first request, they are declared after the
        tools already sent (see :meth:`tool_specs`).
        """
        self.toolset.add(*tools)

    def system_prompt(self) -> str | None:
        """The system prompt every request carries; its order is documented in :mod:`._system_prompt`.

        A tool added after the first request is deferred and its guidelines are
        not added: the system prompt stays the cached prefix it was.
        """
        return assemble_system_prompt(self.config.system_prompt, self._context_text, self.toolset.skills_block(),
                                      self.toolset.guidelines())

    def _prompt_parts(self) -> tuple[str | None, list[ToolSpec]]:
        return self.system_prompt(), self.toolset.specs()

    def as_tool(self, name: str, description: str, *, budget: Budget | None = None) -> Tool:
        """This agent's definition as a tool another agent delegates to (a :class:`~agentkit.host.Subagent`).

        Each call runs a new agent built from this one's configuration and
        plugin host, with a fresh history, on ``budget`` (turns, tokens, cost)
        taken from what the calling run has left. This agent's own history and
        session are not used. See ``docs/sessions.md``.
        """
        from ._delegation import Delegation, delegation_tool  # here: the one use

        return delegation_tool(name, description, Delegation(name, self.config, budget, self.host, Agent))

    # -- control ---------------------------------------------------------------------

    def abort(self) -> None:
        """End the current run as ``aborted``; safe from any thread or task.

        An in-flight response is cut and recorded with what had arrived; a
        batch whose handlers had not started runs none of them, and running
        handlers see ``context.cancel`` set. The run ends within a second
        whatever handlers and hooks do: one still running then is abandoned
        (its call answered ``aborted``) and reported in the run's ``problems``.
        """
        self._slot.stop.request(Outcome.ABORTED, "aborted by the caller")

    def steer(self, message: Prompt) -> None:
        """Queue a message that changes the course of the run; safe from any thread or task.

        It is added at the head of the next turn, just before its request (never
        between a response and its tool results), and keeps the run going if
        the model has just answered. Queued between runs, the next run takes it.
        See :mod:`agentkit.host._queues` and ``docs/embedding.md``.
        """
        self._queues.steering.extend(admitted(as_messages(message), self.model, self.root, self.config.connection.image_fetcher))

    def follow_up(self, message: Prompt) -> None:
        """Queue a message for when the run would end: it is added then, and the run goes on (the same run)."""
        self._queues.follow_ups.extend(admitted(as_messages(message), self.model, self.root, self.config.connection.image_fetcher))

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
            from ._compaction import compact_now  # here: the one use

            self.compactor = compactor = self.compactor or agent_compactor(
                self.config, (self.model, self.provider, self.runtime, self.session_id), self.history, asked=True)
            assert compactor is not None
            return await compact_now(self.history, compactor, self.session, self._prompt_parts)
        finally:
            self._busy.release()

    @property
    def last_result(self) -> RunResult[Any] | None:
        """The result of the last run that ended, also when its caller was cancelled.

        Typed ``RunResult[Any]``: the last run may have had any ``output_type``.
        """
        return self._last_result

    # -- running ---------------------------------------------------------------------

    # No output_type: the agent's. A class is the type of ``output``; a JSON Schema (a dict), or a type
    # known only at run time, could hold anything.
    @overload
    async def run(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                  output_type: None = None) -> RunResult[AgentOutputT]: ...
    @overload
    async def run(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                  output_type: type[OutputT]) -> RunResult[OutputT]: ...
    @overload
    async def run(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                  output_type: OutputTypeArg = None) -> RunResult[Any]: ...
    async def run(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                  output_type: OutputTypeArg = None) -> RunResult[Any]:
        """Run until the model answers without tool calls, a stop policy fires, or the run fails.

        ``settings`` overrides the config's model settings for this run only.
        ``output_type`` (a JSON Schema dict, a dataclass, a ``TypedDict`` or a
        pydantic model; by default the agent's :attr:`output_type`) makes the run
        end with a validated value of that type in ``RunResult.output`` (see :mod:`._structured`).

        Failures inside the run end it with a result (``error``, ``aborted``,
        ``timeout``...), never an exception. Cancelling the task that awaits
        it stops the run, answers every pending tool call, records the outcome
        ``cancelled`` (see :attr:`last_result`) and re-raises ``CancelledError``.
        """
        overrides = check_settings(settings)
        structured = self._structured(output_type, overrides)
        new = await admitted_async(as_messages(prompt), self.model, self.root, self.config.connection.image_fetcher)
        async with self._claim(overrides, structured) as stop:
            # No consumer of events: the run's own task, awaited directly, with no queue between.
            task = asyncio.ensure_future(self._run(new, None, stop))
            if await wait_out(task, lambda: stop.request(Outcome.CANCELLED, "the task awaiting the run was cancelled",
                                                         on_loop=True)):
                raise asyncio.CancelledError
        result = self._last_result
        if result is None:  # _run always records one; this would be a host defect
            raise RuntimeError("the run ended without a result")
        return result

    @overload
    def run_sync(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                 output_type: None = None) -> RunResult[AgentOutputT]: ...
    @overload
    def run_sync(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                 output_type: type[OutputT]) -> RunResult[OutputT]: ...
    @overload
    def run_sync(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                 output_type: OutputTypeArg = None) -> RunResult[Any]: ...
    def run_sync(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                 output_type: OutputTypeArg = None) -> RunResult[Any]:
        """``run`` for code that is not async.

        Ctrl-C aborts the run (a second press too): it ends within a second
        with a well-formed history and outcome ``aborted``, then
        ``KeyboardInterrupt`` is raised. A third press raises at once.
        """
        result, interrupted = run_interruptibly(self.run(prompt, settings=settings, output_type=output_type),
                                                self.abort, loop=home_loop(self.tools.values()))
        if interrupted:
            raise KeyboardInterrupt
        return result

    async def continue_(self) -> RunResult[AgentOutputT]:
        """Run again without a new user message, from where the history ends, with the agent's :attr:`output_type`.

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

    def continue_sync(self) -> RunResult[AgentOutputT]:
        """``continue_`` for code that is not async; Ctrl-C as in :meth:`run_sync`."""
        result, interrupted = run_interruptibly(self.continue_(), self.abort, loop=home_loop(self.tools.values()))
        if interrupted:
            raise KeyboardInterrupt
        return result

    async def stream(self, prompt: Prompt | None = None, *, settings: ModelSettings | None = None,
                     output_type: OutputTypeArg = None) -> AsyncIterator[Event]:
        """Run and yield every event as it happens; the last one is ``agent_end``.

        A consumer that stops reading (``break``, ``aclose()``) ends the run as
        ``aborted``; a run started right after waits for that end. ``settings``
        overrides the config's model settings for this run only.

        :raises ConfigError: ``settings`` names something that is no model setting, or
            ``output_type`` is no type a run can end with.
        """
        overrides = check_settings(settings)
        structured = self._structured(output_type, overrides)
        new = await admitted_async(as_messages(prompt), self.model, self.root, self.config.connection.image_fetcher)
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

    def _structured(self, output_type: Any, overrides: dict[str, Any]) -> StructuredOutput | None:
        """The run's structured output (its own ``output_type``, else the agent's), checked before it starts."""
        return run_structured(output_type, self.output_type, self.config, overrides, self.toolset.tools, self.model)

    @contextlib.asynccontextmanager
    async def _claim(self, overrides: dict[str, Any],
                     structured: StructuredOutput | None) -> AsyncIterator[RunStop]:
        """Take the agent for one run, with the run's stop, settings and output; released when the run has ended."""
        async with self._slot.claim() as stop:
            self._overrides = overrides
            self.structured = structured
            yield stop

    def _open_run(self, stop: RunStop, put: Callable[[Event | None], None] | None = None) -> Run:
        """A :class:`~._run.Run` of this agent with ``stop``, lending it the agent's parts (see :mod:`._run`).

        ``put`` receives every event when someone streams the run. The run
        takes the settings and output of the claim it is made in (see :meth:`_claim`).
        """
        hooks = HookRunner(self.host.hook_callers)
        state = RunState()
        run_id = random_hex() if (steps := self.run_steps) is None else steps.run_id
        return Run(
            config=self.config, model=self.model, provider=self.provider, runtime=self.runtime, host=self.host,
            toolset=self.toolset, history=self.history, session=self.session, session_id=self.session_id,
            root=self.root, context_text=self._context_text, compactor=self.compactor,
            artifacts=self.artifacts, transcript_repair=self.transcript_repair,
            prompt_estimator=self.prompt_estimator, queues=self._queues, stats=self.stats,
            subscribers=self._subscribers, policy=self._policy, spawn=Agent, finished=self._record, stop=stop,
            hooks=hooks, state=state, account=RunAccount(state, self.config.limits.budget),
            audit=run_audit(self.config, self.session_id, run_id, self.model.key, hooks.report),
            overrides=self._overrides, structured=self.structured, put=put, run_id=run_id, steps=steps, fallbacks=self.fallbacks,
        )

    def _record(self, result: RunResult) -> None:
        self._last_result = result

    async def _run(self, new: list[Message], put: Callable[[Event | None], None] | None, stop: RunStop) -> None:
        await drive(self._open_run(stop, put), new)

