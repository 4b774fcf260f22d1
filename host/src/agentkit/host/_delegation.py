"""Delegation: an agent exposed as a tool, run with a fresh history on a slice of its parent's budget.

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
* **Durable runs.** In a durable run (its ``Run.steps`` set), the delegation
  is handed to :meth:`~._steps.RunSteps.subagent`: the child runs with steps of
  its own (a child workflow), not inside its parent's tool step.
* **Events.** Every event of the child reaches the parent's stream,
  subscribers and run observers wrapped in a
  :class:`~agentkit.plugin_api.SubagentEvent` that names the agent, the call
  and the child's session.

The parent's run (:class:`~._run.Run`) is found through a context variable the loop sets for the
run's task: the batch's tasks inherit it, and a child's own run sets its own.
Called outside a run (a tool server, a test), a delegation has only its own slice.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import (
    ExecutionMode,
    Outcome,
    Tool,
    ToolContext,
    ToolResult,
    Usage,
)
from agentkit.plugin_api._dataclass import dataclass

from ._budget import Budget
from ._run import current_run
from ._steps import RunSteps, SubagentHandler
from .sessions._entries import SUBAGENT_ENTRY

if TYPE_CHECKING:
    from ._config import AgentConfig
    from ._plugins import PluginHost
    from ._run import Run
    from .sessions._session import Session

__all__ = ["Delegation", "delegation_tool"]

_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"task": {"type": "string", "description": "The whole task: the subagent sees nothing else."}},
    "required": ["task"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Delegation:
    """What one delegation tool delegates to: a configuration, a budget slice, and how to build the child.

    :param spawn: builds the child agent, ``spawn(config, host=..., session=...)`` (the agent's class).
    """

    name: str
    config: AgentConfig
    budget: Budget | None
    host: PluginHost | None
    spawn: Callable[..., Any]


def delegation_tool(name: str, description: str, delegation: Delegation) -> Tool:
    """The tool that delegates: one argument, ``task``; answered with the child's final text."""
    return Tool(name, description, _INPUT_SCHEMA, SubagentHandler(_delegate, delegation), ExecutionMode.PARALLEL)


async def _delegate(delegation: Delegation, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
    parent = current_run()
    if parent is not None and parent.steps is not None:  # a durable run: the child is a run of its own
        return await parent.steps.subagent(context.call_id, functools.partial(
            _delegate_with, delegation, arguments, context, parent))
    return await _delegate_with(delegation, arguments, context, parent, None)


async def _delegate_with(delegation: Delegation, arguments: dict[str, Any], context: ToolContext,
                         parent: Run | None, steps: RunSteps | None) -> ToolResult:
    """One delegation; ``steps``: the child's own run steps (a durable run's child)."""
    wanted = delegation.budget or Budget()
    grant = parent.account.reserve(wanted) if parent is not None else wanted
    child: Any = None
    try:
        if grant.empty:
            left = parent.account.remaining() if parent is not None else grant
            return ToolResult.failure("budget_exhausted", f"no budget is left to delegate to {delegation.name} ({left})")
        limits = dataclasses.replace(delegation.config.limits, budget=grant,
                                     max_turns=_least(delegation.config.limits.max_turns, grant.turns))
        config = dataclasses.replace(delegation.config, session_id=None, limits=limits)
        host = delegation.host or (parent.host if parent is not None else None)
        child = delegation.spawn(config, host=host, session=_child_session(parent))
        child.run_steps = steps
        if parent is not None and parent.log is not None and child.session is not None:
            parent.log.custom(SUBAGENT_ENTRY, {"session_id": child.session_id, "tool_call_id": context.call_id,
                                               "agent": delegation.name})
        return _answer(delegation.name, child.session_id,
                       await _run_child(child, arguments["task"], parent, context.call_id, delegation.name))
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


def _child_session(parent: Run | None) -> Session | None:
    """The child's own session, in the parent's store; none when the parent keeps none."""
    from .sessions._session import Session

    if parent is None or parent.session is None:
        return None
    return Session.new(parent.session.store, cwd=parent.session.header.cwd or os.getcwd())


async def _run_child(child: Any, task: str, parent: Run | None, call_id: str, name: str) -> Any:
    """Run the child to its end; a stop of the parent's run aborts it."""
    if parent is None:
        return await child.run(task)
    unsubscribe = child.subscribe(lambda event: parent.forward(name, call_id, child.session_id, event))
    child._slot.parent_stop = parent.stop  # linked when the child's run claims its stop: no abort falls between
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
