"""The agent loop's per-turn overhead, against the floor: a bare asyncio loop with no framework.

One scripted conversation (turns of three parallel tool calls, then a final
answer) is played by an ``httpx.MockTransport`` speaking OpenAI Chat
Completions, either as a whole JSON response or as an SSE stream. Two loops
drive it in the same process run:

* the agent, through the real ``openai-completions`` provider and the host's
  provider runtime, with everything a real run does (hooks, authorization,
  strict JSON, argument validation, output policing, events, the result);
* the floor: a plain ``async`` loop that keeps each message as the bytes it
  was serialized to once, POSTs their join through one ``httpx.AsyncClient``
  over the same transport, and reads the reply with ``json.loads`` (the JSON
  mode) or splits the SSE body with ``bytes.split`` and ``json.loads`` each
  data line (the streaming mode). Its tools are called directly (sync) or
  gathered (async).

Figures are ratios to the floor of the same mode, measured in the same run,
so the machine's speed cancels out: per turn at turn 20 and at turn 200 (the
fastest turn of the ten up to it, over a few runs: noise only ever adds time),
with sync and with async tools; then how the agent's turn 200 compares with
its turn 20, the request bodies still alive after a 201-turn run, and the
peak traced memory of that run against the floor's.

``--quick`` (or ``BENCH_QUICK=1``, which ``bench/run.py --quick`` sets) runs
fewer repeats: a smoke test of the benchmark itself.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import statistics
import sys
import time
import tracemalloc
import weakref
from collections.abc import Callable
from typing import Any

import httpx
from agentkit_provider_openai import OpenAICompletions

from agentkit.host import Agent, AgentConfig, Connection, Limits, PluginHost, Trust, allow_all
from agentkit.plugin_api import ExecutionMode, Tool, hookimpl

CALLS = 3
SHORT, LONG = 20, 200
WINDOW = 10  # turns per measuring window: turns 11-20 and 191-200
REPEATS = 2 if "--quick" in sys.argv or os.environ.get("BENCH_QUICK") == "1" else 5
URL = "https://api.openai.com/v1/chat/completions"
MODEL = "gpt-4.1"
os.environ["OPENAI_API_KEY"] = "sk-bench-not-a-real-key"


def work(n: int) -> int:
    """Return n."""
    return n


async def work_async(n: int) -> int:
    """Return n."""
    return n


def _tool(kind: str) -> Tool:
    if kind == "async":
        return Tool.from_function(work_async, name="work")
    # A sync handler that says it is cheap runs on the loop's thread, as the floor's does.
    return Tool.from_function(work, execution_mode=getattr(ExecutionMode, "INLINE", ExecutionMode.PARALLEL))


# -- the scripted server --------------------------------------------------------------


def _calls(turn: int) -> list[dict[str, Any]]:
    return [
        {"id": f"call_{turn}_{i}", "type": "function", "function": {"name": "work", "arguments": f'{{"n": {i}}}'}}
        for i in range(CALLS)
    ]


_USAGE = {"prompt_tokens": 900, "completion_tokens": 30}


def _whole(turn: int, last: bool) -> bytes:
    message: dict[str, Any] = {"role": "assistant", "content": "done" if last else None}
    if not last:
        message["tool_calls"] = _calls(turn)
    body = {
        "id": f"chatcmpl-{turn}", "object": "chat.completion", "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop" if last else "tool_calls"}],
        "usage": _USAGE,
    }
    return json.dumps(body).encode()


def _streamed(turn: int, last: bool) -> bytes:
    def chunk(delta: dict[str, Any] | None, finish: str | None = None, **top: Any) -> bytes:
        choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
        data = {"id": f"chatcmpl-{turn}", "object": "chat.completion.chunk", "model": MODEL,
                "choices": choices, **top}
        return b"data: " + json.dumps(data).encode() + b"\n\n"

    parts = [chunk({"role": "assistant", "content": ""})]
    if last:
        parts.append(chunk({"content": "done"}))
    else:
        for index, call in enumerate(_calls(turn)):
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

    def __init__(self, turns: int, mode: str, *, watch: bool = False) -> None:
        render = _streamed if mode == "sse" else _whole
        self.replies = [render(turn, turn == turns) for turn in range(turns + 1)]
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
    """When each turn of one run started, and when the run ended."""
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


async def _floor(server: Server, mode: str, kind: str, marks: list[float]) -> None:
    """The least a loop can do over the same wire: what the agent is compared with."""
    tools = _floor_tools()
    tail = b',"tools":' + tools + (b',"stream":true}' if mode == "sse" else b',"stream":false}')
    messages = [json.dumps({"role": "system", "content": "You are a benchmark."}).encode(),
                json.dumps({"role": "user", "content": "go"}).encode()]
    headers = {"authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "content-type": "application/json"}
    async with httpx.AsyncClient(transport=server.transport) as client:
        while True:
            marks.append(time.perf_counter())
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
                marks.append(time.perf_counter())
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


# -- the figures ---------------------------------------------------------------------


def _window(marks: list[float], last_turn: int) -> float:
    """The fastest turn of the ``WINDOW`` turns ending with turn ``last_turn`` (1-based).

    The fastest, not the mean: on a shared machine noise only ever adds time,
    and one turn the scheduler left alone is the honest figure.
    """
    return min(marks[turn] - marks[turn - 1] for turn in range(last_turn - WINDOW + 1, last_turn + 1))


def per_turn(run: Callable[[int, str, str], list[float]], mode: str, kind: str) -> tuple[float, float]:
    """The fastest seconds per turn, at turn 20 and at turn 200, over ``REPEATS`` long runs."""
    at20, at200 = [], []
    for _ in range(REPEATS):
        marks = run(LONG, mode, kind)
        at20.append(_window(marks, SHORT))
        at200.append(_window(marks, LONG))
    return min(at20), min(at200)


def _peak(run: Callable[[], object]) -> int:
    """The peak traced memory of ``run()``, above what was traced when it started."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        run()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def memory(mode: str) -> dict[str, float]:
    """Peak traced memory of one 201-turn run, agent and floor, and the request bodies left alive."""
    server = Server(LONG, mode, watch=True)
    agent = _agent(server, "sync")
    gc.collect()
    gc.disable()  # only reference counting frees now: a body kept by a reference cycle stays counted
    try:
        agent.run_sync("go")
        alive = server.alive()
    finally:
        gc.enable()
    del agent, server
    gc.collect()
    agent = _agent(Server(LONG, mode), "sync")
    agent_peak = _peak(lambda: agent.run_sync("go"))
    floor_server = Server(LONG, mode)
    floor_peak = _peak(lambda: floor_marks(LONG, mode, "sync", floor_server))
    return {"agent_peak_kib": agent_peak / 1024, "floor_peak_kib": floor_peak / 1024,
            "peak_ratio": agent_peak / floor_peak, "bodies_alive": alive}


def main() -> dict[str, float]:
    figures: dict[str, float] = {}
    print(f"loop: turns of {CALLS} parallel tool calls, openai-completions over httpx.MockTransport; "
          f"ms per turn at turn {SHORT} and {LONG} (the fastest of turns {SHORT - WINDOW + 1}-{SHORT} and "
          f"{LONG - WINDOW + 1}-{LONG} of {REPEATS} {LONG}-turn runs)")
    for mode in ("json", "sse"):
        for kind in ("sync", "async"):
            agent_marks(SHORT, mode, kind), floor_marks(SHORT, mode, kind)  # warm both up
            agent20, agent200 = per_turn(agent_marks, mode, kind)
            floor20, floor200 = per_turn(floor_marks, mode, kind)
            key = f"{mode}_{kind}"
            figures.update({
                f"{key}_agent20_ms": agent20 * 1000, f"{key}_floor20_ms": floor20 * 1000,
                f"{key}_ratio20": agent20 / floor20, f"{key}_ratio200": agent200 / floor200,
                f"{key}_depth": agent200 / agent20,
            })
            print(f"  {mode:4} {kind:5} tools: agent {agent20 * 1000:.3f} / {agent200 * 1000:.3f} ms, "
                  f"floor {floor20 * 1000:.3f} / {floor200 * 1000:.3f} ms -> "
                  f"{agent20 / floor20:.2f}x at turn {SHORT}, {agent200 / floor200:.2f}x at turn {LONG} "
                  f"(target <= 2x); turn {LONG} / turn {SHORT}: {agent200 / agent20:.2f}x (target <= 1.2x)")
    for mode in ("json", "sse"):
        mem = memory(mode)
        figures.update({f"{mode}_{name}": value for name, value in mem.items()})
        print(f"  {mode:4} memory, one {LONG + 1}-request run: peak {mem['agent_peak_kib']:.0f} KiB, "
              f"floor {mem['floor_peak_kib']:.0f} KiB -> {mem['peak_ratio']:.2f}x (target <= 2x); "
              f"request bodies alive after it: {mem['bodies_alive']:.0f} (target 0)")
    print(f"  median ratio at turn {SHORT}: "
          f"{statistics.median(v for k, v in figures.items() if k.endswith('ratio20')):.2f}x")
    return figures


if __name__ == "__main__":
    main()
