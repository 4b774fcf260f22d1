"""The harness every wire's codec benchmark shares.

One turn is what the host asks of a codec per request: encode the request
(system prompt, the whole transcript, the tool definitions) and decode a
typical streamed answer. Each earlier turn of the synthetic transcript adds an
assistant message and its tool result; the host reuses the same message and
ToolSpec objects from one turn to the next, as the real loop does, so only the
newest two messages are new objects each turn.

Reported: microseconds per turn at turn 20 and turn 200 and their ratio (the
depth term), plus the same turns with every cache cold as the baseline.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from agentkit.plugin_api import ProviderRequest, ToolSpec, UserMessage, WireEvent

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

Turn = Callable[[int], list[Any]]


def measure(
    make_provider: Callable[[], Any],
    model_key: str,
    turn: Turn,
    response: Sequence[WireEvent],
    depth: int,
    *,
    warm: bool,
    sessions: int = 30,
    rounds: int = 5,
) -> float:
    """Microseconds per turn at turn ``depth`` (the best round's mean).

    Each timed turn belongs to its own session whose previous turn was already
    encoded (untimed), exactly as in a run; ``warm=False`` uses a fresh provider
    for the timed turn, so nothing is cached.
    """
    provider = make_provider()
    model = next(row for row in provider.catalog() if row.key == model_key)
    shared: list[Any] = []
    for n in range(depth - 1):
        shared.extend(turn(n))
    best = float("inf")
    for _ in range(rounds):
        elapsed = 0.0
        for _ in range(sessions):
            history = [UserMessage.text("Fix the failing test."), *shared]
            provider.encode(
                ProviderRequest(model, history, system=SYSTEM, tools=TOOLS, max_tokens=4096)
            )
            request = ProviderRequest(
                model, [*history, *turn(depth)], system=SYSTEM, tools=TOOLS, max_tokens=4096
            )
            codec = provider if warm else make_provider()
            started = time.perf_counter()
            codec.encode(request)
            decoder = codec.decoder(request)
            for event in response:
                decoder.feed(event)
            decoder.finish()
            elapsed += time.perf_counter() - started
        best = min(best, elapsed / sessions)
    return best * 1e6


def report(
    wire: str,
    make_provider: Callable[[], Any],
    model_key: str,
    turn: Turn,
    response: Sequence[WireEvent],
) -> dict[str, float]:
    """Measure turns 20 and 200, warm and cold, and print them."""
    figures = {
        f"{label}{depth}": measure(make_provider, model_key, turn, response, depth, warm=warm)
        for label, warm in (("warm", True), ("cold", False))
        for depth in (20, 200)
    }
    print(f"{wire} codec, encode + decode per turn (best of 5 rounds of 30 sessions)")
    print(f"  turn  20: {figures['warm20']:8.1f} us   (cold caches: {figures['cold20']:8.1f} us)")
    print(f"  turn 200: {figures['warm200']:8.1f} us   (cold caches: {figures['cold200']:8.1f} us)")
    print(
        f"  depth ratio turn200/turn20: {figures['warm200'] / figures['warm20']:.2f}x   "
        f"(cold caches: {figures['cold200'] / figures['cold20']:.2f}x)"
    )
    return figures
