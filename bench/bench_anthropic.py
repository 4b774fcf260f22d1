"""Per-turn cost of the anthropic-messages codec, at turn 20 and at turn 200.

One turn is what the host does with the codec per model call: ``encode`` the
whole transcript so far into the request body (serialized JSON bytes, so this
includes what the host would otherwise spend serializing), then decode one
streamed response (a text block and a tool call). The host reuses message and ToolSpec objects across turns, so a
turn should cost nearly the same at turn 200 as at turn 20; the ratio is the
number to watch. A cold encode of the same transcript (a fresh provider,
nothing cached) is measured alongside as the baseline the caches are judged by.

Run: ``python bench/bench_anthropic.py`` (prints a small table; no thresholds).
"""

from __future__ import annotations

import statistics
import time

from agentkit_provider_anthropic import AnthropicMessages

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
        f"Tool number {n}, which does a thing with a path.",
        {
            "type": "object",
            "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["path"],
        },
    )
    for n in range(24)
]


def transcript(turns: int) -> list:
    messages: list = [UserMessage.text("Fix the failing test in the parser module.")]
    for turn in range(turns):
        call = ToolUseBlock(
            f"toolu_{turn:04d}", "tool_3", f'{{"path": "src/m{turn}.py", "limit": 200}}'
        )
        messages.append(
            AssistantMessage([TextBlock(f"Reading file {turn}."), call], StopReason.TOOL_USE)
        )
        messages.append(ToolResultMessage(call.id, "tool_3", [TextBlock("x = 1\n" * 40)]))
    return messages


def response_events(turn: int) -> list[WireEvent]:
    events = [
        {
            "type": "message_start",
            "message": {
                "id": f"msg_{turn}",
                "model": "claude-sonnet-5-5",
                "usage": {"input_tokens": 20, "cache_read_input_tokens": 5000},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "word "},
            }
            for _ in range(20)
        ),
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_x", "name": "tool_3", "input": {}},
        },
        *(
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
            for piece in ('{"path": ', '"src/', 'next.py"', ', "limit": 200}')
        ),
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 40},
        },
        {"type": "message_stop"},
    ]
    return [WireEvent(data, data["type"]) for data in events]


def one_turn(provider: AnthropicMessages, request: ProviderRequest, wire: list[WireEvent]) -> None:
    provider.encode(request)
    decoder = provider.decoder(request)
    for event in wire:
        decoder.feed(event)
    decoder.finish()


def measure(turn: int, repeats: int, messages: list) -> tuple[float, float]:
    """Median seconds of turn ``turn`` (warm, as in a run) and of a cold encode+decode."""
    model = AnthropicMessages().catalog()[0]
    wire = response_events(turn)

    def request_at(depth: int) -> ProviderRequest:
        return ProviderRequest(
            model=model,
            messages=messages[: 2 * depth + 1],
            system="sys",
            tools=TOOLS,
            max_tokens=4096,
        )

    warm, cold = [], []
    for _ in range(repeats):
        provider = AnthropicMessages()
        for depth in range(turn):  # the run so far: every earlier turn encoded once
            provider.encode(request_at(depth))
        request = request_at(turn)
        start = time.perf_counter()
        one_turn(provider, request, wire)
        warm.append(time.perf_counter() - start)

        start = time.perf_counter()
        one_turn(AnthropicMessages(), request, wire)
        cold.append(time.perf_counter() - start)
    return statistics.median(warm), statistics.median(cold)


def main() -> dict[str, float]:
    messages = transcript(200)
    results: dict[str, float] = {}
    for turn in (20, 200):
        warm, cold = measure(turn, repeats=15, messages=messages)
        results[f"turn_{turn}_us"] = warm * 1e6
        results[f"turn_{turn}_cold_us"] = cold * 1e6
    results["ratio_200_over_20"] = results["turn_200_us"] / results["turn_20_us"]
    results["cold_over_warm_at_200"] = results["turn_200_cold_us"] / results["turn_200_us"]
    print("anthropic-messages codec, encode + decode of one turn")
    print(
        f"  turn  20: {results['turn_20_us']:9.1f} us   (cold encode: {results['turn_20_cold_us']:9.1f} us)"
    )
    print(
        f"  turn 200: {results['turn_200_us']:9.1f} us   (cold encode: {results['turn_200_cold_us']:9.1f} us)"
    )
    print(f"  ratio turn 200 / turn 20: {results['ratio_200_over_20']:.2f}")
    print(f"  cold / warm at turn 200:  {results['cold_over_warm_at_200']:.2f}")
    return results


if __name__ == "__main__":
    main()
