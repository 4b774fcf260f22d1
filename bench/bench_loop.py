"""The agent loop's per-turn cost in the mode a user gets by default, against the floor: a bare asyncio loop.

One scripted conversation (turns of parallel tool calls, then a final answer)
is played by an ``httpx.MockTransport`` speaking OpenAI Chat Completions,
either as a whole JSON response or as an SSE stream. Two loops drive it in the
same process:

* the agent, through the real ``openai-completions`` provider and the host's
  provider runtime, with everything a real run does (hooks, authorization,
  strict JSON, argument validation, output policing, events, the result);
* the floor: a plain ``async`` loop that keeps each message as the bytes it
  was serialized to once, POSTs their join through one ``httpx.AsyncClient``
  over the same transport, and reads the reply with ``json.loads`` (the JSON
  mode) or splits the SSE body with ``bytes.split`` and ``json.loads`` each
  data line (the streaming mode). Its tools are called directly (sync) or
  gathered (async).

The agent's tool is what a user writes: a plain ``def`` (which the host runs
in a worker thread) or a plain ``async def``; a tool declared ``INLINE`` is a
row of its own. A last row has 50 parallel sync calls per turn, against the
floor gathering 50 async calls.

Two figures per row, each a ratio to the floor measured in the same run:

* CPU time per turn: ``time.process_time`` (every thread of the process) of
  whole runs of ``TURNS`` turns, the median of ``REPEATS`` runs, agent and
  floor runs taking turns so that a change in the machine's load weighs on
  both; divided by the run's requests.
* user-space instructions per turn, counted by valgrind's callgrind (a loaded
  machine does not disturb a count): one process under callgrind runs every
  row; each measured run is wrapped in a ``functools.reduce`` call, the
  marker ``--dump-before``/``--dump-after`` split the counts at, and a turn's
  instructions are the difference between a run of ``COUNT_TURNS[1]`` and one
  of ``COUNT_TURNS[0]`` turns, divided by the turns between them (what a run
  costs once cancels out). Before each measured run the heap is collected
  and frozen (``gc.freeze``), so a full collection costs the run's own
  garbage only. Without valgrind, ``perf stat -e instructions:u`` counts
  whole processes of one run each (the short run's process subtracted from
  the long one's), where the kernel gives that counter (most virtual
  machines do not). With neither, the bench says so and judges the goals by
  CPU time.

Goals (judged on instructions): JSON with a plain sync tool within 1.5x of
the floor, SSE with a plain sync tool within 1.7x of the SSE floor, 50 parallel
sync calls per turn within 2x of the floor gathering 50 async calls. Each is
printed on one line with the load average beside it, which ``make bench``
collects. Depth (turn 500 against turn 20), memory and many agents at once are
``bench_scale.py``'s.

``BENCH_QUICK=1`` (which ``bench/run.py --quick`` sets) runs fewer and
shorter runs: a smoke test of the benchmark itself.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from agentkit_provider_openai import OpenAICompletions

from agentkit.host import Agent, AgentConfig, Connection, Limits, PluginHost, Trust, allow_all
from agentkit.plugin_api import ExecutionMode, Tool, hookimpl

QUICK = "--quick" in sys.argv or os.environ.get("BENCH_QUICK") == "1"
CALLS = 3
TURNS = 12 if QUICK else 40  # turns of each CPU-timed run
REPEATS = 3 if QUICK else 7  # CPU-timed runs of each loop per row (the median is kept)
COUNT_TURNS = (4, 12) if QUICK else (10, 30)  # the two runs whose instruction counts are subtracted
URL = "https://api.openai.com/v1/chat/completions"
MODEL = "gpt-4.1"
VALGRIND = "/usr/bin/valgrind"
os.environ["OPENAI_API_KEY"] = "sk-bench-not-a-real-key"


def work(n: int) -> int:
    """Return n."""
    return n


async def work_async(n: int) -> int:
    """Return n."""
    return n


def _tool(kind: str) -> Tool:
    """The agent's tool: ``plain`` a plain sync function, ``async`` an async one, ``inline`` (or ``sync``,
    what the name meant before the default mode was measured) a sync function declared ``INLINE``."""
    if kind == "async":
        return Tool.from_function(work_async, name="work")
    if kind == "plain":
        return Tool.from_function(work)
    # A sync handler that says it is cheap runs on the loop's thread, as the floor's does.
    return Tool.from_function(work, execution_mode=getattr(ExecutionMode, "INLINE", ExecutionMode.PARALLEL))


# -- the scripted server --------------------------------------------------------------


def _calls(turn: int, calls: int = CALLS) -> list[dict[str, Any]]:
    return [
        {"id": f"call_{turn}_{i}", "type": "function", "function": {"name": "work", "arguments": f'{{"n": {i}}}'}}
        for i in range(calls)
    ]


_USAGE = {"prompt_tokens": 900, "completion_tokens": 30}


def _whole(turn: int, last: bool, calls: int = CALLS) -> bytes:
    message: dict[str, Any] = {"role": "assistant", "content": "done" if last else None}
    if not last:
        message["tool_calls"] = _calls(turn, calls)
    body = {
        "id": f"chatcmpl-{turn}", "object": "chat.completion", "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop" if last else "tool_calls"}],
        "usage": _USAGE,
    }
    return json.dumps(body).encode()


def _streamed(turn: int, last: bool, calls: int = CALLS) -> bytes:
    def chunk(delta: dict[str, Any] | None, finish: str | None = None, **top: Any) -> bytes:
        choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
        data = {"id": f"chatcmpl-{turn}", "object": "chat.completion.chunk", "model": MODEL,
                "choices": choices, **top}
        return b"data: " + json.dumps(data).encode() + b"\n\n"

    parts = [chunk({"role": "assistant", "content": ""})]
    if last:
        parts.append(chunk({"content": "done"}))
    else:
        for index, call in enumerate(_calls(turn, calls)):
            start = {"index": index, "id": call["id"], "type": "function",
                     "function": {"name": "work", "arguments": ""}}
            parts.append(chunk({"tool_calls": [start]}))
            piece = {"index": index, "function": {"arguments": call["function"]["arguments"]}}
            parts.append(chunk({"tool_calls": [piece]}))
    parts.append(chunk({}, "stop" if last else "tool_calls"))
    parts.append(chunk(None, usage=_USAGE))
    parts.append(b"data: [DONE]\n\n")
    return b"".join(parts)


class Server:
    """The mock transport's handler: answer ``turns`` tool-call turns, then the final text.

    Both loops are served the same bytes, prepared before the clock starts. The
    request's body is kept by weak reference only when ``watch`` is on, to count
    the ones still alive after the run.
    """

    def __init__(self, turns: int, mode: str, *, watch: bool = False, calls: int = CALLS) -> None:
        render = _streamed if mode == "sse" else _whole
        self.replies = [render(turn, turn == turns, calls) for turn in range(turns + 1)]
        self.headers = {"content-type": "text/event-stream" if mode == "sse" else "application/json"}
        self.turn = 0
        self.requests: list[weakref.ref[httpx.Request]] | None = [] if watch else None
        self.transport = httpx.MockTransport(self)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if self.requests is not None:
            self.requests.append(weakref.ref(request))
        reply = self.replies[self.turn]
        self.turn += 1
        return httpx.Response(200, headers=self.headers, content=reply)

    def alive(self) -> int:
        return sum(ref() is not None for ref in self.requests or ())


# -- the agent -----------------------------------------------------------------------


class _Plugin:
    def __init__(self, tool: Tool) -> None:
        self.tool = tool

    @hookimpl
    def agentkit_register_tools(self, register: Any) -> None:
        register(self.tool)

    @hookimpl
    def agentkit_register_providers(self, register: Any) -> None:
        register(OpenAICompletions())


def _agent(server: Server, kind: str) -> Agent:
    host = PluginHost()
    host.register(_Plugin(_tool(kind)), name="bench")
    config = AgentConfig(model=f"openai/{MODEL}", tools=["work"], system_prompt="You are a benchmark.",
                         limits=Limits(max_turns=None), trust=Trust(before_tool_call=allow_all),
                         connection=Connection(transport=server.transport))
    return Agent(config, host=host)


def agent_marks(turns: int, mode: str, kind: str) -> list[float]:
    """When each turn of one run started, and when the run ended (``time.perf_counter``).

    ``kind`` is a tool kind of :func:`_tool`; ``sync`` is the ``INLINE`` tool, as it always was here.
    """
    agent = _agent(Server(turns, mode), kind)
    marks: list[float] = []
    agent.subscribe(lambda event: marks.append(time.perf_counter()) if event.type == "turn_start" else None)
    result = agent.run_sync("go")
    marks.append(time.perf_counter())
    assert result.outcome == "completed" and result.turns == turns + 1, (result.outcome, result.error)
    return marks


# -- the floor -----------------------------------------------------------------------


def _floor_tools() -> bytes:
    spec = _tool("sync")
    return json.dumps([{"type": "function", "function": {
        "name": spec.name, "description": spec.description, "parameters": spec.input_schema}}]).encode()


async def _floor(server: Server, mode: str, kind: str, marks: list[float],
                 clock: Callable[[], float] = time.perf_counter) -> None:
    """The least a loop can do over the same wire: what the agent is compared with.

    ``marks`` gets ``clock()`` at each turn's start and at the end.
    """
    tools = _floor_tools()
    tail = b',"tools":' + tools + (b',"stream":true}' if mode == "sse" else b',"stream":false}')
    messages = [json.dumps({"role": "system", "content": "You are a benchmark."}).encode(),
                json.dumps({"role": "user", "content": "go"}).encode()]
    headers = {"authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "content-type": "application/json"}
    async with httpx.AsyncClient(transport=server.transport) as client:
        while True:
            marks.append(clock())
            body = b'{"model":"' + MODEL.encode() + b'","messages":[' + b",".join(messages) + b"]" + tail
            if mode == "sse":
                calls, text = _read_sse(await _streamed_body(client, body, headers))
            else:
                response = await client.post(URL, content=body, headers=headers)
                message = json.loads(response.content)["choices"][0]["message"]
                calls, text = message.get("tool_calls") or [], message.get("content")
            del body
            assistant: dict[str, Any] = {"role": "assistant", "content": text}
            if calls:
                assistant["tool_calls"] = calls
            messages.append(json.dumps(assistant).encode())
            if not calls:
                marks.append(clock())
                return
            arguments = [json.loads(call["function"]["arguments"]) for call in calls]
            if kind == "async":
                results = await asyncio.gather(*(work_async(**args) for args in arguments))
            else:
                results = [work(**args) for args in arguments]
            for call, result in zip(calls, results, strict=True):
                content = json.dumps({"ok": True, "data": result})
                messages.append(json.dumps({"role": "tool", "tool_call_id": call["id"], "content": content}).encode())


async def _streamed_body(client: httpx.AsyncClient, body: bytes, headers: dict[str, str]) -> list[bytes]:
    lines: list[bytes] = []
    rest = b""
    async with client.stream("POST", URL, content=body, headers=headers) as response:
        async for chunk in response.aiter_bytes():
            *complete, rest = (rest + chunk).split(b"\n")
            lines += complete
    return lines


def _read_sse(lines: list[bytes]) -> tuple[list[dict[str, Any]], str | None]:
    calls: dict[int, dict[str, Any]] = {}
    text: list[str] = []
    for line in lines:
        if not line.startswith(b"data: ") or line == b"data: [DONE]":
            continue
        for choice in json.loads(line[6:])["choices"]:
            delta = choice["delta"]
            if delta.get("content"):
                text.append(delta["content"])
            for piece in delta.get("tool_calls") or ():
                call = calls.setdefault(piece["index"], {"type": "function", "function": {"arguments": ""}})
                if "id" in piece:
                    call["id"], call["function"]["name"] = piece["id"], piece["function"]["name"]
                call["function"]["arguments"] += piece.get("function", {}).get("arguments", "")
    return [calls[index] for index in sorted(calls)], "".join(text) or None


def floor_marks(turns: int, mode: str, kind: str, server: Server | None = None) -> list[float]:
    marks: list[float] = []
    asyncio.run(_floor(server or Server(turns, mode), mode, kind, marks))
    return marks


# -- the rows -------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One comparison: the agent with a tool of ``agent_kind`` against the floor calling its tools ``floor_kind``."""

    label: str
    mode: str  # "json" or "sse"
    agent_kind: str  # a kind of _tool
    floor_kind: str  # "sync" (called in turn) or "async" (gathered)
    calls: int = CALLS
    goal: float | None = None  # the most the agent's instructions per turn may be, as a multiple of the floor's


ROWS = (
    Row("json, plain sync tool", "json", "plain", "sync", goal=1.5),
    Row("json, plain async tool", "json", "async", "async"),
    Row("sse, plain sync tool", "sse", "plain", "sync", goal=1.7),
    Row("sse, plain async tool", "sse", "async", "async"),
    Row("json, INLINE sync tool", "json", "inline", "sync"),
    Row("json, 50 parallel sync calls (floor: 50 async gathered)", "json", "plain", "async", calls=50, goal=2.0),
)


def agent_run(row: Row, turns: int) -> Callable[[], object]:
    """One whole agent run of ``turns`` tool turns and the final answer, ready to start."""
    agent = _agent(Server(turns, row.mode, calls=row.calls), row.agent_kind)

    def run() -> object:
        result = agent.run_sync("go")
        assert result.outcome == "completed" and result.turns == turns + 1, (result.outcome, result.error)
        return result

    return run


def floor_run(row: Row, turns: int) -> Callable[[], object]:
    """One whole floor run of the same conversation, ready to start."""
    server = Server(turns, row.mode, calls=row.calls)
    return lambda: asyncio.run(_floor(server, row.mode, row.floor_kind, []))


def _settle() -> None:
    """Collect, then freeze what survives: a full collection's cost is then the run's garbage, not the
    size of the heap the imports and earlier rows left (which made counts jump by millions)."""
    gc.collect()
    gc.freeze()


#: Warm-up runs of each row before any is measured. A dataclass of the plugin API fills its first instances
#: field by field and compiles its ``__init__`` after a few (``agentkit.plugin_api._dataclass``): a class made
#: once per run must be past that before a run is measured, or its compiling is counted as a turn's cost.
WARM_RUNS = 20


def warm_up(row: Row) -> None:
    """Run the row's agent and floor until every class they make has its compiled ``__init__``."""
    for _ in range(WARM_RUNS):
        agent_run(row, 1)(), floor_run(row, 1)()


def _cpu(run: Callable[[], object]) -> float:
    started = time.process_time()
    run()
    return time.process_time() - started


def cpu_per_turn(row: Row) -> tuple[float, float]:
    """Median CPU seconds per request of whole ``TURNS``-turn runs: (agent, floor), runs interleaved."""
    warm_up(row)
    _settle()
    agent, floor = [], []
    for _ in range(REPEATS):
        agent.append(_cpu(agent_run(row, TURNS)) / (TURNS + 1))
        floor.append(_cpu(floor_run(row, TURNS)) / (TURNS + 1))
    return statistics.median(agent), statistics.median(floor)


# -- instruction counts --------------------------------------------------------------


_REDUCE = functools.reduce


def _marked(run: Callable[[], object]) -> None:
    """``run()`` inside a ``functools.reduce`` call: callgrind dumps its counts on entering and leaving it."""
    _REDUCE(lambda _first, _second: run(), (0, 1))


def count_in_this_process() -> None:
    """Under callgrind: for each row, the agent's then the floor's two marked runs (short, then long).

    Everything is warmed up first (imports call ``functools.reduce`` too), so
    the marked runs are the last dumps; a ``reduce`` called by anything else
    during them would split a count, so it is refused.
    """
    for row in ROWS:
        warm_up(row)

    def refuse(*args: Any) -> Any:
        raise RuntimeError("functools.reduce was called during a counted run: the counts would be split")

    functools.reduce = refuse
    for row in ROWS:
        for make in (agent_run, floor_run):
            for turns in COUNT_TURNS:
                run = make(row, turns)
                _settle()
                _marked(run)


def instructions_per_turn() -> tuple[dict[str, tuple[float, float]], str | None]:
    """Row label -> (agent, floor) user-space instructions per turn; or nothing and why not.

    callgrind where valgrind is installed, else ``perf stat -e instructions:u`` where the kernel gives
    the counter, else neither (and the reason).
    """
    valgrind = VALGRIND if Path(VALGRIND).exists() else shutil.which("valgrind")
    if valgrind:
        return _callgrind(valgrind)
    if _perf(["-c", "pass"]) is not None:
        return _perf_rows(), None
    return {}, ("no instruction counts: neither valgrind nor a perf that may count instructions:u "
                "is available here")


def _callgrind(valgrind: str) -> tuple[dict[str, tuple[float, float]], str | None]:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "cg.out"
        command = [valgrind, "--tool=callgrind", "--dump-before=functools_reduce", "--dump-after=functools_reduce",
                   f"--callgrind-out-file={out}", sys.executable, __file__, "--count-instructions"]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode:
            return {}, f"no instruction counts: callgrind failed ({done.stderr.strip().splitlines()[-1:]})"
        counts = [_ir(path) for path in sorted(Path(folder).glob("cg.out.*"), key=lambda p: int(p.suffix[1:]))
                  if "--dump-after" in path.read_text(errors="replace")[:2000]]
    if len(counts) < 4 * len(ROWS):
        return {}, f"no instruction counts: {len(counts)} marked runs counted, {4 * len(ROWS)} expected"
    counts = counts[-4 * len(ROWS):]  # the marked runs come last
    between = COUNT_TURNS[1] - COUNT_TURNS[0]
    figures = {}
    for index, row in enumerate(ROWS):
        agent_short, agent_long, floor_short, floor_long = counts[4 * index: 4 * index + 4]
        figures[row.label] = ((agent_long - agent_short) / between, (floor_long - floor_short) / between)
    return figures, None


def _perf(args: list[str]) -> int | None:
    """User-space instructions of the whole process ``python args``, by ``perf stat``; ``None`` if not counted."""
    if not shutil.which("perf"):
        return None
    done = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u", "--", sys.executable, *args],
                          capture_output=True, text=True, check=False)
    for line in done.stderr.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2].startswith("instructions"):
            return int(fields[0]) if fields[0].isdigit() else None
    return None


def _perf_rows() -> dict[str, tuple[float, float]]:
    """Each row's per-turn instructions by perf: a whole process per run, the short one's count subtracted
    from the long one's (the interpreter's start and the imports cancel out)."""
    figures = {}
    between = COUNT_TURNS[1] - COUNT_TURNS[0]
    for index, row in enumerate(ROWS):
        per_turn = []
        for who in ("agent", "floor"):
            short, long = (_perf([__file__, "--count-one", str(index), who, str(turns)]) for turns in COUNT_TURNS)
            if short is None or long is None:
                return {}
            per_turn.append((long - short) / between)
        figures[row.label] = (per_turn[0], per_turn[1])
    return figures


def count_one(index: int, who: str, turns: int) -> None:
    """One run of one row, after a warm-up (what a process counted by perf does)."""
    make = agent_run if who == "agent" else floor_run
    for _ in range(WARM_RUNS):
        make(ROWS[index], 1)()
    run = make(ROWS[index], turns)
    _settle()
    run()


def _ir(path: Path) -> int:
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise ValueError(f"{path}: no summary line")


# -- the figures ---------------------------------------------------------------------


def _load() -> str:
    return f"[load {os.getloadavg()[0]:.1f}]"


def main() -> dict[str, float]:
    figures: dict[str, float] = {}
    print(f"loop: openai-completions over httpx.MockTransport, {CALLS} parallel tool calls a turn unless said; "
          f"CPU: median of {REPEATS} whole {TURNS}-turn runs (process_time / requests); instructions: callgrind, "
          f"runs of {COUNT_TURNS[1]} minus {COUNT_TURNS[0]} turns")
    for row in ROWS:
        agent, floor = cpu_per_turn(row)
        figures[f"{row.label}: cpu ratio"] = agent / floor
        print(f"  {row.label}: CPU per turn {agent * 1e6:.0f} us, floor {floor * 1e6:.0f} us -> "
              f"{agent / floor:.2f}x   {_load()}")
    counted, why_not = instructions_per_turn()
    if why_not:
        print(f"  {why_not}; the goals below are judged on CPU time")
    for row in ROWS:
        if row.label in counted:
            agent, floor = counted[row.label]
            ratio = agent / floor
            figures[f"{row.label}: instructions ratio"] = ratio
            print(f"  {row.label}: instructions per turn {agent / 1e3:.0f}k, floor {floor / 1e3:.0f}k -> "
                  f"{ratio:.2f}x   {_load()}")
    for row in ROWS:
        if row.goal is None:
            continue
        measure = "instructions" if row.label in counted else "CPU time"
        ratio = figures[f"{row.label}: {'instructions' if row.label in counted else 'cpu'} ratio"]
        print(f"  {row.label}, {measure} per turn to the floor's: {ratio:.2f}x (goal <= {row.goal:g}x): "
              f"{'met' if ratio <= row.goal else 'not met'}   {_load()}")
    return figures


if __name__ == "__main__":
    if "--count-instructions" in sys.argv:
        count_in_this_process()
    elif "--count-one" in sys.argv:
        at = sys.argv.index("--count-one")
        count_one(int(sys.argv[at + 1]), sys.argv[at + 2], int(sys.argv[at + 3]))
    else:
        main()
