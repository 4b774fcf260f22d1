"""The normative event order, early ends, errors, and stream/whole agreement.

Streams come from ``testdata/anthropic-sdk-python`` (anthropics/
anthropic-sdk-python, MIT; see its ``PROVENANCE.md``) where a real one is needed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from agentkit_provider_anthropic import AnthropicMessages

from agentkit.plugin_api import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    MessageEnd,
    MessageStart,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    WireEvent,
)

_STREAMS = Path(__file__).resolve().parents[3] / "testdata" / "anthropic-sdk-python"


def _stream(kit, name: str) -> list[WireEvent]:
    return kit.frame_sse((_STREAMS / name).read_bytes())


def _assert_normative(events) -> None:
    """message_start, then per block start / deltas / end(whole block), then message_end."""
    assert isinstance(events[0], MessageStart)
    assert isinstance(events[-1], MessageEnd)
    message = events[-1].message
    expected_index = 0
    open_index = None
    pieces: list[str] = []
    for event in events[1:-1]:
        if isinstance(event, BlockStart):
            assert open_index is None, "a block started before the previous one ended"
            assert event.index == expected_index
            open_index, pieces = event.index, []
        elif isinstance(event, BlockDelta):
            assert event.index == open_index
            pieces.append(event.delta)
        elif isinstance(event, BlockEnd):
            assert event.index == open_index
            block = event.block
            text = {
                TextBlock: lambda b: b.text,
                ThinkingBlock: lambda b: b.thinking,
                ToolUseBlock: lambda b: b.arguments,
            }[type(block)](block)
            assert "".join(pieces) == text, "the deltas must add up to the block"
            assert message.content[event.index] == block
            open_index, expected_index = None, expected_index + 1
        else:
            raise AssertionError(f"unexpected event {event!r}")
    assert open_index is None
    assert expected_index == len(message.content)


@pytest.mark.parametrize(
    "name", ["basic_response.txt", "tool_use_response.txt", "incomplete_partial_json_response.txt"]
)
def test_stream_events_follow_the_normative_order(kit, name: str) -> None:
    _assert_normative(kit.decode(_stream(kit, name)))


def test_tool_use_block_start_names_the_call(kit) -> None:
    events = kit.decode(_stream(kit, "tool_use_response.txt"))
    starts = [e for e in events if isinstance(e, BlockStart) and e.kind == "tool_use"]
    assert [(s.tool_name, s.tool_use_id) for s in starts] == [
        ("get_weather", "toolu_01NRLabsLyVHZPKxbKvkfSMn")
    ]


def test_a_stream_cut_short_and_aborted_keeps_its_partial_content(kit) -> None:
    wire = _stream(kit, "tool_use_response.txt")
    # Up to and including the second argument piece of the tool call.
    cut = next(
        i for i, e in enumerate(wire) if e.data.get("delta", {}).get("partial_json") == 'on": "P'
    )
    decoder = AnthropicMessages().decoder(kit.request_for())
    events = [event for wire_event in wire[: cut + 1] for event in decoder.feed(wire_event)]
    events += decoder.fail(StopReason.ABORTED, "cancelled by the user")
    _assert_normative(events)
    message = events[-1].message
    assert message.stop_reason is StopReason.ABORTED
    assert message.error_message == "cancelled by the user"
    assert message.text == "I'll check the current weather in Paris for you."
    assert [c.arguments for c in message.tool_calls] == ['{"location": "P']
    assert message.usage.input == 377
    # Nothing after the end.
    assert decoder.feed(wire[cut + 1]) == [] and decoder.finish() == []


def test_a_stream_that_ends_without_message_stop_is_an_error(kit) -> None:
    wire = _stream(kit, "basic_response.txt")
    assert wire[-1].data == {"type": "message_stop"}
    message = kit.final_message(kit.decode(wire[:-1]))
    assert message.stop_reason is StopReason.ERROR
    assert "ended before message_stop" in message.error_message
    assert message.text == "Hello there!"


def test_an_error_event_mid_stream_ends_the_message_as_error(kit) -> None:
    wire = _stream(kit, "basic_response.txt")[:4]
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    events = kit.decode([*wire, WireEvent(error, "error")])
    _assert_normative(events)
    message = events[-1].message
    assert message.stop_reason is StopReason.ERROR
    assert message.error_message == "overloaded_error: Overloaded"
    assert message.text == "Hello"


def test_ping_and_unknown_events_are_ignored(kit) -> None:
    wire = _stream(kit, "basic_response.txt")
    noise = [
        WireEvent({"type": "ping"}, "ping"),
        WireEvent({"type": "brand_new_event", "x": 1}, "brand_new_event"),
        WireEvent(["not", "an", "object"], None),
    ]
    mixed = [wire[0], *noise, *wire[1:]]
    with_noise = kit.final_message(kit.decode(mixed)).to_dict()
    without = kit.final_message(kit.decode(wire)).to_dict()
    with_noise.pop("timestamp"), without.pop("timestamp")
    assert with_noise == without


def _whole_body(stream_message) -> dict:
    """The whole-response body equivalent to a decoded stream (what stream=false returns)."""
    content = []
    for block in stream_message.content:
        if isinstance(block, TextBlock):
            content.append({"type": "text", "text": block.text})
        elif isinstance(block, ToolUseBlock):
            content.append(
                {
                    "type": "tool_use",
                    "id": block.id,
                    "name": block.name,
                    "input": block.parsed_arguments(),
                }
            )
    return {
        "id": stream_message.response_id,
        "type": "message",
        "role": "assistant",
        "model": stream_message.response_model,
        "content": content,
        "stop_reason": stream_message.raw_stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": stream_message.usage.input,
            "output_tokens": stream_message.usage.output,
        },
    }


def test_a_whole_response_decodes_to_the_same_message_as_the_stream(kit) -> None:
    streamed_events = kit.decode(_stream(kit, "tool_use_response.txt"))
    streamed = streamed_events[-1].message
    whole_events = kit.decode([WireEvent(_whole_body(streamed))])
    _assert_normative(whole_events)
    whole = whole_events[-1].message
    assert whole.content == streamed.content
    assert whole.tool_calls[0].arguments == '{"location": "Paris"}'
    assert (whole.stop_reason, whole.usage, whole.response_id) == (
        streamed.stop_reason,
        streamed.usage,
        streamed.response_id,
    )

    def shape(events):
        return [
            (type(e).__name__, getattr(e, "index", None))
            for e in events
            if not isinstance(e, BlockDelta)
        ]

    assert shape(whole_events) == shape(streamed_events)


def test_a_tool_call_without_arguments_reads_the_same_streamed_or_whole(kit) -> None:
    start = {"type": "message_start", "message": {"id": "m", "model": "x", "usage": {}}}
    streamed = kit.decode(
        [
            WireEvent(start),
            WireEvent(
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "tool_use", "id": "t", "name": "now", "input": {}},
                }
            ),
            WireEvent(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": ""},
                }
            ),
            WireEvent({"type": "content_block_stop", "index": 0}),
            WireEvent({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
            WireEvent({"type": "message_stop"}),
        ]
    )
    whole = kit.decode(
        [
            WireEvent(
                {
                    "type": "message",
                    "id": "m",
                    "model": "x",
                    "stop_reason": "tool_use",
                    "content": [{"type": "tool_use", "id": "t", "name": "now", "input": {}}],
                }
            )
        ]
    )
    assert streamed[-1].message.tool_calls == whole[-1].message.tool_calls
    assert whole[-1].message.tool_calls[0].arguments == "{}"


def test_usage_is_cumulative_and_cached_tokens_are_not_netted_again(kit) -> None:
    events = [
        WireEvent(
            {
                "type": "message_start",
                "message": {
                    "id": "m",
                    "model": "x",
                    "usage": {
                        "input_tokens": 12,
                        "cache_read_input_tokens": 900,
                        "cache_creation_input_tokens": 40,
                        "output_tokens": 1,
                    },
                },
            }
        ),
        WireEvent(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {
                    "output_tokens": 30,
                    "input_tokens": 0,
                    "output_tokens_details": {"thinking_tokens": 20},
                },
            }
        ),
        WireEvent({"type": "message_delta", "delta": {}, "usage": {"output_tokens": 35}}),
        WireEvent({"type": "message_stop"}),
    ]
    usage = kit.final_message(kit.decode(events)).usage
    assert (usage.input, usage.cache_read, usage.cache_write) == (12, 900, 40)
    assert (usage.output, usage.reasoning) == (35, 20)


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("end_turn", StopReason.STOP),
        ("max_tokens", StopReason.LENGTH),
        ("tool_use", StopReason.TOOL_USE),
        ("stop_sequence", StopReason.STOP_SEQUENCE),
        ("refusal", StopReason.REFUSAL),
        ("pause_turn", StopReason.STOP),
        ("model_context_window_exceeded", StopReason.LENGTH),
        ("something_new", StopReason.STOP),
    ],
)
def test_stop_reasons_map_and_the_raw_reason_is_kept(kit, raw: str, canonical) -> None:
    body = {"type": "message", "id": "m", "model": "x", "content": [], "stop_reason": raw}
    message = kit.final_message(kit.decode([WireEvent(body)]))
    assert (message.stop_reason, message.raw_stop_reason) == (canonical, raw)


def test_thinking_and_redacted_thinking_stream_into_thinking_blocks(kit) -> None:
    events = kit.decode(
        [
            WireEvent({"type": "message_start", "message": {"id": "m", "model": "x"}}),
            WireEvent(
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                }
            ),
            WireEvent(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "thinking_delta", "thinking": "Hmm, "},
                }
            ),
            WireEvent(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "thinking_delta", "thinking": "right."},
                }
            ),
            WireEvent(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "signature_delta", "signature": "EqSig"},
                }
            ),
            WireEvent({"type": "content_block_stop", "index": 0}),
            WireEvent(
                {
                    "type": "content_block_start",
                    "index": 1,
                    "content_block": {"type": "redacted_thinking", "data": "EnCrypted"},
                }
            ),
            WireEvent({"type": "content_block_stop", "index": 1}),
            WireEvent({"type": "message_stop"}),
        ]
    )
    _assert_normative(events)
    assert events[-1].message.content == [
        ThinkingBlock("Hmm, right.", "EqSig"),
        ThinkingBlock("", "EnCrypted", redacted=True),
    ]
