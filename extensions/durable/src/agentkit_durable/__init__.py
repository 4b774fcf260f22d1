"""Durable agent runs on DBOS Transact (docs/durable.md, docs/decisions/0039-durable-runs-on-dbos.md).

A durable run is the DBOS workflow ``agentkit.run`` whose id is the run id;
each model request, tool call and authorization is a step whose result is
checkpointed. A process that starts (:func:`launch`) on the same database
recovers the runs a dead process left pending.

The names below load DBOS on first use, so that ``default_database_url`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._database import DATABASE_ENV, default_database_url

if TYPE_CHECKING:
    from ._agent import DurableAgent as DurableAgent
    from ._agent import start_run as start_run
    from ._approval import APPROVAL_TOPIC as APPROVAL_TOPIC
    from ._approval import WAITING_EVENT as WAITING_EVENT
    from ._approval import Answered as Answered
    from ._approval import NotWaiting as NotWaiting
    from ._approval import answer_call as answer_call
    from ._launch import launch as launch
    from ._launch import shutdown as shutdown
    from ._queue import QUEUE as QUEUE
    from ._queue import submit as submit
    from ._spec import RunSpec as RunSpec
    from ._steps import DurableSteps as DurableSteps
    from ._subagents import SUBAGENT_WORKFLOW as SUBAGENT_WORKFLOW
    from ._subagents import child_run_id as child_run_id
    from ._workflow import WORKFLOW_NAME as WORKFLOW_NAME
    from ._workflow import run_workflow as run_workflow

_EXPORTS = {
    "DurableAgent": "._agent",
    "start_run": "._agent",
    "APPROVAL_TOPIC": "._approval",
    "WAITING_EVENT": "._approval",
    "Answered": "._approval",
    "NotWaiting": "._approval",
    "answer_call": "._approval",
    "launch": "._launch",
    "shutdown": "._launch",
    "RunSpec": "._spec",
    "DurableSteps": "._steps",
    "SUBAGENT_WORKFLOW": "._subagents",
    "child_run_id": "._subagents",
    "WORKFLOW_NAME": "._workflow",
    "run_workflow": "._workflow",
    "QUEUE": "._queue",
    "submit": "._queue",
}

__all__ = ["DATABASE_ENV", "default_database_url", *_EXPORTS]


def __getattr__(name: str) -> Any:
    where = _EXPORTS.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(where, __name__), name)
    globals()[name] = value
    return value
