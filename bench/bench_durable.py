"""Durable runs: what checkpointing costs a step and a run, against DBOS itself and pydantic-ai's DBOSAgent.

One scripted conversation, 20 turns of three tool calls then a final answer
(21 model requests, 60 tool calls: the conversation the cost goal names), played
on SQLite and on PostgreSQL (a throwaway server started here). Every figure is a
difference or a ratio measured in the same run, so the machine's speed cancels out:

* the bare DBOS step: a DBOS workflow whose 81 async steps return what our
  model-request and tool-call steps return (an assistant message with three tool
  calls; a tool result), minus the same coroutines called without DBOS: the cost
  of one step, the floor;
* ours: ``DurableAgent`` over the scripted provider, minus the same ``Agent``
  run not durable, per step (goal: within 1.3x of the bare step) and per run;
* pydantic-ai: ``DBOSAgent`` over a ``FunctionModel`` playing the same
  conversation, minus the same agent not durable (goal: our whole-run overhead
  below its, although we checkpoint every tool call and it runs function tools
  inline, unchecked);
* throughput: runs per second of 1, 2 and 4 ``agentkit worker`` processes on one
  PostgreSQL, draining a queue of runs.

Each measure runs in a process of its own (DBOS is one instance per process).
Times are the fastest of a few repeats: on a shared machine noise only ever adds
time. pydantic-ai comes from the ``bench`` dependency group, which ``make bench``
installs (never ``make test``): without it its figure is left out, and says so.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _postgres import fresh_database, postgres

TURNS = 20
CALLS = 3
STEPS = TURNS + 1 + TURNS * CALLS  # 21 model requests, 60 tool calls
QUICK = "--quick" in sys.argv or os.environ.get("BENCH_QUICK") == "1"
REPEATS = 2 if QUICK else 5
STEP_GOAL = 1.3
HERE = Path(__file__).resolve()


# -- what the steps carry ------------------------------------------------------------


def _payloads() -> tuple[dict[str, Any], dict[str, Any]]:
    """A model request's answer and a tool call's result, as the durable run checkpoints them."""
    from agentkit.plugin_api import (
        AssistantMessage,
        StopReason,
        TextBlock,
        ToolResultMessage,
        ToolUseBlock,
        Usage,
    )

    calls = [ToolUseBlock(f"call_0_{i}", "work", f'{{"n": {i}}}') for i in range(CALLS)]
    answer = AssistantMessage(list(calls), StopReason.TOOL_USE, "tool_use", provider="faux", api="faux",
                              model="scripted", usage=Usage(input=900, output=30))
    result = ToolResultMessage("call_0_0", "work", [TextBlock('{"ok": true, "data": 0}')])
    return answer.to_dict(), result.to_dict()


def _best(run: Callable[[], Awaitable[Any]]) -> float:
    """The fastest of ``REPEATS`` runs of ``run()``, in seconds (after one to warm up)."""

    async def timed() -> float:
        await run()
        times = []
        for _ in range(REPEATS):
            started = time.perf_counter()
            await run()
            times.append(time.perf_counter() - started)
        return min(times)

    return asyncio.run(timed())


def _launch(url: str, name: str) -> Any:
    from dbos import DBOS

    DBOS(config={"name": name, "system_database_url": url, "log_level": "WARNING"})
    return DBOS


# -- the children: one measure each, in a process of its own ---------------------------


def bare(url: str) -> dict[str, float]:
    """The bare DBOS step: a workflow of the conversation's 81 steps, against the same calls without DBOS."""
    answer, result = _payloads()

    async def model() -> dict[str, Any]:
        return answer

    async def tool() -> dict[str, Any]:
        return result

    dbos = _launch(url, "bench-bare")
    model_step = dbos.step(name="model_request")(model)
    tool_step = dbos.step(name="tool_call")(tool)

    async def conversation(request: Callable[[], Awaitable[Any]], call: Callable[[], Awaitable[Any]]) -> None:
        for _ in range(TURNS):
            await request()
            for _ in range(CALLS):
                await call()
        await request()

    @dbos.workflow(name="bench.bare")
    async def durable() -> None:
        await conversation(model_step, tool_step)

    dbos.launch()
    try:
        durable_s = _best(durable)
        plain_s = _best(lambda: conversation(model, tool))
    finally:
        dbos.destroy()
    return {"step_ms": (durable_s - plain_s) / STEPS * 1000}


def pydantic(url: str) -> dict[str, float]:
    """pydantic-ai's DBOSAgent over a FunctionModel playing the conversation, against the same agent."""
    import warnings

    try:
        from pydantic_ai import Agent
        from pydantic_ai.durable_exec.dbos import DBOSAgent
        from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
        from pydantic_ai.models.function import AgentInfo, FunctionModel
    except ImportError:
        return {}

    def script(messages: list[Any], info: AgentInfo) -> ModelResponse:
        turn = sum(isinstance(message, ModelResponse) for message in messages)
        if turn < TURNS:
            return ModelResponse(parts=[ToolCallPart("work", {"n": i}, tool_call_id=f"call_{turn}_{i}")
                                        for i in range(CALLS)])
        return ModelResponse(parts=[TextPart("done")])

    dbos = _launch(url, "bench-pydantic-ai")
    agent = Agent(FunctionModel(script), name="bench", instructions="You are a benchmark.")

    @agent.tool_plain
    async def work(n: int) -> int:
        """Return n."""
        return n

    with warnings.catch_warnings():
        # DBOSAgent is what the cost goal names; pydantic-ai now steers users to a capability instead.
        warnings.simplefilter("ignore")
        durable = DBOSAgent(agent)
    dbos.launch()

    async def checked(run: Callable[[str], Awaitable[Any]]) -> None:
        outcome = await run("go")
        assert outcome.output == "done" and len(outcome.all_messages()) == 2 * (TURNS + 1), outcome

    try:
        durable_s = _best(lambda: checked(durable.run))
        plain_s = _best(lambda: checked(agent.run))
    finally:
        dbos.destroy()
    return {"run_ms": (durable_s - plain_s) * 1000}


CHILDREN: dict[str, Callable[[str], dict[str, float]]] = {"bare": bare, "pydantic": pydantic}


def _child(kind: str, url: str) -> dict[str, float]:
    """Run one measure in a fresh process; its figures come back as the last line of its output."""
    done = subprocess.run([sys.executable, str(HERE), "--child", kind, url], capture_output=True, text=True,
                          check=False, timeout=900)
    if done.returncode:
        raise SystemExit(f"the {kind} measure failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _goal(met: bool) -> str:
    return "met" if met else "not met"


def _databases(pg_url: str, folder: Path) -> dict[str, Callable[[str], str]]:
    return {
        "sqlite": lambda name: "sqlite:///" + str(folder / f"{name}.sqlite"),
        "postgresql": lambda name: fresh_database(pg_url, name.replace("-", "_")),
    }


def main() -> dict[str, float]:
    figures: dict[str, float] = {}
    print(f"durable: {TURNS + 1} model requests and {TURNS * CALLS} tool calls per run, scripted; "
          f"the fastest of {REPEATS} runs, each measure in a process of its own")
    with postgres() as pg_url, tempfile.TemporaryDirectory(prefix="agentkit-bench-durable-") as folder:
        for backend, database in _databases(pg_url, Path(folder)).items():
            step = _child("bare", database("bare"))["step_ms"]
            figures[f"{backend}_bare_step_ms"] = step
            print(f"  {backend:10} bare DBOS step: {step:.2f} ms")
            theirs = _child("pydantic", database("pydantic")).get("run_ms")
            if theirs is None:
                print(f"  {backend:10} pydantic-ai DBOSAgent: not measured (pydantic-ai is not installed; "
                      "`make bench` installs it)")
            else:
                figures[f"{backend}_pydantic_run_ms"] = theirs
                print(f"  {backend:10} pydantic-ai DBOSAgent: +{theirs:.0f} ms per run (its function tools "
                      "are not steps)")
    return figures


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(CHILDREN[sys.argv[2]](sys.argv[3])))
    else:
        main()
