"""The workflow ``agentkit.run``: one durable run, from its spec to its result.

The workflow's id is the run id; its one argument is the run spec
(:class:`~agentkit_durable.RunSpec` as a dict); its result is the run's result
as a dict (:func:`~agentkit_durable._results.result_to_dict`). Executed again
from its start by a recovering process, it must do the same things in the same
order: everything that is not deterministic (a response, a tool's effect, an
authorization) happens inside a step (:mod:`._steps`), and what else a run
makes (its messages, their ids, the events) follows from the steps' results.

Its first step, ``agentkit.start``, records how long the history was when the
run began: a recovering process cuts the session's history back to that
length (the run writes again what follows, and the log skips what it holds).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dbos import DBOS

from ._results import run_result_to_dict
from ._spec import RunSpec
from ._steps import DurableSteps

if TYPE_CHECKING:
    from agentkit.host import Agent
    from agentkit.plugin_api import Event

    from ._agent import DurableAgent

__all__ = ["APPLICATION_VERSION", "WORKFLOW_NAME", "abort", "run_workflow"]

#: The name the workflow is registered under; ``runs list`` lists the workflows of this name.
WORKFLOW_NAME = "agentkit.run"
START_STEP = "agentkit.start"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agentkit-durable")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


#: The version a run is recorded with: only a process of the same version recovers it.
APPLICATION_VERSION = f"agentkit-durable-{_version()}"

#: The durable agents of this process, by name (``RunSpec.agent``).
AGENTS: dict[str, DurableAgent] = {}
#: Who is told the events of a run started in this process, by run id (the process's own printer).
LISTENERS: dict[str, Callable[[Event], object]] = {}
#: The agents running a run in this process, by run id: what :func:`abort` stops.
RUNNING: dict[str, Agent] = {}


def abort(run_id: str) -> None:
    """Abort run ``run_id`` if this process runs it: it ends, recorded with the outcome ``aborted``."""
    agent = RUNNING.get(run_id)
    if agent is not None:
        agent.abort()


@DBOS.workflow(name=WORKFLOW_NAME)
async def run_workflow(spec: dict[str, Any]) -> dict[str, Any]:
    """One durable run (see the module docstring); its id is ``DBOS.workflow_id``."""
    run_id = DBOS.workflow_id
    assert run_id is not None
    return await execute(RunSpec.from_dict(spec), run_id)


def _agent_for(spec: RunSpec) -> tuple[Agent, bool]:
    """The run's agent, and whether it was built for this run (its session is then closed after it)."""
    if spec.agent is None:
        return spec.build_agent(), True
    durable = AGENTS.get(spec.agent)
    if durable is None:
        raise LookupError(f"no durable agent named {spec.agent!r} in this process: make "
                          f"DurableAgent(..., name={spec.agent!r}) before launching")
    return durable.agent_for_run()


async def execute(spec: RunSpec, run_id: str) -> dict[str, Any]:
    """Run ``spec`` as run ``run_id``, in the workflow of that id."""
    agent, built = _agent_for(spec)
    token = uuid.uuid4().hex

    async def start() -> dict[str, Any]:
        return {"history": len(agent.history), "token": token}

    try:
        began = await DBOS.run_step_async({"name": START_STEP}, start)
        replaying = began["token"] != token
        kept = began["history"]
        written = max(0, len(agent.history) - kept) if replaying else 0
        if replaying:  # what the run wrote before is written again, in order, by this execution
            del agent.history[kept:]
        agent.run_steps = DurableSteps(run_id, replaying=replaying, written=written)
        listener = LISTENERS.get(run_id)
        unsubscribe = agent.subscribe(listener) if listener is not None else None
        RUNNING[run_id] = agent
        try:
            result = await agent.run(spec.prompt)
        finally:
            RUNNING.pop(run_id, None)
            agent.run_steps = None
            if unsubscribe is not None:
                unsubscribe()
    finally:
        if built and agent.session is not None:
            agent.session.close()
    return run_result_to_dict(result, run_id=run_id, session_id=agent.session_id if agent.session else None)
