"""Subagents of a durable run: each delegation is a child workflow, ``agentkit.subagent``.

A call of a delegation tool is no step of its parent (a step cannot start a
workflow): it runs in the parent's workflow and starts the child workflow
whose id is derived from the parent's run id and the call id
(:func:`child_run_id`), so that a recovering parent finds its child (DBOS gives
the recorded result of a finished one, and waits for one still running)
instead of starting another. The child's model requests and tool calls are
steps of its own workflow; DBOS records its parent.

Cancelling the parent cancels its children: while a child runs, its parent's
status is watched (``agentkit runs cancel`` or ``DBOS.cancel_workflow`` from
any process), and an abort of the parent's run (``agent.abort()``, Ctrl-C, its
deadline) cancels the child's workflow as it stops the child's run.

A child is run by the process running its parent: one that recovers a
parent's child first waits for the parent's replay to reach the delegation.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from dbos import DBOS, SetWorkflowID

from agentkit.host import RunSteps
from agentkit.plugin_api import ToolResult

from ._steps import DurableSteps, result_from_dict, result_to_dict

__all__ = ["SUBAGENT_WORKFLOW", "child_run_id", "run_subagent", "subagent_workflow"]

#: The name the child workflows are registered under (``runs list`` lists ``agentkit.run`` only).
SUBAGENT_WORKFLOW = "agentkit.subagent"
START_STEP = "agentkit.start"
#: Seconds between two looks at the parent's status while a child runs.
WATCH_INTERVAL = 1.0
#: The runs of this process's delegations, by child run id: ``(run(child_steps), the parent's stop)``.
_CHILDREN: dict[str, tuple[Callable[[RunSteps], Awaitable[ToolResult]], Any]] = {}
_UNFINISHED = frozenset({"PENDING", "ENQUEUED"})


def child_run_id(run_id: str, call_id: str) -> str:
    """The run id of the subagent that call ``call_id`` of run ``run_id`` delegates to."""
    return f"{run_id}.{call_id}"


async def run_subagent(parent: DurableSteps, call_id: str,
                       run: Callable[[RunSteps], Awaitable[ToolResult]]) -> ToolResult:
    """The delegation ``call_id`` of ``parent``'s run, as the child workflow ``child_run_id(...)``."""
    child_id = child_run_id(parent.run_id, call_id)
    _CHILDREN[child_id] = (run, parent.stop)
    watch = asyncio.ensure_future(_cancel_with_parent(parent.run_id, child_id))
    try:
        with SetWorkflowID(child_id):
            data = await subagent_workflow(parent.run_id, call_id)
    except Exception as exc:  # cancelled with its parent, or its workflow failed
        if type(exc).__name__ in ("DBOSWorkflowCancelledError", "DBOSAwaitedWorkflowCancelledError"):
            return ToolResult.failure("subagent_cancelled", f"the subagent's run {child_id} was cancelled")
        raise
    finally:
        watch.cancel()
        _CHILDREN.pop(child_id, None)
    return result_from_dict(data)


@DBOS.workflow(name=SUBAGENT_WORKFLOW)
async def subagent_workflow(parent_run_id: str, call_id: str) -> dict[str, Any]:
    """One subagent run: its id is ``DBOS.workflow_id``; its result, the delegation call's (as a dict)."""
    child_id = DBOS.workflow_id
    assert child_id is not None
    run, stop = await _claimed(parent_run_id, child_id)
    token = uuid.uuid4().hex

    async def start() -> str:
        return token

    replaying = await DBOS.run_step_async({"name": START_STEP}, start) != token
    result = await run(DurableSteps(child_id, replaying=replaying))
    if stop is not None and stop.requested:  # the parent was aborted: its child's workflow ends cancelled
        await _outside_the_workflow(DBOS.cancel_workflow, child_id)
    return result_to_dict(result)


async def _claimed(parent_run_id: str, child_id: str) -> tuple[Callable[[RunSteps], Awaitable[ToolResult]], Any]:
    """The run of ``child_id``; a child recovered before its parent waits for the parent's replay to hand it over."""
    waited = 0.0
    while (entry := _CHILDREN.get(child_id)) is None:
        await asyncio.sleep(0.05)
        waited += 0.05
        if waited >= WATCH_INTERVAL:
            waited = 0.0
            status = await _outside_the_workflow(DBOS.get_workflow_status, parent_run_id)
            if status is None or status.status not in _UNFINISHED:
                raise RuntimeError(f"the parent run {parent_run_id} of subagent run {child_id} is "
                                   f"{status.status.lower() if status else 'gone'}: nothing waits for this subagent")
    return entry


async def _cancel_with_parent(parent_run_id: str, child_id: str) -> None:
    """Cancel the child (and its own children) once its parent is cancelled, whoever cancelled it."""
    while True:
        await asyncio.sleep(WATCH_INTERVAL)
        status = await _outside_the_workflow(DBOS.get_workflow_status, parent_run_id)
        if status is not None and status.status == "CANCELLED":
            await _outside_the_workflow(DBOS.cancel_workflow, child_id)
            return


async def _outside_the_workflow(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` on a thread without the workflow's context: not a checkpointed operation of it.

    (``run_in_executor`` does not copy context variables, where ``to_thread`` would.) Only what may
    differ between executions (a look at a status, a cancellation) is done so.
    """
    if function is DBOS.cancel_workflow:
        return await asyncio.get_running_loop().run_in_executor(
            None, lambda: DBOS.cancel_workflow(*args, cancel_children=True))
    return await asyncio.get_running_loop().run_in_executor(None, function, *args)
