"""Per-turn cost of the openai-completions codec, deep into a session.

One turn is what the host asks of the codec per request: encode the request
(system prompt, the whole transcript, the tool definitions) and decode a
typical streamed answer (text deltas, one tool call, the usage chunk). The
transcript is synthetic: each earlier turn adds an assistant message with a
tool call and its result, and the host reuses the same message and ToolSpec
objects from one turn to the next, as the real loop does; only the newest two
messages are new objects each turn.

Reported: microseconds per turn at turn 20 and turn 200 and their ratio (the
depth term), plus the same turn with every cache cold as the baseline.

Run: ``.venv/bin/python bench/bench_openai.py``
"""

from __future__ import annotations

import time
from typing import Any

from agentkit_provider_openai import OpenAICompletions

from agentkit.plugin_api import (
    AssistantMessage,
    ProviderRequest,
    StopReason,
    TextBlock,
    ToolResultMessage,
    ToolSpec,
    ToolUseBlock,
    UserMessage,
    WireEvent,
)

TOOLS = [
    ToolSpec(
        f"tool_{n}",
        f"Tool number {n}: does something useful with a path and some options.",
        {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "A path inside the workspace."},
                "limit": {"type": "integer", "minimum": 1},
                "mode": {"enum": ["fast", "thorough"]},
            },
            "required": ["path"],
        },
    )
    for n in range(20)
]
SYSTEM = "You are a careful coding agent. " * 40


def _turn(n: int) -> list[Any]:
    call = ToolUseBlock(
        f"call_{n:06d}", f"tool_{n % 20}", f'{{"path": "src/module_{n}.py", "limit": 200}}'
    )
    return [
        AssistantMessage(
            [TextBlock(f"Step {n}: reading the next file."), call], StopReason.TOOL_USE
        ),
        ToolResultMessage(call.id, call.name, [TextBlock(f"contents of module {n}\n" * 30)]),
    ]


def _response() -> list[WireEvent]:
    chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
    for word in ("I", " will", " now", " look", " at", " the", " next", " module", ".") * 4:
        chunks.append({"choices": [{"index": 0, "delta": {"content": word}}]})
    start = {
        "index": 0,
        "id": "call_x",
        "type": "function",
        "function": {"name": "tool_3", "arguments": ""},
    }
    chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [start]}}]})
    for piece in ('{"pa', 'th": "s', "rc/a.py", '", "li', 'mit": 5', "0}"):
        chunks.append(
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]},
                    }
                ]
            }
        )
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    chunks.append(
        {
            "choices": [],
            "usage": {
                "prompt_tokens": 9000,
                "completion_tokens": 60,
                "prompt_tokens_details": {"cached_tokens": 8500},
            },
        }
    )
    return [WireEvent(data={"id": "chatcmpl-b", "model": "gpt-4.1", **chunk}) for chunk in chunks]


def measure(depth: int, *, warm: bool, sessions: int = 30, rounds: int = 5) -> float:
    """Microseconds per turn at turn ``depth`` (the best round's mean).

    Each timed turn belongs to its own session whose previous turn was already
    encoded (untimed), exactly as in a run; ``warm=False`` uses a fresh provider
    for the timed turn, so nothing is cached.
    """
    provider = OpenAICompletions()
    model = next(row for row in provider.catalog() if row.key == "openai/gpt-4.1")
    shared: list[Any] = []
    for n in range(depth - 1):
        shared.extend(_turn(n))
    response = _response()
    best = float("inf")
    for _ in range(rounds):
        elapsed = 0.0
        for _ in range(sessions):
            history = [UserMessage.text("Fix the failing test."), *shared]
            provider.encode(
                ProviderRequest(model, history, system=SYSTEM, tools=TOOLS, max_tokens=4096)
            )
            request = ProviderRequest(
                model, [*history, *_turn(depth)], system=SYSTEM, tools=TOOLS, max_tokens=4096
            )
            codec = provider if warm else OpenAICompletions()
            started = time.perf_counter()
            codec.encode(request)
            decoder = codec.decoder(request)
            for event in response:
                decoder.feed(event)
            decoder.finish()
            elapsed += time.perf_counter() - started
        best = min(best, elapsed / sessions)
    return best * 1e6


def main() -> None:
    shallow, deep = measure(20, warm=True), measure(200, warm=True)
    cold_shallow, cold_deep = measure(20, warm=False), measure(200, warm=False)
    print("openai-completions codec, encode + decode per turn (best of 5 rounds of 30 sessions)")
    print(f"  turn  20: {shallow:8.1f} us   (cold caches: {cold_shallow:8.1f} us)")
    print(f"  turn 200: {deep:8.1f} us   (cold caches: {cold_deep:8.1f} us)")
    print(
        f"  depth ratio turn200/turn20: {deep / shallow:.2f}x   (cold caches: {cold_deep / cold_shallow:.2f}x)"
    )


if __name__ == "__main__":
    main()
