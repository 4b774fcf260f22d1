"""One run of an agent as one typed object: what it has done (its state) and what it works with.

The :class:`Run` is made by :class:`~agentkit.host.Agent` when a run starts
and handed to every step of the loop (:mod:`._loop`): the turns, the request
(:mod:`._request`), compaction, the tool batch, structured output, the
answers to pending calls. None of them is given the agent: what they need of
it (its model, runtime, tools, history, queues) the run lends them, as
pydantic-ai's ``GraphAgentState`` and ``GraphAgentDeps`` are handed to each
node of its graph.

* **state** (:class:`~._run_state.RunState`): the messages added, the usage,
  the turn, the outcome; what a durable run would checkpoint;
* **the run's own collaborators**: its stop (:mod:`._stopping`), its event
  sink (``emit``), its session log, its hooks, its budget account, its tool
  batch, its structured output, its audit trail;
* **the agent's parts it uses** (lent, never copied): configuration, model,
  provider and runtime, toolset, history, compactor, queues, counters.

The run whose task (or tool call) is running is found with :func:`current_run`:
the loop sets it in the run's task, whose tool calls inherit it, so that a
delegation (:mod:`._delegation`) finds the account and stop of its parent run.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

# The run's events, as plugin_api.SubagentEvent: they load with the first one built.
from agentkit import plugin_api
from agentkit.plugin_api import Message, ModelInfo, SessionInfo, ToolSpec

from ._run_state import RetryBudget, RunAccount, RunState
from ._stopping.ending import SESSION_END_FLOOR
from ._stopping.run_stop import STOP_BUDGET
from ._system_prompt import assemble_system_prompt

if TYPE_CHECKING:
    from agentkit.plugin_api import Event, Provider

    from ._artifact_results import ArtifactKeeper
    from ._audit import RunAudit
    from ._batch import ToolBatch
    from ._compaction import Compactor
    from ._config import AgentConfig, RunResult
    from ._hooks import HookRunner
    from ._plugins import PluginHost
    from ._queues import MessageQueues
    from ._repair import TranscriptRepair
    from ._route import Route
    from ._stats import AgentStats
    from ._steps import RunSteps
    from ._stopping.policies import StopPolicy
    from ._stopping.run_stop import RunStop
    from ._structured import StructuredOutput
    from ._token_limits import PromptEstimator
    from ._toolset import Toolset
    from .runtime import ProviderRuntime
    from .sessions._recorder import RunLog
    from .sessions._session import Session

__all__ = ["CHILD_END_BUDGET", "Run", "RunState", "Subscribers", "current_run", "enter_run", "heard", "hearing"]

#: Seconds an aborted child's run may take to end: its stop budget, its end hooks' floor, and room.
CHILD_END_BUDGET = STOP_BUDGET + SESSION_END_FLOOR + 2.0


class Subscribers:
    """An agent's event listeners, shared with its runs.

    A tuple, replaced on (un)subscribe: a listener that subscribes or unsubscribes
    while an event is being delivered changes the next event's listeners, not this one's.
    """

    __slots__ = ("all",)

    def __init__(self) -> None:
        self.all: tuple[Callable[[Event], object], ...] = ()

    def add(self, listener: Callable[[Event], object]) -> Callable[[], None]:
        """Add ``listener``; returns the function that removes it (see :meth:`Agent.subscribe`)."""
        if inspect.iscoroutinefunction(listener) or inspect.iscoroutinefunction(type(listener).__call__):
            raise TypeError(
                f"{listener!r} is an async function, which subscribe would call without awaiting; "
                "subscribe a plain function, or iterate agent.stream(...) to consume events asynchronously"
            )
        self.all = (*self.all, listener)
        return functools.partial(self._remove, listener)

    def _remove(self, listener: Callable[[Event], object]) -> None:
        listeners = list(self.all)
        listeners.remove(listener)
        self.all = tuple(listeners)


class Run:
    """One run's state and what it works with; see the module docstring.

    A plain class, not a dataclass: nothing compares, copies or prints a run, and declaring its four dozen
    fields as a dataclass cost 1 M instructions of a first use (``bench/_first_use.py`` under callgrind).
    """

    # -- the agent's parts the run works with -------------------------------------
    config: AgentConfig
    model: ModelInfo
    provider: Provider
    runtime: ProviderRuntime
    host: PluginHost
    toolset: Toolset
    #: The agent's history: the run appends to it as it goes.
    history: list[Message]
    session: Session | None
    session_id: str
    root: Path
    #: The context files' text, fixed for the session (the system prompt carries it).
    context_text: list[str]
    #: What of the history a request carries; ``None``: all of it (no strategy, no cut resumed or asked for).
    compactor: Compactor | None
    #: Keeps the tool results too long to inline (the session's artifacts).
    artifacts: ArtifactKeeper
    transcript_repair: TranscriptRepair
    prompt_estimator: PromptEstimator
    queues: MessageQueues
    stats: AgentStats
    subscribers: Subscribers
    #: The stop policy of ``max_turns`` and ``stop_policy``, if any.
    policy: StopPolicy | None
    #: Builds a child agent for a delegation (the agent's class).
    spawn: Callable[..., Any]
    #: Told the run's result once it is known, before ``agent_end`` is emitted.
    finished: Callable[[RunResult], None]
    # -- the run's own -------------------------------------------------------------
    stop: RunStop
    hooks: HookRunner
    account: RunAccount
    #: The run's audit trail; ``None`` when nobody keeps one (no ``AgentConfig.audit``).
    audit: RunAudit | None
    state: RunState
    #: This run's model settings (``Agent.run``'s ``settings``) and structured output.
    overrides: dict[str, Any]
    structured: StructuredOutput | None
    #: Where the events go when someone streams the run; ``None``: only to subscribers and observers.
    put: Callable[[Event | None], None] | None
    #: Every event of the run goes through ``emit``; every message through ``append`` (see :mod:`._loop`).
    emit: Callable[[Event], None]
    append: Callable[[Message], None]
    log: RunLog | None
    #: What handlers and hooks are told of the run's session; set when the run starts.
    session_info: SessionInfo | None
    #: The run's tool batch, made at its first tool call (a run whose model calls no tool never needs one).
    batch: ToolBatch | None
    #: The plugins that asked to observe this run.
    observers: list[tuple[str, Callable[[Event], object]]]
    #: The delegations running now: each child, and a future done when its run has returned.
    children: dict[Any, asyncio.Future[None]]
    #: Set once the run reports its end: nothing of a child is passed on after the parent's ``agent_end``.
    ended: bool
    #: The run's id (``ToolContext.run_id``); a durable run's is its workflow id.
    run_id: str
    #: Where its model requests, tool calls and authorizations go, if not done directly (see :mod:`._steps`).
    steps: RunSteps | None
    #: The models a request goes to, in order, when the one before could not serve it (``AgentConfig(model=[...])``).
    fallbacks: tuple[Route, ...]
    #: The retries of the run's final answer (``AgentConfig.output_retries``), and whether anything checks it.
    output_budget: RetryBudget | None
    output_checked: bool

    def __init__(
        self, config: AgentConfig, model: ModelInfo, provider: Provider, runtime: ProviderRuntime,
        host: PluginHost, toolset: Toolset, history: list[Message], session: Session | None, session_id: str,
        root: Path, context_text: list[str], compactor: Compactor | None, artifacts: ArtifactKeeper,
        transcript_repair: TranscriptRepair, prompt_estimator: PromptEstimator, queues: MessageQueues,
        stats: AgentStats, subscribers: Subscribers, policy: StopPolicy | None, spawn: Callable[..., Any],
        finished: Callable[[RunResult], None], stop: RunStop, hooks: HookRunner, account: RunAccount,
        audit: RunAudit | None, state: RunState | None = None, overrides: dict[str, Any] | None = None,
        structured: StructuredOutput | None = None, put: Callable[[Event | None], None] | None = None,
        emit: Callable[[Event], None] | None = None, append: Callable[[Message], None] | None = None,
        log: RunLog | None = None, session_info: SessionInfo | None = None, batch: ToolBatch | None = None,
        observers: list[tuple[str, Callable[[Event], object]]] | None = None,
        children: dict[Any, asyncio.Future[None]] | None = None, ended: bool = False, run_id: str = "",
        steps: RunSteps | None = None, fallbacks: tuple[Route, ...] = (), output_budget: RetryBudget | None = None,
        output_checked: bool = False,
    ) -> None:
        self.config = config
        self.model = model
        self.provider = provider
        self.runtime = runtime
        self.host = host
        self.toolset = toolset
        self.history = history
        self.session = session
        self.session_id = session_id
        self.root = root
        self.context_text = context_text
        self.compactor = compactor
        self.artifacts = artifacts
        self.transcript_repair = transcript_repair
        self.prompt_estimator = prompt_estimator
        self.queues = queues
        self.stats = stats
        self.subscribers = subscribers
        self.policy = policy
        self.spawn = spawn
        self.finished = finished
        self.stop = stop
        self.hooks = hooks
        self.account = account
        self.audit = audit
        self.state = RunState() if state is None else state
        self.overrides = {} if overrides is None else overrides
        self.structured = structured
        self.put = put
        self.emit = _ignore if emit is None else emit
        self.append = _ignore if append is None else append
        self.log = log
        self.session_info = session_info
        self.batch = batch
        self.observers = [] if observers is None else observers
        self.children = {} if children is None else children
        self.ended = ended
        self.run_id = run_id
        self.steps = steps
        self.fallbacks = fallbacks
        self.output_budget = output_budget
        self.output_checked = output_checked

    def system_prompt(self) -> str | None:
        """The system prompt of the run's requests (see :mod:`._system_prompt`)."""
        return assemble_system_prompt(self.config.system_prompt, self.context_text, self.toolset.skills_block(),
                                      self.toolset.guidelines())

    def prompt_parts(self) -> tuple[str | None, list[ToolSpec]]:
        """What every request carries besides its messages: the system prompt and the tool specs."""
        return self.system_prompt(), self.toolset.specs()

    def forward(self, name: str, call_id: str, session_id: str, event: Event) -> None:
        """Pass a child's event on to the run's stream, subscribers and observers, tagged."""
        if not self.ended:
            self.emit(plugin_api.SubagentEvent(name, call_id, session_id, event))

    async def end_children(self) -> None:
        """Abort the children still running and wait for their runs to end (each within its stop budget)."""
        if not self.children:
            return
        for child in list(self.children):
            child.abort()
        await asyncio.wait(list(self.children.values()), timeout=CHILD_END_BUDGET)


def _ignore(item: object) -> None:
    """Where a run's events and messages go until the loop says otherwise."""


_RUN: contextvars.ContextVar[Run | None] = contextvars.ContextVar("agentkit_run", default=None)


def current_run() -> Run | None:
    """The run whose task (or tool call) this is, if any."""
    return _RUN.get()


def enter_run(run: Run) -> contextvars.Token[Run | None]:
    return _RUN.set(run)


def heard(run: Run) -> bool:
    """Whether an event emitted now reaches anyone: the run's stream, a subscriber, an observing plugin, or
    the run's steps (which may pass it on). The loop builds no event nobody hears (decision 0057)."""
    return run.put is not None or run.steps is not None or bool(run.subscribers.all or run.observers)


def hearing(run: Run) -> Callable[[], bool]:
    """:func:`heard` of ``run`` as a function of nothing, asked for every tool call: a run's stream and steps
    are set when it is made, so only its subscribers and observers (lists that change) are asked each time."""
    if run.put is not None or run.steps is not None:
        return lambda: True
    subscribers, observers = run.subscribers, run.observers
    return lambda: bool(subscribers.all or observers)
