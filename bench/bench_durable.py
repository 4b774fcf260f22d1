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
import signal
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
THROUGHPUT_RUNS = 20 if QUICK else 60
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


def _timed(kinds: dict[str, Callable[[], Awaitable[Any]]]) -> dict[str, float]:
    """The fastest of ``REPEATS`` runs of each kind, in seconds, the kinds interleaved (after one to warm up).

    Interleaved, so that a burst of load on a shared machine falls on every kind alike.
    """

    async def timed() -> dict[str, float]:
        best = dict.fromkeys(kinds, float("inf"))
        for repeat in range(REPEATS + 1):
            for kind, run in kinds.items():
                started = time.perf_counter()
                await run()
                if repeat:
                    best[kind] = min(best[kind], time.perf_counter() - started)
        return best

    return asyncio.run(timed())


# -- the three workloads: a bare DBOS workflow, ours, pydantic-ai's ---------------------


def _bare() -> dict[str, Callable[[], Awaitable[Any]]]:
    """The conversation's 81 steps as a bare DBOS workflow, and the same coroutines without DBOS."""
    from dbos import DBOS

    answer, result = _payloads()

    async def model() -> dict[str, Any]:
        return answer

    async def tool() -> dict[str, Any]:
        return result

    model_step = DBOS.step(name="bench.model_request")(model)
    tool_step = DBOS.step(name="bench.tool_call")(tool)

    async def conversation(request: Callable[[], Awaitable[Any]], call: Callable[[], Awaitable[Any]], *,
                           together: bool = True) -> None:
        for _ in range(TURNS):
            await request()
            if together:  # a turn's calls run together, as ours do
                await asyncio.gather(*(call() for _ in range(CALLS)))
            else:
                for _ in range(CALLS):
                    await call()
        await request()

    @DBOS.workflow(name="bench.bare")
    async def durable() -> None:
        await conversation(model_step, tool_step)

    @DBOS.workflow(name="bench.bare_one_at_a_time")
    async def one_at_a_time() -> None:
        await conversation(model_step, tool_step, together=False)

    return {"bare": durable, "bare_one_at_a_time": one_at_a_time, "bare_plain": lambda: conversation(model, tool)}


def _conversation() -> list[Any]:
    from agentkit.testing import Turn, text, tool_call

    return [*(Turn([tool_call("work", {"n": i}) for i in range(CALLS)]) for _ in range(TURNS)), Turn([text("done")])]


def _agent_factory() -> Callable[[], Any]:
    """A function building a fresh agent over the scripted conversation, with the async tool ``work``."""
    from agentkit.host import Agent, AgentConfig, Connection, Limits, PluginHost, Trust, allow_all
    from agentkit.plugin_api import Tool, hookimpl
    from agentkit.testing import Script

    async def work(n: int) -> int:
        """Return n."""
        return n

    class Tools:
        @hookimpl
        def agentkit_register_tools(self, register: Any) -> None:
            register(Tool.from_function(work))

    host = PluginHost.discover()
    host.register(Tools(), name="bench-durable")

    def build() -> Any:
        config = AgentConfig(model="faux/scripted", tools=["work"], system_prompt="You are a benchmark.",
                             limits=Limits(max_turns=None), trust=Trust(before_tool_call=allow_all),
                             connection=Connection(transport=Script(_conversation())))
        return Agent(config, host=host)

    return build


def _ours() -> dict[str, Callable[[], Awaitable[Any]]]:
    """Our DurableAgent on the conversation, and the same agent's run not durable."""
    from agentkit_durable import DurableAgent

    build = _agent_factory()
    durable = DurableAgent(build, name="bench")

    async def checked(run: Callable[[str], Awaitable[Any]]) -> None:
        result = await run("go")
        assert result.outcome == "completed" and result.turns == TURNS + 1, (result.outcome, result.error)

    return {"ours": lambda: checked(durable.run), "ours_plain": lambda: checked(build().run)}


def _pydantic() -> dict[str, Callable[[], Awaitable[Any]]]:
    """pydantic-ai's DBOSAgent over a FunctionModel playing the conversation, and the same agent; {} without it."""
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

    async def work(n: int) -> int:
        """Return n."""
        return n

    def build() -> Any:
        agent = Agent(FunctionModel(script), name="bench", instructions="You are a benchmark.")
        agent.tool_plain(work)
        return agent

    with warnings.catch_warnings():
        # DBOSAgent is what the cost goal names; pydantic-ai now steers users to a capability instead.
        warnings.simplefilter("ignore")
        durable = DBOSAgent(build())
    plain = build()  # an agent DBOSAgent never wrapped: nothing of DBOS reaches its run

    async def checked(run: Callable[[str], Awaitable[Any]]) -> None:
        outcome = await run("go")
        assert outcome.output == "done" and len(outcome.all_messages()) == 2 * (TURNS + 1), outcome

    return {"pydantic": lambda: checked(durable.run), "pydantic_plain": lambda: checked(plain.run)}


def overheads(url: str) -> dict[str, float]:
    """Every overhead on one system database, in this process: seconds of each kind, durable and plain.

    The bare workflow, ours and pydantic-ai's run on the one database ``launch`` prepared (on SQLite:
    in WAL mode, synchronous FULL), so each is measured with the same settings.
    """
    import agentkit_durable

    kinds = {**_bare(), **_ours(), **_pydantic()}  # workflows are declared before DBOS launches
    agentkit_durable.launch(url)
    try:
        return _timed(kinds)
    finally:
        agentkit_durable.shutdown()


# -- throughput: N worker processes draining one queue -----------------------------------


def throughput(url: str, workers: int, runs: int, folder: Path) -> float:
    """Runs per second of ``workers`` ``agentkit worker`` processes draining ``runs`` queued runs."""
    from agentkit_durable import WORKFLOW_NAME, RunSpec, submit
    from dbos import DBOSClient

    from agentkit.testing import Turn, text, tool_call, write_script

    script = write_script(folder / "throughput.json", [Turn([tool_call("list_files", {"path": "."})] * CALLS),
                                                       Turn([text("done")])])
    command = [str(Path(sys.executable).with_name("agentkit")), "worker", "--db", url, "--concurrency", "8"]
    env = {**os.environ, "AGENTKIT_DATA_DIR": str(folder / "data")}
    processes = [subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
                 for _ in range(workers)]
    try:
        for process in processes:  # each says when it takes runs: the clock starts once all do
            assert process.stderr is not None
            for line in process.stderr:
                if "taking runs" in line:
                    break
        spec = RunSpec(prompt="list", model="faux/scripted", root=str(folder), script=str(script))
        client = DBOSClient(system_database_url=url)
        started = time.perf_counter()
        submit([spec] * runs, url)
        while client.list_workflows(name=WORKFLOW_NAME, status="SUCCESS", load_input=False,
                                    load_output=False).__len__() < runs:
            gone = [process for process in processes if process.poll() is not None]
            if gone:  # the queue would never drain: say why instead of waiting for ever
                assert gone[0].stderr is not None
                raise SystemExit(f"a worker exited ({gone[0].returncode}) before the queue drained:\n"
                                 + gone[0].stderr.read()[-3000:])
            time.sleep(0.05)
        elapsed = time.perf_counter() - started
        client.destroy()
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            process.wait(120)
    return runs / elapsed


def _child(url: str) -> dict[str, float]:
    """Measure the overheads in a fresh process; its figures come back as the last line of its output."""
    done = subprocess.run([sys.executable, str(HERE), "--child", url], capture_output=True, text=True,
                          check=False, timeout=1800)
    if done.returncode:
        raise SystemExit(f"the durable measure failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _goal(met: bool) -> str:
    return "met" if met else "not met"


def _report(backend: str, times: dict[str, float]) -> dict[str, float]:
    bare_step = (times["bare"] - times["bare_plain"]) / STEPS * 1000
    sequential = (times["bare_one_at_a_time"] - times["bare_plain"]) / STEPS * 1000
    run_ms = (times["ours"] - times["ours_plain"]) * 1000
    step = run_ms / STEPS
    ratio = step / bare_step
    figures = {f"{backend}_bare_step_ms": bare_step, f"{backend}_bare_sequential_step_ms": sequential,
               f"{backend}_step_ms": step, f"{backend}_step_ratio": ratio, f"{backend}_run_ms": run_ms}
    print(f"  {backend:10} per step: ours +{step:.2f} ms over the run not durable, bare DBOS step "
          f"{bare_step:.2f} ms -> {ratio:.2f}x (goal <= {STEP_GOAL}x: {_goal(ratio <= STEP_GOAL)}); a bare step "
          f"with no other step at the same time: {sequential:.2f} ms")
    if "pydantic" not in times:
        print(f"  {backend:10} per run: ours +{run_ms:.0f} ms; pydantic-ai DBOSAgent not measured "
              "(pydantic-ai is not installed: `make bench` installs it)")
        return figures
    theirs = (times["pydantic"] - times["pydantic_plain"]) * 1000
    figures[f"{backend}_pydantic_run_ms"] = theirs
    print(f"  {backend:10} per run: ours +{run_ms:.0f} ms (every tool call a step), pydantic-ai DBOSAgent "
          f"+{theirs:.0f} ms (function tools inline) -> {run_ms / theirs:.2f}x (goal < 1x: {_goal(run_ms < theirs)})")
    return figures


def main() -> dict[str, float]:
    figures: dict[str, float] = {}
    print(f"durable: {TURNS + 1} model requests and {TURNS * CALLS} tool calls per run, scripted; the fastest "
          f"of {REPEATS} runs of each, interleaved, in a process of its own per database")
    with postgres() as pg_url, tempfile.TemporaryDirectory(prefix="agentkit-bench-durable-") as name:
        folder = Path(name)
        databases = {"sqlite": "sqlite:///" + str(folder / "durable.sqlite"),
                     "postgresql": fresh_database(pg_url, "overheads")}
        for backend, url in databases.items():
            figures.update(_report(backend, _child(url)))
        rates = {}
        for workers in (1, 2, 4):
            rates[workers] = throughput(fresh_database(pg_url, f"throughput{workers}"), workers, THROUGHPUT_RUNS,
                                        folder)
            figures[f"postgresql_runs_per_s_{workers}"] = rates[workers]
        print(f"  postgresql throughput ({THROUGHPUT_RUNS} queued runs of {CALLS} tool calls, 8 at once per worker): "
              + ", ".join(f"{workers} worker{'s' if workers > 1 else ''} {rate:.1f} runs/s ({rate / rates[1]:.2f}x)"
                          for workers, rate in rates.items()))
    return figures


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(overheads(sys.argv[2])))
    else:
        main()
