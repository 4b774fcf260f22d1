"""Decoding behaviour the recordings do not all show: usage accounting, stop
reasons, reasoning fields, refusals, errors inside a 200, and the event order."""

from __future__ import annotations

from typing import Any

import pytest
from agentkit_provider_openai import OpenAICompletions

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


def _decode(kit: Any, events: list[WireEvent], key: str = "openai/gpt-4o-mini") -> list[Any]:
    return kit.decode(events, request=kit.request_for(model=kit.model_row(key)))


def _check_order(events: list[Any]) -> None:
    """The normative sequence: message_start, then per block start/delta*/end, message_end last."""
    assert isinstance(events[0], MessageStart)
    assert isinstance(events[-1], MessageEnd)
    open_blocks: set[int] = set()
    ended: list[int] = []
    for event in events[1:-1]:
        if isinstance(event, BlockStart):
            assert event.index not in open_blocks and event.index not in ended
            open_blocks.add(event.index)
        elif isinstance(event, BlockDelta):
            assert event.index in open_blocks
        elif isinstance(event, BlockEnd):
            open_blocks.remove(event.index)
            ended.append(event.index)
        else:
            raise AssertionError(f"unexpected {event!r} inside the message")
    assert not open_blocks
    # Blocks end in index order and content keeps that order.
    assert ended == sorted(ended) == list(range(len(ended)))
    content = events[-1].message.content
    assert [event.block for event in events if isinstance(event, BlockEnd)] == content


# -- usage -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "usage",
    [
        {
            "prompt_tokens": 100,
            "completion_tokens": 7,
            "prompt_tokens_details": {"cached_tokens": 40},
        },
        {
            "prompt_tokens": 100,
            "completion_tokens": 7,
            "prompt_cache_hit_tokens": 40,
            "prompt_cache_miss_tokens": 60,
        },
        {"prompt_tokens": 100, "completion_tokens": 7, "cached_tokens": 40},
        {
            "prompt_tokens": 100,
            "completion_tokens": 7,
            "prompt_cache_hit_tokens": 40,
            "prompt_tokens_details": {"cached_tokens": 40},
        },
    ],
    ids=["openai", "deepseek", "moonshot", "deepseek-both-places"],
)
def test_cached_tokens_are_netted_out_of_input_exactly_once_wherever_they_are_reported(
    usage: dict[str, Any], kit: Any
) -> None:
    events = [kit.chunk({"content": "hi"}, finish="stop"), kit.chunk(None, usage=usage)]
    message = kit.final_message(_decode(kit, events))
    assert (message.usage.input, message.usage.cache_read, message.usage.output) == (60, 40, 7)


def test_reasoning_tokens_are_inside_output_not_added_to_it(kit: Any) -> None:
    usage = {
        "prompt_tokens": 10,
        "completion_tokens": 87,
        "completion_tokens_details": {"reasoning_tokens": 64},
    }
    message = kit.final_message(
        _decode(kit, [kit.chunk({"content": "x"}, finish="stop"), kit.chunk(None, usage=usage)])
    )
    assert (message.usage.output, message.usage.reasoning) == (87, 64)
    assert message.usage.total == 10 + 87


def test_a_later_zero_or_null_usage_does_not_erase_the_counts(kit: Any) -> None:
    counted = {"prompt_tokens": 13, "completion_tokens": 11}
    zero = {
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "total_tokens": 0,
        "prompt_tokens_details": {"cached_tokens": 0},
    }
    events = [
        kit.chunk({"content": "Paris."}, finish="stop"),
        kit.chunk(None, usage=counted),
        kit.chunk(None, usage=zero),
        kit.chunk(None, usage=None),
    ]
    message = kit.final_message(_decode(kit, events))
    assert (message.usage.input, message.usage.output) == (13, 11)


def test_groq_usage_is_read_from_x_groq(kit: Any) -> None:
    events = [
        kit.chunk(
            {"content": "hi"},
            finish="stop",
            x_groq={"id": "req_1", "usage": {"prompt_tokens": 5, "completion_tokens": 2}},
        )
    ]
    message = kit.final_message(_decode(kit, events, "groq/llama-3.3-70b-versatile"))
    assert (message.usage.input, message.usage.output) == (5, 2)


# -- stop reasons ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("stop", StopReason.STOP),
        ("length", StopReason.LENGTH),
        ("tool_calls", StopReason.TOOL_USE),
        ("function_call", StopReason.TOOL_USE),
        ("content_filter", StopReason.REFUSAL),
        ("eos", StopReason.STOP),
    ],
)
def test_finish_reasons_map_and_the_raw_reason_is_kept(
    raw: str, expected: StopReason, kit: Any
) -> None:
    message = kit.final_message(_decode(kit, [kit.chunk({"content": "x"}, finish=raw)]))
    assert (message.stop_reason, message.raw_stop_reason) == (expected, raw)


def test_tool_calls_under_a_stop_finish_reason_are_kept(kit: Any) -> None:
    """Some compatible servers answer ``stop`` beside tool calls; the loop goes by the calls."""
    call = {
        "index": 0,
        "id": "c1",
        "type": "function",
        "function": {"name": "read", "arguments": "{}"},
    }
    message = kit.final_message(_decode(kit, [kit.chunk({"tool_calls": [call]}, finish="stop")]))
    assert message.stop_reason is StopReason.STOP
    assert [block.id for block in message.tool_calls] == ["c1"]


def test_a_stream_without_a_finish_reason_still_ends(kit: Any) -> None:
    call = {"index": 0, "id": "c1", "function": {"name": "read", "arguments": "{}"}}
    message = kit.final_message(_decode(kit, [kit.chunk({"tool_calls": [call]})]))
    assert (message.stop_reason, message.raw_stop_reason) == (StopReason.TOOL_USE, None)


# -- content -----------------------------------------------------------------------


def test_reasoning_text_becomes_a_thinking_block_before_the_text(kit: Any) -> None:
    events = [
        kit.chunk({"role": "assistant", "content": "", "reasoning_content": "Think"}),
        kit.chunk({"content": None, "reasoning_content": "ing."}),
        kit.chunk({"content": "Answer"}),
        kit.chunk({"content": "."}, finish="stop"),
    ]
    out = _decode(kit, events, "deepseek/deepseek-reasoner")
    _check_order(out)
    assert out[-1].message.content == [ThinkingBlock("Thinking."), TextBlock("Answer.")]


def test_a_server_sending_both_reasoning_fields_is_read_once(kit: Any) -> None:
    events = [
        kit.chunk({"reasoning": "same", "reasoning_content": "same"}),
        kit.chunk({"content": "ok"}, finish="stop"),
    ]
    message = kit.final_message(_decode(kit, events, "local/default"))
    assert message.content == [ThinkingBlock("same"), TextBlock("ok")]


def test_openai_sends_no_reasoning_text_so_none_is_read(kit: Any) -> None:
    message = kit.final_message(
        _decode(kit, [kit.chunk({"reasoning": "leak", "content": "ok"}, finish="stop")])
    )
    assert message.content == [TextBlock("ok")]


def test_text_after_reasoning_after_text_starts_new_blocks_in_order(kit: Any) -> None:
    events = [
        kit.chunk({"content": "a"}),
        kit.chunk({"reasoning": "b"}),
        kit.chunk({"content": "c"}),
        kit.chunk(
            {"tool_calls": [{"index": 0, "id": "t", "function": {"name": "n", "arguments": "{}"}}]}
        ),
        kit.chunk({"content": "d"}, finish="tool_calls"),
    ]
    out = _decode(kit, events, "openrouter/anthropic/claude-sonnet-4")
    _check_order(out)
    assert out[-1].message.content == [
        TextBlock("a"),
        ThinkingBlock("b"),
        TextBlock("c"),
        ToolUseBlock("t", "n", "{}"),
        TextBlock("d"),
    ]


def test_a_refusal_is_kept_as_text_and_stops_as_a_refusal(kit: Any) -> None:
    events = [
        kit.chunk({"refusal": "I can't help "}),
        kit.chunk({"refusal": "with that."}, finish="stop"),
    ]
    message = kit.final_message(_decode(kit, events))
    assert message.text == "I can't help with that."
    assert (message.stop_reason, message.raw_stop_reason) == (StopReason.REFUSAL, "stop")


def test_ids_and_names_repeated_in_every_delta_are_not_concatenated(kit: Any) -> None:
    piece = {"index": 0, "id": "c1", "type": "function", "function": {"name": "read"}}
    events = [
        kit.chunk({"tool_calls": [{**piece, "function": {"name": "read", "arguments": '{"a"'}}]}),
        kit.chunk(
            {"tool_calls": [{**piece, "function": {"name": "read", "arguments": ": 1}"}}]},
            finish="tool_calls",
        ),
    ]
    message = kit.final_message(_decode(kit, events))
    assert message.tool_calls == [ToolUseBlock("c1", "read", '{"a": 1}')]


def test_calls_without_an_index_are_told_apart_by_id(kit: Any) -> None:
    events = [
        kit.chunk(
            {"tool_calls": [{"id": "a", "function": {"name": "read", "arguments": '{"p":'}}]}
        ),
        kit.chunk({"tool_calls": [{"function": {"arguments": '"x"}'}}]}),
        kit.chunk(
            {"tool_calls": [{"id": "b", "function": {"name": "read", "arguments": "{}"}}]},
            finish="tool_calls",
        ),
    ]
    message = kit.final_message(_decode(kit, events))
    assert message.tool_calls == [
        ToolUseBlock("a", "read", '{"p":"x"}'),
        ToolUseBlock("b", "read", "{}"),
    ]


def test_the_legacy_function_call_field_is_a_tool_call(kit: Any) -> None:
    events = [
        kit.chunk({"function_call": {"name": "read", "arguments": '{"p"'}}),
        kit.chunk({"function_call": {"arguments": ": 1}"}}, finish="function_call"),
    ]
    message = kit.final_message(_decode(kit, events))
    assert [(call.name, call.arguments) for call in message.tool_calls] == [("read", '{"p": 1}')]
    assert message.tool_calls[0].id.startswith("call_")
    assert message.stop_reason is StopReason.TOOL_USE


def test_argument_text_for_a_call_closed_by_later_content_is_an_error_not_dropped(kit: Any) -> None:
    events = [
        kit.chunk(
            {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "n", "arguments": "{"}}]}
        ),
        kit.chunk({"content": "text"}),
        kit.chunk(
            {"tool_calls": [{"index": 0, "function": {"arguments": "}"}}]}, finish="tool_calls"
        ),
    ]
    message = kit.final_message(_decode(kit, events))
    assert message.stop_reason is StopReason.ERROR
    assert "after the call was closed" in (message.error_message or "")


# -- errors and ends ---------------------------------------------------------------


def test_an_error_object_mid_stream_ends_the_message_as_an_error_keeping_the_text(kit: Any) -> None:
    """OpenRouter reports an upstream failure after the 200 as a chunk with ``error``."""
    events = [
        kit.chunk({"content": "partial"}),
        kit.chunk({}, finish="error", error={"code": 502, "message": "Provider returned error"}),
        kit.chunk({"content": "ignored"}),
    ]
    out = _decode(kit, events)
    _check_order(out)
    message = out[-1].message
    assert message.stop_reason is StopReason.ERROR
    assert message.error_message == "Provider returned error (502)"
    assert message.content == [TextBlock("partial")]


def test_fail_keeps_partial_text_and_tool_calls_with_ids(kit: Any) -> None:
    decoder = OpenAICompletions().decoder(kit.request_for())
    out = decoder.feed(kit.chunk({"content": "so far"}))
    out += decoder.feed(
        kit.chunk(
            {"tool_calls": [{"index": 0, "function": {"name": "read", "arguments": '{"p": '}}]}
        )
    )
    out += decoder.fail(StopReason.ABORTED, "Request was aborted")
    assert decoder.finish() == []
    _check_order(out)
    message = out[-1].message
    assert (message.stop_reason, message.error_message) == (
        StopReason.ABORTED,
        "Request was aborted",
    )
    assert message.text == "so far"
    assert message.tool_calls[0].arguments == '{"p": '
    assert message.tool_calls[0].id.startswith("call_")


def test_the_done_sentinel_and_an_empty_role_chunk_add_nothing(kit: Any) -> None:
    events = [
        kit.chunk({"role": "assistant", "content": "", "refusal": None}),
        kit.chunk({"content": "hi"}, finish="stop"),
        WireEvent(data="[DONE]"),
    ]
    out = _decode(kit, events)
    _check_order(out)
    assert out[-1].message.content == [TextBlock("hi")]


def test_a_body_without_choices_is_an_error_naming_the_base_url(kit: Any) -> None:
    message = kit.final_message(
        _decode(kit, [WireEvent(data={"method": "POST", "pathname": "/x"})])
    )
    assert message.stop_reason is StopReason.ERROR
    assert "base URL" in (message.error_message or "")


def test_provenance_is_the_row_and_the_served_model(kit: Any) -> None:
    message = kit.final_message(
        _decode(kit, [kit.chunk({"content": "x"}, finish="stop", model="gpt-4o-mini-2024-07-18")])
    )
    assert (message.provider, message.api, message.model) == (
        "openai",
        "openai-completions",
        "gpt-4o-mini",
    )
    assert (message.response_model, message.response_id) == ("gpt-4o-mini-2024-07-18", "chatcmpl-1")
