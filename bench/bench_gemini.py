"""Per-turn cost of the google-generative-ai codec, deep into a session.

One turn is what the host asks of the codec per request: encode the request
(system prompt, the whole transcript, the tool declarations) and decode a
typical streamed answer (a thought, text pieces, one signed function call,
cumulative usage on every chunk). The transcript is synthetic: each earlier
turn adds a model message with text, a function call and its signature
carrier, and the call's result; the host reuses the same message and ToolSpec
objects from one turn to the next, as the real loop does, and only the newest
two messages are new objects each turn.

Reported: microseconds per turn at turn 20 and turn 200 and their ratio (the
depth term), plus the same turn with every cache cold as the baseline.

Run: ``.venv/bin/python bench/bench_gemini.py``
"""

from __future__ import annotations

import time
from typing import Any

from agentkit_provider_gemini import GeminiGenerateContent

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
                "limit": {"type": "integer", "minimum": 1, "default": 100},
                "mode": {"enum": ["fast", "thorough"]},
            },
            "required": ["path"],
        },
    )
    for n in range(20)
]
SYSTEM = "You are a careful coding agent. " * 40
SIGNATURE = "CikBypeBEsobvcr6wjGzmiPcTaeG7/gUfE5yuYB3ha/uSLvR7Q=="


def _turn(n: int) -> list[Any]:
    call = ToolUseBlock(
        f"gemini_{n:024x}", f"tool_{n % 20}", f'{{"path":"src/module_{n}.py","limit":200}}'
    )
    return [
        AssistantMessage(
            [
                TextBlock(f"Step {n}: reading the next file."),
                call,
                ThinkingBlock("", SIGNATURE, redacted=True),
            ],
            StopReason.TOOL_USE,
            provider="google",
            api="google-generative-ai",
            model="gemini-2.5-flash",
        ),
        ToolResultMessage(call.id, call.name, [TextBlock(f"contents of module {n}\n" * 30)]),
    ]


def _response() -> list[WireEvent]:
    def chunk(part: dict[str, Any], finish: str | None = None) -> WireEvent:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [part]}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        return WireEvent(
            {
                "candidates": [candidate],
                "usageMetadata": {
                    "promptTokenCount": 9000,
                    "candidatesTokenCount": 60,
                    "cachedContentTokenCount": 8500,
                    "thoughtsTokenCount": 40,
                },
                "modelVersion": "gemini-2.5-flash",
                "responseId": "bench-response",
            }
        )

    events = [chunk({"text": "**Choosing the next module**", "thought": True})]
    for word in ("I", " will", " now", " look", " at", " the", " next", " module", ".") * 4:
        events.append(chunk({"text": word}))
    call = {"functionCall": {"name": "tool_3", "args": {"path": "src/a.py", "limit": 50}}}
    events.append(chunk({**call, "thoughtSignature": SIGNATURE}, finish="STOP"))
    return events


def measure(depth: int, *, warm: bool, sessions: int = 30, rounds: int = 5) -> float:
    """Microseconds per turn at turn ``depth`` (the best round's mean).

    Each timed turn belongs to its own session whose previous turn was already
    encoded (untimed), exactly as in a run; ``warm=False`` uses a fresh provider
    for the timed turn, so nothing is cached.
    """
    provider = GeminiGenerateContent()
    model = next(row for row in provider.catalog() if row.key == "google/gemini-2.5-flash")
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
            codec = provider if warm else GeminiGenerateContent()
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
    print("google-generative-ai codec, encode + decode per turn (best of 5 rounds of 30 sessions)")
    print(f"  turn  20: {shallow:8.1f} us   (cold caches: {cold_shallow:8.1f} us)")
    print(f"  turn 200: {deep:8.1f} us   (cold caches: {cold_deep:8.1f} us)")
    print(
        f"  depth ratio turn200/turn20: {deep / shallow:.2f}x   "
        f"(cold caches: {cold_deep / cold_shallow:.2f}x)"
    )


if __name__ == "__main__":
    main()
