"""``DurableAgent``: an agent whose runs are DBOS workflows, recovered by any process on the same database."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dbos import DBOS, SetWorkflowID

from ._results import run_result_from_dict
from ._spec import RunSpec
from ._workflow import AGENTS, LISTENERS, run_workflow

if TYPE_CHECKING:
    from agentkit.host import Agent, RunResult
    from agentkit.plugin_api import Event

__all__ = ["DurableAgent", "start_run"]


class DurableAgent:
    """Runs an agent durably: each run is the workflow ``agentkit.run``, each model request and tool call a step.

    :param agent: the agent, or a function of no arguments that builds it. A
        process that recovers a run must build the same agent (same model,
        tools and session), so make the ``DurableAgent`` before
        :func:`~agentkit_durable.launch`, at import time, in every process
        that may run or recover its runs. A function builds a fresh agent per
        run (and so runs may overlap); an agent is reused, one run at a time.
    :param name: what the run spec calls this agent (``RunSpec.agent``): unique in the process; a
        later ``DurableAgent`` of the same name takes its place.
    """

    def __init__(self, agent: Agent | Callable[[], Agent], *, name: str = "agent") -> None:
        self.name = name
        self._agent = agent
        AGENTS[name] = self

    def agent_for_run(self) -> tuple[Agent, bool]:
        """The agent a run of this durable agent uses, and whether it was built for the run."""
        from agentkit.host import Agent

        if isinstance(self._agent, Agent):
            return self._agent, False
        return self._agent(), True

    async def run(self, prompt: str, *, run_id: str | None = None,
                  on_event: Callable[[Event], object] | None = None) -> RunResult[Any]:
        """Run ``prompt`` durably as run ``run_id`` (default: a new id) and return its result.

        A run id that already finished gives its recorded result without running again.
        ``on_event`` is told the run's events in this process (not those of a replay).
        Needs DBOS launched in this process (:func:`~agentkit_durable.launch`).
        """
        data = await start_run(RunSpec(prompt=prompt, agent=self.name), run_id=run_id, on_event=on_event)
        return run_result_from_dict(data)

    def run_sync(self, prompt: str, *, run_id: str | None = None) -> RunResult[Any]:
        """``run`` for code that is not async."""
        return asyncio.run(self.run(prompt, run_id=run_id))


async def start_run(spec: RunSpec, *, run_id: str | None = None,
                    on_event: Callable[[Event], object] | None = None) -> dict[str, Any]:
    """Start the run ``spec`` describes as workflow ``run_id`` and wait for its result (as a dict).

    :param on_event: told every event of the run while it runs in this process.
    """
    run_id = run_id or uuid.uuid4().hex
    if on_event is not None:
        LISTENERS[run_id] = on_event
    try:
        with SetWorkflowID(run_id):
            handle = await DBOS.start_workflow_async(run_workflow, spec.to_dict())
        result: dict[str, Any] = await handle.get_result()
        return result
    finally:
        LISTENERS.pop(run_id, None)
