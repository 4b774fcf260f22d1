"""Per-turn cost of the ollama-chat codec, deep into a session.

One turn is what the host asks of the codec per request: encode the request
(system prompt, the whole transcript, the tool definitions) and decode a
typical streamed answer (thinking and text deltas, one tool call with object
arguments, the final line with the counts). The transcript is synthetic: each
earlier turn adds an assistant message with a tool call and its result, and
the host reuses the same message and ToolSpec objects from one turn to the
next, as the real loop does; only the newest two messages are new objects
each turn.

Reported: microseconds per turn at turn 20 and turn 200 and their ratio (the
depth term), plus the same turns with every cache cold as the baseline.

Run: ``.venv/bin/python bench/bench_ollama.py``
"""

from __future__ import annotations

import time
from typing import Any

from agentkit_provider_ollama import OllamaChat

from agentkit.plugin_api import (
    AssistantMessage,
    ProviderRequest,
    StopReason,
    TextBlock,
    ThinkingBlock,
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
        f"call_{n:06d}", f"tool_{n % 20}", f'{{"path":"src/module_{n}.py","limit":200}}'
    )
    return [
        AssistantMessage(
            [
                ThinkingBlock(f"Module {n} is next.", "ollama-chat"),
                TextBlock(f"Step {n}: reading the next file."),
                call,
            ],
            StopReason.TOOL_USE,
        ),
        ToolResultMessage(call.id, call.name, [TextBlock(f"contents of module {n}\n" * 30)]),
    ]


def _response() -> list[WireEvent]:
    def chunk(message: dict[str, Any], **top: Any) -> WireEvent:
        data = {
            "model": "qwen3",
            "created_at": "2025-05-27T22:54:57.641643Z",
            "message": {"role": "assistant", "content": "", **message},
            "done": False,
        }
        data.update(top)
        return WireEvent(data)

    events = [chunk({"thinking": word}) for word in ("The", " next", " module", ".") * 3]
    events += [
        chunk({"content": word})
        for word in ("I", " will", " now", " look", " at", " the", " next", " module", ".") * 4
    ]
    call = {"function": {"name": "tool_3", "arguments": {"path": "src/a.py", "limit": 50}}}
    events.append(chunk({"tool_calls": [call]}))
    events.append(chunk({}, done=True, done_reason="stop", prompt_eval_count=9000, eval_count=60))
    return events


def measure(depth: int, *, warm: bool, sessions: int = 30, rounds: int = 5) -> float:
    """Microseconds per turn at turn ``depth`` (the best round's mean).

    Each timed turn belongs to its own session whose previous turn was already
    encoded (untimed), exactly as in a run; ``warm=False`` uses a fresh provider
    for the timed turn, so nothing is cached.
    """
    provider = OllamaChat()
    model = next(row for row in provider.catalog() if row.key == "ollama/qwen3")
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
            codec = provider if warm else OllamaChat()
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
    print("ollama-chat codec, encode + decode per turn (best of 5 rounds of 30 sessions)")
    print(f"  turn  20: {shallow:8.1f} us   (cold caches: {cold_shallow:8.1f} us)")
    print(f"  turn 200: {deep:8.1f} us   (cold caches: {cold_deep:8.1f} us)")
    print(
        f"  depth ratio turn200/turn20: {deep / shallow:.2f}x   "
        f"(cold caches: {cold_deep / cold_shallow:.2f}x)"
    )


if __name__ == "__main__":
    main()
