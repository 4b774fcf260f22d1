"""Decoding Ollama responses: streamed and whole agree, ids are derived, errors inside a 200 surface.

Response shapes follow Ollama's API reference (see ``conftest.py``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agentkit_provider_ollama import OllamaChat, synthesized_call_id

from agentkit.plugin_api import (
    AssistantMessage,
    BlockDelta,
    BlockEnd,
    BlockStart,
    MessageStart,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolUseBlock,
    UserMessage,
    WireEvent,
)

# Keys out of alphabetical order, nesting, unicode, a float, null: the argument
# text must keep all of it in the server's order.
ARGS_A = {"path": "src/日本.py", "limit": 200, "options": {"z": True, "a": None}, "ratio": 0.5}
ARGS_B = {"query": "naïve “quotes” \\ and \n newline", "files": ["b", "a"]}


def _two_calls(kit: Any) -> list[dict]:
    return [
        kit.line({"thinking": "Two reads "}),
        kit.line({"thinking": "are needed."}),
        kit.line({"content": "Reading "}),
        kit.line({"content": "both."}),
        kit.line({"tool_calls": [{"function": {"name": "read_file", "arguments": ARGS_A}}]}),
        kit.line({"tool_calls": [{"function": {"name": "search", "arguments": ARGS_B}}]}),
        kit.done(prompt=300, output=40),
    ]


def _signature(message: AssistantMessage) -> list[tuple]:
    return [
        (type(block).__name__, *(getattr(block, f) for f in block.__dataclass_fields__))
        for block in message.content
    ]


def test_streamed_and_whole_responses_give_the_same_message(kit: Any) -> None:
    request = kit.request_for(messages=[UserMessage.text("read a and search b")])
    streamed = kit.final_message(
        kit.decode(kit.frame_ndjson(kit.ndjson(_two_calls(kit))), request=request)
    )
    whole = kit.final_message(
        kit.decode(kit.frame_json(kit.whole(_two_calls(kit))), request=request)
    )
    assert _signature(streamed) == _signature(whole)
    assert [call.arguments for call in streamed.tool_calls] == [
        json.dumps(ARGS_A, ensure_ascii=False, separators=(",", ":")),
        json.dumps(ARGS_B, ensure_ascii=False, separators=(",", ":")),
    ]
    assert [list(json.loads(call.arguments)) for call in whole.tool_calls] == [
        list(ARGS_A),
        list(ARGS_B),
    ]
    assert [type(block) for block in whole.content] == [
        ThinkingBlock,
        TextBlock,
        ToolUseBlock,
        ToolUseBlock,
    ]
    assert (whole.stop_reason, whole.raw_stop_reason) == (StopReason.TOOL_USE, "stop")
    assert (whole.usage.input, whole.usage.output, whole.usage.cache_read) == (300, 40, 0)


def test_all_calls_in_one_chunk_get_the_ids_they_get_one_per_chunk(kit: Any) -> None:
    chunks = _two_calls(kit)
    both = [*chunks[4]["message"]["tool_calls"], *chunks[5]["message"]["tool_calls"]]
    together = [*chunks[:4], kit.line({"tool_calls": both}), chunks[6]]
    apart = kit.final_message(kit.decode(kit.frame_ndjson(kit.ndjson(chunks))))
    joined = kit.final_message(kit.decode(kit.frame_ndjson(kit.ndjson(together))))
    assert [(c.id, c.name, c.arguments) for c in apart.tool_calls] == [
        (c.id, c.name, c.arguments) for c in joined.tool_calls
    ]


def test_ids_are_derived_from_the_responses_place_not_a_counter(kit: Any) -> None:
    provider = OllamaChat()
    history = [UserMessage.text("go")]
    request = kit.request_for(messages=history)
    first = kit.final_message(
        kit.decode(
            kit.frame_ndjson(kit.ndjson(_two_calls(kit))), request=request, provider=provider
        )
    )
    # The same response decoded again (a retry, a replay) gets the same ids,
    # however many responses the provider decoded in between.
    kit.decode(kit.frame_ndjson(kit.ndjson(_two_calls(kit))), provider=provider)
    again = kit.final_message(
        kit.decode(
            kit.frame_json(kit.whole(_two_calls(kit))), request=request, provider=OllamaChat()
        )
    )
    assert [c.id for c in first.tool_calls] == [c.id for c in again.tool_calls]
    salt = f"{request.model.key}:{len(history)}"
    assert [c.id for c in first.tool_calls] == [
        synthesized_call_id(salt, 0, "read_file"),
        synthesized_call_id(salt, 1, "search"),
    ]
    # Ids differ between the calls of one response and between responses at
    # different places in the transcript, and fit every wire's id alphabet.
    later = kit.request_for(
        messages=[
            *history,
            first,
            *(ToolResultMessage(c.id, c.name, [TextBlock("ok")]) for c in first.tool_calls),
        ]
    )
    next_turn = kit.final_message(
        kit.decode(kit.frame_ndjson(kit.ndjson(_two_calls(kit))), request=later)
    )
    ids = [c.id for c in first.tool_calls + next_turn.tool_calls]
    assert len(set(ids)) == 4
    assert all(len(i) <= 64 and i.replace("_", "").isalnum() and i.isascii() for i in ids)


def test_events_follow_the_normative_order(kit: Any) -> None:
    events = kit.decode(kit.frame_ndjson(kit.ndjson(_two_calls(kit))))
    kinds = [
        (type(e).__name__, getattr(e, "index", None))
        for e in events
        if isinstance(e, MessageStart | BlockStart | BlockEnd)
    ]
    assert kinds == [
        ("MessageStart", None),
        ("BlockStart", 0), ("BlockEnd", 0),
        ("BlockStart", 1), ("BlockEnd", 1),
        ("BlockStart", 2), ("BlockEnd", 2),
        ("BlockStart", 3), ("BlockEnd", 3),
    ]  # fmt: skip
    deltas = [e.delta for e in events if isinstance(e, BlockDelta) and e.index == 1]
    assert deltas == ["Reading ", "both."]
    starts = [e for e in events if isinstance(e, BlockStart) and e.kind == "tool_use"]
    assert [(s.tool_name, bool(s.tool_use_id)) for s in starts] == [
        ("read_file", True),
        ("search", True),
    ]


def test_text_after_a_tool_call_starts_a_new_block(kit: Any) -> None:
    chunks = [
        kit.line({"content": "Before."}),
        kit.line({"tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "a"}}}]}),
        kit.line({"content": "After."}),
        kit.done(),
    ]
    message = kit.final_message(kit.decode(kit.frame_ndjson(kit.ndjson(chunks))))
    assert [type(b).__name__ for b in message.content] == ["TextBlock", "ToolUseBlock", "TextBlock"]
    assert message.text == "Before.After."


@pytest.mark.parametrize(
    ("reason", "calls", "stop"),
    [
        ("stop", False, StopReason.STOP),
        ("stop", True, StopReason.TOOL_USE),
        ("length", False, StopReason.LENGTH),
        ("length", True, StopReason.LENGTH),
        ("load", False, StopReason.STOP),
        ("something new", False, StopReason.STOP),
        (None, True, StopReason.TOOL_USE),
    ],
)
def test_done_reasons(kit: Any, reason: str | None, calls: bool, stop: StopReason) -> None:
    chunks = [kit.line({"content": "x"})]
    if calls:
        chunks.append(kit.line({"tool_calls": [{"function": {"name": "f", "arguments": {}}}]}))
    final = kit.done(reason or "stop")
    if reason is None:
        del final["done_reason"]
    message = kit.final_message(kit.decode(kit.frame_ndjson(kit.ndjson([*chunks, final]))))
    assert (message.stop_reason, message.raw_stop_reason) == (stop, reason)


def test_counts_are_input_and_output_and_zero_counts_are_not_usage(kit: Any) -> None:
    message = kit.final_message(
        kit.decode(
            kit.frame_ndjson(
                kit.ndjson([kit.line({"content": "a"}), kit.done(prompt=61, output=468)])
            )
        )
    )
    assert (message.usage.input, message.usage.output, message.usage.reasoning) == (61, 468, 0)
    final = kit.done()
    del final["prompt_eval_count"], final["eval_count"]
    bare = kit.final_message(
        kit.decode(kit.frame_ndjson(kit.ndjson([kit.line({"content": "a"}), final])))
    )
    assert bare.usage.total == 0


def test_arguments_sent_as_text_are_kept_as_sent(kit: Any) -> None:
    chunks = [
        kit.line({"tool_calls": [{"function": {"name": "f", "arguments": '{"b": 1, "a": 2}'}}]}),
        kit.done(),
    ]
    (call,) = kit.final_message(kit.decode(kit.frame_ndjson(kit.ndjson(chunks)))).tool_calls
    assert call.arguments == '{"b": 1, "a": 2}'


# -- errors inside a 200 --------------------------------------------------------


def test_an_error_line_mid_stream_ends_the_message_keeping_what_arrived(kit: Any) -> None:
    raw = kit.ndjson(
        [
            kit.line({"thinking": "Let me "}),
            kit.line({"content": "The answer is"}),
            kit.line(
                {"tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "a"}}}]}
            ),
            {
                "error": "an error was encountered while running the model: CUDA error: out of memory"
            },
            kit.line({"content": " never seen"}),
        ]
    )
    events = kit.decode(kit.frame_ndjson(raw))
    message = kit.final_message(events)
    assert message.stop_reason is StopReason.ERROR
    assert "CUDA error: out of memory" in (message.error_message or "")
    assert message.text == "The answer is"
    assert [type(b).__name__ for b in message.content] == [
        "ThinkingBlock",
        "TextBlock",
        "ToolUseBlock",
    ]
    # Every block that started was ended before the message.
    started = {e.index for e in events if isinstance(e, BlockStart)}
    assert started == {e.index for e in events if isinstance(e, BlockEnd)}


def test_an_error_in_the_middle_of_open_text_closes_it_with_its_text(kit: Any) -> None:
    raw = kit.ndjson(
        [kit.line({"content": "partial"}), {"error": "model runner has unexpectedly stopped"}]
    )
    events = kit.decode(kit.frame_ndjson(raw))
    message = kit.final_message(events)
    assert message.stop_reason is StopReason.ERROR
    assert [e.block for e in events if isinstance(e, BlockEnd)] == [TextBlock("partial")]


@pytest.mark.parametrize("framing", ["json", "ndjson"])
def test_an_error_as_the_whole_body_is_an_error_message(kit: Any, framing: str) -> None:
    raw = b'{"error":"model \\"qwen9\\" not found, try pulling it first"}'
    events = kit.frame_json(raw) if framing == "json" else kit.frame_ndjson(raw + b"\n")
    message = kit.final_message(kit.decode(events))
    assert message.stop_reason is StopReason.ERROR
    assert 'model "qwen9" not found, try pulling it first' in (message.error_message or "")
    assert message.content == []


def test_a_stream_without_its_done_line_is_an_error_keeping_the_content(kit: Any) -> None:
    raw = kit.ndjson([kit.line({"content": "cut "}), kit.line({"content": "off"})])
    message = kit.final_message(kit.decode(kit.frame_ndjson(raw)))
    assert message.stop_reason is StopReason.ERROR
    assert "done" in (message.error_message or "")
    assert message.text == "cut off"


def test_lines_after_the_done_line_are_ignored(kit: Any) -> None:
    events = kit.frame_ndjson(
        kit.ndjson([kit.line({"content": "a"}), kit.done(), kit.line({"content": "b"})])
    )
    message = kit.final_message(kit.decode(events))
    assert (message.text, message.stop_reason) == ("a", StopReason.STOP)


def test_fail_keeps_partial_content_for_an_abort(kit: Any) -> None:
    decoder = OllamaChat().decoder(kit.request_for())
    decoder.feed(WireEvent(kit.line({"content": "so far"})))
    message = kit.final_message(decoder.fail(StopReason.ABORTED, "aborted"))
    assert (message.stop_reason, message.text, message.error_message) == (
        StopReason.ABORTED,
        "so far",
        "aborted",
    )
    assert decoder.finish() == []


def test_fields_newer_servers_add_to_a_call_change_nothing(kit: Any) -> None:
    """Newer servers number each call (``function.index``) and may name it (``id``);
    pairing stays positional, so the derived ids and the argument text are the same."""
    plain = [
        kit.line({"tool_calls": [{"function": {"name": "f", "arguments": {"b": 1, "a": 2}}}]}),
        kit.done(),
    ]
    extended = [
        kit.line(
            {
                "tool_calls": [
                    {
                        "id": "call_srv1",
                        "function": {"index": 0, "name": "f", "arguments": {"b": 1, "a": 2}},
                    }
                ]
            }
        ),
        kit.done(),
    ]
    first = kit.final_message(kit.decode(kit.frame_ndjson(kit.ndjson(plain))))
    second = kit.final_message(kit.decode(kit.frame_ndjson(kit.ndjson(extended))))
    assert _signature(first) == _signature(second)
    assert second.tool_calls[0].arguments == '{"b":1,"a":2}'
