"""Decoding: streamed chunks and whole responses into canonical events.

Streams are built by ``conftest.stream_chunks`` in the shape
``streamGenerateContent?alt=sse`` sends (``data:`` lines ended by
``\\r\\n\\r\\n``, text in pieces, a ``functionCall`` whole, cumulative usage on
every chunk, the finish reason on the last) and cut by the host's SSE decoder.
"""

from __future__ import annotations

import json

import pytest
from agentkit_provider_gemini import UNSIGNED_THOUGHT, GeminiGenerateContent

from agentkit.host.wire.json import loads
from agentkit.host.wire.sse import SSEDecoder
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
    Usage,
    UserMessage,
    WireEvent,
)

SIG_T = "CikBypeBEsobvcr6wjGzmiPcTaeG7/gUfE5yuYB3ha/uSLvR7Q=="
SIG_C = "Ci0BPiPoFgA5WUoziU9lZOGxNIu9egCI1CxKy3PurtWcAJ2S61/+5q4v"
SIG_X = "CiQBypeBEs0xAAECAwQFBgcICQ=="


def _tool_turn(kit) -> dict:
    return kit.response(
        [
            {
                "text": "**Planning** the reads, carefully.",
                "thought": True,
                "thoughtSignature": SIG_T,
            },
            {"text": "Reading both — ✓"},
            {
                "functionCall": {"name": "read_file", "args": {"path": "ü/日本.py", "limit": 20}},
                "thoughtSignature": SIG_C,
            },
            {"functionCall": {"name": "read_file", "args": {"path": "b.py"}}},
            {"functionCall": {"name": "grep", "args": {}}},
        ],
        usage=kit.usage_metadata(1200, 150, cached=1000, thoughts=100),
    )


class TestStreamingAndWholeAgree:
    @pytest.mark.parametrize("chunk", [1, 4, 500])
    @pytest.mark.parametrize("apart", [False, True])
    def test_the_same_blocks_ids_arguments_and_signatures(self, kit, chunk, apart) -> None:
        whole = kit.response(
            [
                *_tool_turn(kit)["candidates"][0]["content"]["parts"],
                {"text": "Done.", "thoughtSignature": SIG_X},
            ],
            usage=kit.usage_metadata(1200, 150, cached=1000, thoughts=100),
        )
        streamed, decoded = kit.streamed_and_whole(whole, chunk=chunk, signature_apart=apart)
        assert streamed.content == decoded.content
        assert (streamed.usage, streamed.stop_reason) == (decoded.usage, decoded.stop_reason)
        assert streamed.response_id == decoded.response_id == whole["responseId"]
        calls = decoded.tool_calls
        assert [call.arguments for call in calls] == [
            '{"path":"ü/日本.py","limit":20}',
            '{"path":"b.py"}',
            "{}",
        ]
        assert len({call.id for call in calls}) == 3
        assert all(call.id.startswith("gemini_") and len(call.id) <= 64 for call in calls)

    def test_the_blocks_in_order(self, kit) -> None:
        message = kit.final_message(kit.decode(kit.frame_json(_tool_turn(kit))))
        ids = [call.id for call in message.tool_calls]
        assert message.content == [
            ThinkingBlock("**Planning** the reads, carefully.", SIG_T),
            TextBlock("Reading both — ✓"),
            ToolUseBlock(ids[0], "read_file", '{"path":"ü/日本.py","limit":20}'),
            ThinkingBlock("", SIG_C, redacted=True),
            ToolUseBlock(ids[1], "read_file", '{"path":"b.py"}'),
            ToolUseBlock(ids[2], "grep", "{}"),
        ]
        assert message.stop_reason is StopReason.TOOL_USE and message.raw_stop_reason == "STOP"
        assert (message.provider, message.api, message.model) == (
            "google",
            "google-generative-ai",
            "gemini-2.5-flash",
        )
        assert message.response_model == "gemini-2.5-flash"


class TestIds:
    def test_ids_do_not_depend_on_a_counter_or_on_how_often_we_decode(self, kit) -> None:
        request = kit.request_for()
        first = kit.final_message(kit.decode(kit.frame_json(_tool_turn(kit)), request=request))
        again = kit.final_message(kit.decode(kit.frame_json(_tool_turn(kit)), request=request))
        assert [c.id for c in first.tool_calls] == [c.id for c in again.tool_calls]

    def test_ids_differ_between_turns_and_between_identical_calls(self, kit) -> None:
        same_call = {"functionCall": {"name": "grep", "args": {"q": "x"}}}
        whole = kit.response([same_call, same_call])
        turn_one = kit.request_for(messages=[UserMessage.text("a")])
        turn_two = kit.request_for(messages=[UserMessage.text("a")] * 3)
        one = kit.final_message(kit.decode(kit.frame_json(whole), request=turn_one)).tool_calls
        two = kit.final_message(kit.decode(kit.frame_json(whole), request=turn_two)).tool_calls
        assert one[0].id != one[1].id
        assert {c.id for c in one}.isdisjoint({c.id for c in two})

    def test_an_id_the_wire_sends_is_kept(self, kit) -> None:
        whole = kit.response([{"functionCall": {"id": "fc-01", "name": "grep", "args": {}}}])
        (call,) = kit.final_message(kit.decode(kit.frame_json(whole))).tool_calls
        assert call.id == "fc-01"


class TestBlocks:
    def test_text_after_a_function_call_starts_a_new_block(self, kit) -> None:
        whole = kit.response(
            [
                {"text": "Let me look."},
                {"functionCall": {"name": "grep", "args": {"q": "x"}}},
                {"text": "Meanwhile, a note."},
            ]
        )
        chunks = kit.stream_chunks(whole, chunk=5)
        events = kit.decode(kit.frame_sse(kit.sse_bytes(chunks)))
        message = kit.final_message(events)
        assert [type(b).__name__ for b in message.content] == [
            "TextBlock",
            "ToolUseBlock",
            "TextBlock",
        ]
        assert message.content[0] == TextBlock("Let me look.")
        assert message.content[2] == TextBlock("Meanwhile, a note.")
        starts = [e.index for e in events if isinstance(e, BlockStart)]
        assert starts == [0, 1, 2]

    def test_the_event_order_is_the_normative_one(self, kit) -> None:
        events = kit.decode(
            kit.frame_sse(kit.sse_bytes(kit.stream_chunks(_tool_turn(kit), chunk=7)))
        )
        assert isinstance(events[0], MessageStart)
        assert isinstance(events[-1], MessageEnd)
        open_index = None
        ended = []
        for event in events[1:-1]:
            if isinstance(event, BlockStart):
                assert open_index is None, "one block at a time on this wire"
                open_index = event.index
            elif isinstance(event, BlockDelta):
                assert event.index == open_index
            elif isinstance(event, BlockEnd):
                assert event.index == open_index
                ended.append(event.block)
                open_index = None
        assert ended == events[-1].message.content

    def test_a_tool_use_block_starts_with_its_id_and_name(self, kit) -> None:
        whole = kit.response([{"functionCall": {"name": "grep", "args": {"q": "x"}}}])
        events = kit.decode(kit.frame_json(whole))
        (start,) = [e for e in events if isinstance(e, BlockStart)]
        (delta,) = [e for e in events if isinstance(e, BlockDelta)]
        call = kit.final_message(events).tool_calls[0]
        assert (start.kind, start.tool_name, start.tool_use_id) == ("tool_use", "grep", call.id)
        assert delta.delta == '{"q":"x"}'

    def test_empty_parts_without_a_signature_leave_nothing(self, kit) -> None:
        whole = kit.response([{"text": ""}, {"text": "", "thought": True}, {"text": "hi"}])
        message = kit.final_message(kit.decode(kit.frame_json(whole)))
        assert message.content == [TextBlock("hi")]

    def test_an_empty_signed_part_after_a_call_is_kept_as_its_own_part(self, kit) -> None:
        whole = kit.response(
            [
                {"functionCall": {"name": "grep", "args": {}}},
                {"text": "", "thoughtSignature": SIG_X},
            ]
        )
        message = kit.final_message(kit.decode(kit.frame_json(whole)))
        assert message.content[1:] == [TextBlock(""), ThinkingBlock("", SIG_X, redacted=True)]

    def test_an_unsigned_thought_is_marked_so_it_replays_as_a_thought(self, kit) -> None:
        whole = kit.response(
            [
                {"text": "**Plan**", "thought": True},
                {"text": " more", "thought": True},
                {"text": "ok"},
            ]
        )
        message = kit.final_message(kit.decode(kit.frame_json(whole)))
        assert message.content == [
            ThinkingBlock("**Plan** more", UNSIGNED_THOUGHT),
            TextBlock("ok"),
        ]
        body = kit.body_of(kit.request_for(messages=[UserMessage.text("q"), message]))
        assert body["contents"][1]["parts"] == [
            {"text": "**Plan** more", "thought": True},
            {"text": "ok"},
        ]

    def test_unknown_part_kinds_are_skipped(self, kit) -> None:
        whole = kit.response(
            [
                {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
                {"text": "one"},
            ]
        )
        assert kit.final_message(kit.decode(kit.frame_json(whole))).content == [TextBlock("one")]


class TestSignatureRoundTrip:
    """A transcript replayed to the same model carries each signature on its own part."""

    @pytest.mark.parametrize("apart", [False, True])
    def test_decoded_then_encoded_gives_back_the_response_parts(self, kit, apart) -> None:
        parts = [
            {"text": "**Plan**", "thought": True},
            {"text": "I'll read it.", "thoughtSignature": SIG_T},
            {
                "functionCall": {"name": "read_file", "args": {"path": "a.py"}},
                "thoughtSignature": SIG_C,
            },
            {"functionCall": {"name": "read_file", "args": {"path": "b.py"}}},
            {"text": "Then I'll answer.", "thoughtSignature": SIG_X},
        ]
        whole = kit.response(parts, usage=kit.usage_metadata(10, 5, thoughts=3))
        streamed, decoded = kit.streamed_and_whole(whole, chunk=3, signature_apart=apart)
        for message in (streamed, decoded):
            body = kit.body_of(kit.request_for(messages=[UserMessage.text("go"), message]))
            assert body["contents"][1] == {"role": "model", "parts": parts}


class TestUsage:
    def test_thoughts_are_inside_output_and_cached_tokens_are_netted_once(self, kit) -> None:
        whole = kit.response(
            [{"text": "x"}], usage=kit.usage_metadata(5000, 300, cached=4096, thoughts=1200)
        )
        streamed, decoded = kit.streamed_and_whole(whole)
        for message in (streamed, decoded):
            assert message.usage == Usage(
                input=5000 - 4096, output=300 + 1200, reasoning=1200, cache_read=4096
            )

    def test_the_last_usage_of_a_stream_wins_and_zero_is_not_authoritative(self, kit) -> None:
        chunks = kit.stream_chunks(kit.response([{"text": "abcdef"}]), chunk=2)
        for number, chunk in enumerate(chunks):
            chunk["usageMetadata"] = kit.usage_metadata(40, number + 1)
        chunks.append({"usageMetadata": {"promptTokenCount": 0}, "responseId": "r"})
        message = kit.final_message(kit.decode(kit.frame_sse(kit.sse_bytes(chunks))))
        assert message.usage == Usage(input=40, output=len(chunks) - 1)

    def test_tool_use_prompt_tokens_count_as_input(self, kit) -> None:
        usage = {**kit.usage_metadata(100, 10), "toolUsePromptTokenCount": 25}
        message = kit.final_message(
            kit.decode(kit.frame_json(kit.response([{"text": "x"}], usage=usage)))
        )
        assert message.usage.input == 125


class TestEndings:
    @pytest.mark.parametrize(
        ("raw", "stop"),
        [
            ("STOP", StopReason.STOP),
            ("MAX_TOKENS", StopReason.LENGTH),
            ("SAFETY", StopReason.REFUSAL),
            ("RECITATION", StopReason.REFUSAL),
            ("BLOCKLIST", StopReason.REFUSAL),
            ("PROHIBITED_CONTENT", StopReason.REFUSAL),
            ("SPII", StopReason.REFUSAL),
            ("MALFORMED_FUNCTION_CALL", StopReason.ERROR),
            ("SOMETHING_NEW", StopReason.STOP),
        ],
    )
    def test_finish_reasons(self, kit, raw, stop) -> None:
        message = kit.final_message(
            kit.decode(kit.frame_json(kit.response([{"text": "t"}], finish=raw)))
        )
        assert (message.stop_reason, message.raw_stop_reason) == (stop, raw)
        assert (message.error_message is not None) == (stop is StopReason.ERROR)

    def test_stop_alongside_function_calls_is_tool_use_with_the_raw_reason_kept(self, kit) -> None:
        whole = kit.response([{"functionCall": {"name": "grep", "args": {}}}], finish="STOP")
        message = kit.final_message(kit.decode(kit.frame_json(whole)))
        assert (message.stop_reason, message.raw_stop_reason) == (StopReason.TOOL_USE, "STOP")
        assert len(message.tool_calls) == 1

    def test_max_tokens_with_function_calls_stays_length(self, kit) -> None:
        whole = kit.response([{"functionCall": {"name": "grep", "args": {}}}], finish="MAX_TOKENS")
        message = kit.final_message(kit.decode(kit.frame_json(whole)))
        assert message.stop_reason is StopReason.LENGTH

    def test_a_blocked_prompt_is_a_refusal_naming_the_reason(self, kit) -> None:
        body = {
            "promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
            "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9},
            "modelVersion": "gemini-2.5-flash",
            "responseId": "blocked-1",
        }
        message = kit.final_message(kit.decode(kit.frame_json(body)))
        assert message.stop_reason is StopReason.REFUSAL
        assert message.raw_stop_reason == "PROHIBITED_CONTENT"
        assert "PROHIBITED_CONTENT" in message.error_message
        assert message.usage.input == 9

    def test_an_error_object_ends_the_message_with_its_text(self, kit) -> None:
        chunks = kit.stream_chunks(kit.response([{"text": "partial answer"}], finish=None), chunk=7)
        chunks.append(
            {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
        )
        message = kit.final_message(kit.decode(kit.frame_sse(kit.sse_bytes(chunks))))
        assert message.stop_reason is StopReason.ERROR
        assert (
            "The model is overloaded." in message.error_message
            and "UNAVAILABLE" in message.error_message
        )
        assert message.content == [TextBlock("partial answer")]

    def test_a_stream_without_a_finish_reason_was_cut_short(self, kit) -> None:
        chunks = kit.stream_chunks(kit.response([{"text": "half"}], finish=None))
        message = kit.final_message(kit.decode(kit.frame_sse(kit.sse_bytes(chunks))))
        assert message.stop_reason is StopReason.ERROR
        assert "without a finishReason" in message.error_message
        assert message.content == [TextBlock("half")]

    def test_fail_keeps_the_partial_content(self, kit) -> None:
        decoder = GeminiGenerateContent().decoder(kit.request_for())
        (first,) = kit.frame_sse(
            kit.sse_bytes(kit.stream_chunks(kit.response([{"text": "abc"}]), chunk=3))
        )
        decoder.feed(first)
        events = decoder.fail(StopReason.ABORTED, "aborted")
        message = kit.final_message(events)
        assert message.stop_reason is StopReason.ABORTED and message.content == [TextBlock("abc")]
        assert decoder.finish() == [] and decoder.feed(first) == []


class TestFraming:
    def test_crlf_separated_events_split_anywhere_decode_the_same(self, kit) -> None:
        """``alt=sse`` separates events with ``\\r\\n\\r\\n``; a read may end between the two."""
        raw = kit.sse_bytes(kit.stream_chunks(_tool_turn(kit), chunk=5))
        assert raw.count(b"\r\n\r\n") == len(kit.stream_chunks(_tool_turn(kit), chunk=5))
        sse = SSEDecoder()
        wire: list[WireEvent] = []
        for start in range(0, len(raw), 3):  # odd reads split every \r\n pair somewhere
            for message in sse.feed(raw[start : start + 3]):
                wire.append(WireEvent(loads(message.data.encode())))
        for message in sse.close():
            wire.append(WireEvent(loads(message.data.encode())))
        split = kit.final_message(kit.decode(wire))
        whole = kit.final_message(kit.decode(kit.frame_sse(raw)))
        assert (split.content, split.usage) == (whole.content, whole.usage)

    def test_a_json_array_of_chunks_decodes_like_the_stream(self, kit) -> None:
        chunks = kit.stream_chunks(_tool_turn(kit), chunk=4)
        array = kit.final_message(kit.decode(kit.frame_json(json.dumps(chunks).encode())))
        streamed = kit.final_message(kit.decode(kit.frame_sse(kit.sse_bytes(chunks))))
        assert array.content == streamed.content and array.usage == streamed.usage
