"""Subagents: an agent exposed as a tool, run with a fresh history on a slice of its parent's budget.

One call of the tool is one delegation. It builds a new
:class:`~agentkit.host.Agent` from the subagent's configuration, so the child
starts with an empty history and sees only the task the parent's model wrote;
it runs the child and answers the call with the child's final text. Concurrent
calls of one batch are concurrent delegations, each its own child.

* **Budget.** The child gets an explicit slice (:class:`Budget`: turns,
  tokens, cost), never more than its parent's run has left: the slice is
  reserved from the parent's account when the child starts and, when it ends,
  released and replaced by what the child spent, which counts as the parent
  run's spending (its ``RunResult.usage`` includes its subagents').
* **Session.** With a session, the child writes its own session in the same
  store, and the parent's log records a ``custom`` entry of type
  ``subagent`` naming it (``session_id``, ``tool_call_id``, ``agent``) before
  the child's first request.
* **Abort.** A stop of the parent's run (abort, Ctrl-C, its deadline, its
  task cancelled) aborts every running child, which ends within its own stop
  budget and answers its own pending calls.
* **Events.** Every event of the child reaches the parent's stream,
  subscribers and run observers wrapped in a
  :class:`~agentkit.plugin_api.SubagentEvent` that names the agent, the call
  and the child's session.

The parent's run is found through a context variable the loop sets for the
run's task: the batch's tasks inherit it, and a child's own run sets its own.
Called outside a run (a tool server, a test), a delegation has only its own slice.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import (
    Event,
    ExecutionMode,
    Outcome,
    SubagentEvent,
    Tool,
    ToolContext,
    ToolResult,
    Usage,
)

from ._budget_account import Budget, RunAccount
from ._ending import SESSION_END_FLOOR
from ._guard import STOP_BUDGET
from .sessions._entries import SUBAGENT_ENTRY

if TYPE_CHECKING:
    from ._agent import Agent
    from ._config import AgentConfig
    from ._guard import RunStop
    from ._plugins import PluginHost
    from .sessions._recorder import RunLog
    from .sessions._session import Session

__all__ = ["RunScope", "Subagent", "current_run"]

#: Seconds an aborted child's run may take to end: its stop budget, its end hooks' floor, and room.
CHILD_END_BUDGET = STOP_BUDGET + SESSION_END_FLOOR + 2.0

_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"task": {"type": "string", "description": "The whole task: the subagent sees nothing else."}},
    "required": ["task"],
    "additionalProperties": False,
}


@dataclass
class RunScope:
    """What a delegation needs of the run it is called from."""

    agent: Agent
    account: RunAccount
    stop: RunStop
    emit: Callable[[Event], None]
    log: RunLog | None
    #: The delegations running now: each child, and a future done when its run has returned.
    children: dict[Agent, asyncio.Future[None]] = field(default_factory=dict)
    #: Set once the run reports its end: nothing of a child is passed on after the parent's ``agent_end``.
    ended: bool = False

    def forward(self, name: str, call_id: str, session_id: str, event: Event) -> None:
        """Pass a child's event on to the run's stream, subscribers and observers, tagged."""
        if not self.ended:
            self.emit(SubagentEvent(name, call_id, session_id, event))

    async def end_children(self) -> None:
        """Abort the children still running and wait for their runs to end (each within its stop budget)."""
        if not self.children:
            return
        for child in list(self.children):
            child.abort()
        await asyncio.wait(list(self.children.values()), timeout=CHILD_END_BUDGET)


_RUN: contextvars.ContextVar[RunScope | None] = contextvars.ContextVar("agentkit_run", default=None)


def current_run() -> RunScope | None:
    """The run whose task (or tool call) this is, if any."""
    return _RUN.get()


def enter_run(scope: RunScope) -> contextvars.Token[RunScope | None]:
    return _RUN.set(scope)


@dataclass
class Subagent:
    """An agent definition to delegate to: its configuration, the tool's name and description, its budget slice.

    :param name: the tool's name, what the parent's model calls.
    :param description: what the subagent is for, for the parent's model.
    :param config: the child's configuration (model, system prompt, tools,
        policy); each delegation builds a new agent from it.
    :param budget: the slice each delegation asks for; it gets no more than
        the parent's run has left. ``None``: whatever is left.
    :param host: the plugin host to build the child with (default: the parent's, else discovered).
    """

    name: str
    description: str
    config: AgentConfig
    budget: Budget | None = None
    host: PluginHost | None = field(default=None, repr=False)

    def as_tool(self) -> Tool:
        """The tool that delegates: one argument, ``task``; answered with the child's final text."""
        return Tool(self.name, self.description, _INPUT_SCHEMA, self._delegate, ExecutionMode.PARALLEL)

    async def _delegate(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        from ._agent import Agent  # the agent module builds subagents too: imported when one runs

        parent = current_run()
        wanted = self.budget or Budget()
        grant = parent.account.reserve(wanted) if parent is not None else wanted
        child: Agent | None = None
        try:
            if grant.empty:
                left = parent.account.remaining() if parent is not None else grant
                return ToolResult.failure("budget_exhausted", f"no budget is left to delegate to {self.name} ({left})")
            limits = dataclasses.replace(self.config.limits, budget=grant,
                                         max_turns=_least(self.config.limits.max_turns, grant.turns))
            config = dataclasses.replace(self.config, session_id=None, limits=limits)
            host = self.host or (parent.agent.host if parent is not None else None)
            child = Agent(config, host=host, session=_child_session(parent))
            if parent is not None and parent.log is not None and child.session is not None:
                parent.log.custom(SUBAGENT_ENTRY, {"session_id": child.session_id, "tool_call_id": context.call_id,
                                                   "agent": self.name})
            return _answer(self.name, child.session_id,
                           await _run_child(child, arguments["task"], parent, context.call_id, self.name))
        finally:
            if child is not None and child.session is not None:
                child.session.close()
            if parent is not None:  # what the child spent is the parent run's spending
                spent = child.last_result if child is not None else None
                parent.account.settle(grant, spent.turns if spent else 0, spent.usage if spent else Usage())


def _least(configured: int | None, granted: int | None) -> int | None:
    if configured is None:
        return granted
    return configured if granted is None else min(configured, granted)


def _child_session(parent: RunScope | None) -> Session | None:
    """The child's own session, in the parent's store; none when the parent keeps none."""
    from .sessions._session import Session

    if parent is None or parent.agent.session is None:
        return None
    return Session.new(parent.agent.session.store, cwd=parent.agent.session.header.cwd or os.getcwd())


async def _run_child(child: Agent, task: str, parent: RunScope | None, call_id: str, name: str) -> Any:
    """Run the child to its end; a stop of the parent's run aborts it."""
    if parent is None:
        return await child.run(task)
    unsubscribe = child.subscribe(lambda event: parent.forward(name, call_id, child.session_id, event))
    child._parent_stop = parent.stop  # linked when the child's run claims its stop: no abort falls between
    ended = parent.children[child] = asyncio.get_running_loop().create_future()
    try:
        return await child.run(task)
    finally:
        unsubscribe()
        del parent.children[child]
        ended.set_result(None)


def _answer(name: str, session_id: str, result: Any) -> ToolResult:
    facts = {"session_id": session_id, "turns": result.turns, "usage": result.usage.to_dict()}
    if result.outcome is Outcome.COMPLETED:
        return ToolResult.success(result.text, **facts)
    why = result.error or result.stopped_by or result.outcome.value
    last = f"; its last answer: {result.text}" if result.text else ""
    return ToolResult.failure(f"subagent_{result.outcome.value}", f"{name} stopped ({why}){last}", **facts)
