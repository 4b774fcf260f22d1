"""The agent loop's per-turn overhead, against a bare asyncio loop doing the same bookkeeping.

Both loops talk to the same scripted server through httpx: each turn they send the
whole transcript, read the SSE answer, run three tool handlers concurrently in
threads and append one result per call. The bare loop does only that; the agent
adds everything a real run does (plugin hooks, authorization, argument
validation, events, stop policies, the result envelope). Figures are ratios
measured in the same run, so the machine's speed cancels out.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from typing import Any

import httpx
from agentkit_provider_faux import FauxProvider, Script, Turn, text, tool_call

from agentkit.host import Agent, AgentConfig, PluginHost, allow_all
from agentkit.plugin_api import Tool, hookimpl

TURNS = 20
CALLS = 3
REPEATS = 7
LONG_RUN = 200


def work(n: int) -> int:
    """Return n."""
    return n


class _Plugin:
    @hookimpl
    def agentkit_register_tools(self, register: Any) -> None:
        register(Tool.from_function(work))

    @hookimpl
    def agentkit_register_providers(self, register: Any) -> None:
        register(FauxProvider())


def _turns(count: int) -> list[Turn]:
    batch = Turn([tool_call("work", {"n": n}) for n in range(CALLS)])
    return [batch] * count + [Turn([text("done")])]


def _host() -> PluginHost:
    host = PluginHost()
    host.register(_Plugin(), name="bench")
    return host


def agent_run(turns: int) -> tuple[float, list[float]]:
    """Seconds for one run, and the seconds of each turn."""
    host = _host()
    agent = Agent(
        AgentConfig(
            model="faux/scripted",
            transport=Script(_turns(turns)),
            before_tool_call=allow_all,
            max_turns=None,
        ),
        host=host,
    )
    marks: list[float] = []
    agent.subscribe(
        lambda event: marks.append(time.perf_counter()) if event.type == "turn_start" else None
    )
    start = time.perf_counter()
    agent.run_sync("go")
    end = time.perf_counter()
    marks.append(end)
    return end - start, [b - a for a, b in itertools.pairwise(marks)]


async def _bare(turns: int) -> None:
    """The least a loop can do over the same wire: what the agent is compared with."""
    script = Script(_turns(turns))
    history: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "go"}]}]
    tools = [{"name": "work", "description": "Return n.", "input_schema": {"type": "object"}}]
    async with httpx.AsyncClient(transport=script, base_url="http://faux.invalid") as client:
        while True:
            body = {"model": "scripted", "messages": history, "tools": tools}
            calls, content, current = [], [], None
            async with client.stream("POST", "/v1/script", json=body) as response:
                async for line in response.aiter_lines():
                    if not line.startswith("data: "):
                        continue
                    event = json.loads(line[6:])
                    if event["type"] == "block_start":
                        current = {
                            "type": event["kind"],
                            "id": event.get("id"),
                            "name": event.get("name"),
                            "text": "",
                        }
                    elif event["type"] == "delta":
                        current["text"] += event["text"]
                    elif event["type"] == "block_end":
                        content.append(current)
                        if current["type"] == "tool_use":
                            calls.append(current)
            history.append(
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": c["id"],
                            "name": c["name"],
                            "arguments": c["text"],
                        }
                        if c["type"] == "tool_use"
                        else {"type": "text", "text": c["text"]}
                        for c in content
                    ],
                    "stop_reason": "tool_use",
                }
            )
            if not calls:
                return
            results = await asyncio.gather(
                *(asyncio.to_thread(work, **json.loads(c["text"])) for c in calls)
            )
            for call, result in zip(calls, results, strict=True):
                history.append(
                    {
                        "role": "tool_result",
                        "tool_use_id": call["id"],
                        "tool_name": call["name"],
                        "content": [
                            {"type": "text", "text": json.dumps({"ok": True, "data": result})}
                        ],
                        "is_error": False,
                    }
                )


def bare_run(turns: int) -> float:
    start = time.perf_counter()
    asyncio.run(_bare(turns))
    return time.perf_counter() - start


def main() -> dict[str, float]:
    agent_run(TURNS), bare_run(TURNS)  # warm both up
    agent_times, bare_times = [], []
    for _ in range(REPEATS):  # interleaved, so both see the same machine
        agent_times.append(agent_run(TURNS)[0])
        bare_times.append(bare_run(TURNS))
    per_turn_agent = min(agent_times) / (TURNS + 1)
    per_turn_bare = min(bare_times) / (TURNS + 1)
    # The fastest of each window over three long runs: noise only ever adds time.
    long_runs = [agent_run(LONG_RUN)[1] for _ in range(3)]
    early = min(min(turns[7:13]) for turns in long_runs)
    late = min(min(turns[LONG_RUN - 6 : LONG_RUN]) for turns in long_runs)
    figures = {
        "agent_ms_per_turn": per_turn_agent * 1000,
        "bare_ms_per_turn": per_turn_bare * 1000,
        "agent_over_bare": per_turn_agent / per_turn_bare,
        "turn10_ms": early * 1000,
        "turn200_ms": late * 1000,
        "turn200_over_turn10": late / early,
    }
    print(f"loop: {TURNS} turns x {CALLS} parallel calls + answer, best of {REPEATS}")
    print(
        f"  agent {figures['agent_ms_per_turn']:.2f} ms/turn, bare asyncio loop {figures['bare_ms_per_turn']:.2f} ms/turn"
        f" -> ratio {figures['agent_over_bare']:.2f}x (target <= 2x)"
    )
    print(
        f"  one {LONG_RUN}-turn run: turn 10 {figures['turn10_ms']:.2f} ms, turn 200 {figures['turn200_ms']:.2f} ms"
        f" -> ratio {figures['turn200_over_turn10']:.2f}x (target <= 1.3x)"
    )
    return figures


if __name__ == "__main__":
    main()
