"""Scale: the loop's per-turn cost and peak memory with many agents in one process, and with long transcripts.

The conversation is ``bench_loop``'s (OpenAI Chat Completions as JSON over an
``httpx.MockTransport``, turns of three parallel calls of a plain sync tool,
the mode a user gets by default). Three comparisons, each a ratio measured in
the same run:

* many agents: one agent, then 200 agents each on its own transport running
  at once under one event loop (``asyncio.gather`` of their runs), each
  ``TURNS`` turns. Per-turn cost is the CPU time (``time.process_time``, every
  thread) of the whole run divided by all the requests; peak memory is the
  peak traced by ``tracemalloc`` during the run, per agent. 200 agents should
  cost each turn what one does, and hold no more each.
* a long transcript: one 500-turn run, the CPU time of turns 11-20 against that
  of turns 491-500 (``time.process_time`` at each turn's start; the median over
  a few runs). The floor's own growth (it joins ever more message bytes per
  request) is printed beside it.
* memory of that 500-turn run: the agent's peak traced memory against the
  floor's, and the request bodies still alive after it (0: no request is kept).

Goals: 200 agents within 1.2x of one agent per turn and per agent's peak
memory; turn 500 within 1.2x of turn 20; the 500-turn run's peak memory within
2x of the floor's, with no request body left alive. ``BENCH_QUICK=1`` runs
smaller: a smoke test of the benchmark itself.
"""

from __future__ import annotations

import asyncio
import gc
import os
import statistics
import time
import tracemalloc
from collections.abc import Callable

from bench_loop import Server, _agent, _floor  # this folder is the script's: on the path first

QUICK = os.environ.get("BENCH_QUICK") == "1"
AGENTS = 40 if QUICK else 200
TURNS = 5 if QUICK else 10  # turns of each agent in the many-agents runs
LONG = 100 if QUICK else 500
SHORT, WINDOW = 20, 10
REPEATS = 1 if QUICK else 3
KIND = "plain"


def _load() -> str:
    return f"[load {os.getloadavg()[0]:.1f}]"


def _goal(what: str, ratio: float, most: float) -> None:
    print(f"  {what}: {ratio:.2f}x (goal <= {most:g}x): {'met' if ratio <= most else 'not met'}   {_load()}")


# -- many agents at once -------------------------------------------------------------


async def _together(count: int) -> None:
    agents = [_agent(Server(TURNS, "json"), KIND) for _ in range(count)]
    results = await asyncio.gather(*(agent.run("go") for agent in agents))
    assert all(result.outcome == "completed" for result in results), {result.outcome for result in results}


def _peak(run: Callable[[], object]) -> int:
    """The peak traced memory of ``run()``, above what was traced when it started."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        run()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def many_agents() -> None:
    asyncio.run(_together(2))  # warm up
    cost: dict[int, float] = {}
    for count in (1, AGENTS):
        runs = []
        for _ in range(REPEATS):
            started = time.process_time()
            asyncio.run(_together(count))
            runs.append((time.process_time() - started) / (count * (TURNS + 1)))
        cost[count] = statistics.median(runs)
    memory = {count: _peak(lambda c=count: asyncio.run(_together(c))) / count for count in (1, AGENTS)}
    print(f"  1 agent: CPU per turn {cost[1] * 1e6:.0f} us, peak memory {memory[1] / 1024:.0f} KiB; "
          f"{AGENTS} agents at once: {cost[AGENTS] * 1e6:.0f} us per turn, "
          f"{memory[AGENTS] / 1024:.0f} KiB peak per agent   {_load()}")
    _goal(f"{AGENTS} agents at once, CPU per turn to one agent's", cost[AGENTS] / cost[1], 1.2)
    _goal(f"{AGENTS} agents at once, peak memory per agent to one agent's", memory[AGENTS] / memory[1], 1.2)


# -- a long transcript ---------------------------------------------------------------


def _cpu_marks_agent() -> list[float]:
    agent = _agent(Server(LONG, "json"), KIND)
    marks: list[float] = []
    agent.subscribe(lambda event: marks.append(time.process_time()) if event.type == "turn_start" else None)
    result = agent.run_sync("go")
    assert result.outcome == "completed", result.error
    return marks


def _cpu_marks_floor() -> list[float]:
    marks: list[float] = []
    asyncio.run(_floor(Server(LONG, "json"), "json", "sync", marks, clock=time.process_time))
    return marks


def _window(marks: list[float], last_turn: int) -> float:
    """CPU seconds per turn over the ``WINDOW`` turns ending with turn ``last_turn`` (1-based)."""
    return (marks[last_turn] - marks[last_turn - WINDOW]) / WINDOW


def depth() -> None:
    agent_short, agent_long, floor_short, floor_long = [], [], [], []
    for _ in range(REPEATS):
        marks = _cpu_marks_agent()
        agent_short.append(_window(marks, SHORT))
        agent_long.append(_window(marks, LONG))
        marks = _cpu_marks_floor()
        floor_short.append(_window(marks, SHORT))
        floor_long.append(_window(marks, LONG))
    short, long = statistics.median(agent_short), statistics.median(agent_long)
    floor_growth = statistics.median(floor_long) / statistics.median(floor_short)
    print(f"  one {LONG}-turn run: CPU per turn {short * 1e6:.0f} us at turn {SHORT}, {long * 1e6:.0f} us at turn "
          f"{LONG} (the floor's grows {floor_growth:.2f}x)   {_load()}")
    _goal(f"turn {LONG} to turn {SHORT}, CPU per turn", long / short, 1.2)


def memory() -> None:
    server = Server(LONG, "json", watch=True)
    agent = _agent(server, KIND)
    gc.collect()
    gc.disable()  # only reference counting frees now: a body kept by a reference cycle stays counted
    try:
        agent.run_sync("go")
        alive = server.alive()
    finally:
        gc.enable()
    del agent, server
    agent = _agent(Server(LONG, "json"), KIND)
    agent_peak = _peak(lambda: agent.run_sync("go"))
    floor_server = Server(LONG, "json")
    floor_peak = _peak(lambda: asyncio.run(_floor(floor_server, "json", "sync", [])))
    print(f"  one {LONG}-turn run: peak memory {agent_peak / 1024:.0f} KiB, floor {floor_peak / 1024:.0f} KiB; "
          f"request bodies alive after it: {alive}   {_load()}")
    _goal(f"{LONG}-turn run, peak memory to the floor's", agent_peak / floor_peak, 2.0)
    print(f"  {LONG}-turn run, request bodies alive after it: {alive} (goal <= 0): "
          f"{'met' if alive == 0 else 'not met'}   {_load()}")


def main() -> None:
    print(f"scale: openai-completions JSON, 3 parallel calls of a plain sync tool a turn; "
          f"{AGENTS} agents of {TURNS} turns; transcripts of {LONG} turns; medians of {REPEATS} runs")
    many_agents()
    depth()
    memory()


if __name__ == "__main__":
    main()
