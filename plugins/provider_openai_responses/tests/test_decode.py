"""Decoding: streamed events and whole responses into canonical events.

The streams are built by ``conftest.stream_events`` in the order and shape of
OpenAI's Responses streaming reference (``response.created``, then per output
item ``output_item.added``, its deltas and ``.done`` events,
``output_item.done``, then the terminal event).
"""

from __future__ import annotations

import json

import pytest
from agentkit_provider_openai_responses import OpenAIResponses

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
    WireEvent,
)


def _wire(events: list[dict]) -> list[WireEvent]:
    return [WireEvent(data=event, event=event["type"]) for event in events]


def _both(kit, response: dict, chunk: int = 4):
    """The message decoded from the stream and from the whole body."""
    streamed = kit.final_message(
        kit.decode(kit.frame_sse(kit.sse_bytes(kit.stream_events(response, chunk=chunk))))
    )
    whole = kit.final_message(kit.decode(kit.frame_json(response)))
    return streamed, whole


def _tool_turn(kit) -> dict:
    return kit.response_object(
        [
            kit.reasoning_item("rs_1", ["**Looking**", "Both files."], "gAAAA-enc-1"),
            kit.message_item("Reading two files.", "msg_1"),
            kit.call_item("call_A", "fc_A", "read_file", '{"path": "a.py", "limit": 20}'),
            kit.call_item("call_B", "fc_B", "read_file", '{"path":"ü/日本.py"}'),
        ],
        usage=kit.usage(1200, 1000, 150, reasoning=100),
    )


class TestBlocks:
    def test_streaming_and_whole_responses_agree(self, kit) -> None:
        streamed, whole = _both(kit, _tool_turn(kit))
        assert streamed.content == whole.content
        assert streamed.content == [
            ThinkingBlock("**Looking**", json.dumps({"id": "rs_1"}, separators=(",", ":"))),
            ThinkingBlock(
                "Both files.",
                json.dumps(
                    {"id": "rs_1", "encrypted_content": "gAAAA-enc-1"}, separators=(",", ":")
                ),
            ),
            TextBlock("Reading two files."),
            ToolUseBlock("call_A|fc_A", "read_file", '{"path": "a.py", "limit": 20}'),
            ToolUseBlock("call_B|fc_B", "read_file", '{"path":"ü/日本.py"}'),
        ]
        for message in (streamed, whole):
            assert message.stop_reason is StopReason.TOOL_USE
            assert message.raw_stop_reason == "completed"
            assert message.response_id == "resp_0a1b2c"
            assert message.response_model == "gpt-5-2025-08-07"
            assert message.api == "openai-responses"
            assert message.provider == "openai-responses"

    @pytest.mark.parametrize("chunk", [1, 3, 1000])
    def test_argument_text_is_exactly_the_concatenated_deltas(self, kit, chunk) -> None:
        arguments = '{"pattern": "a\\"b", "n" : 3 }'
        response = kit.response_object([kit.call_item("call_1", "fc_1", "grep", arguments)])
        streamed, whole = _both(kit, response, chunk)
        assert streamed.tool_calls[0].arguments == arguments == whole.tool_calls[0].arguments

    def test_a_placeholder_argument_string_is_not_seeded_into_the_deltas(self, kit) -> None:
        response = kit.response_object([kit.call_item("call_1", "fc_1", "grep", '{"q": 1}')])
        events = kit.stream_events(response, chunk=2)
        added = next(e for e in events if e["type"] == "response.output_item.added")
        added["item"]["arguments"] = "{}"  # whatever the added item says is a placeholder
        message = kit.final_message(kit.decode(_wire(events)))
        assert message.tool_calls[0].arguments == '{"q": 1}'

    def test_the_done_event_supplies_arguments_that_never_streamed(self, kit) -> None:
        response = kit.response_object([kit.call_item("call_1", "fc_1", "grep", '{"q": 1}')])
        events = [
            e
            for e in kit.stream_events(response)
            if e["type"] != "response.function_call_arguments.delta"
        ]
        message = kit.final_message(kit.decode(_wire(events)))
        assert message.tool_calls[0].arguments == '{"q": 1}'
        assert message.stop_reason is StopReason.TOOL_USE

    def test_arguments_that_contradict_the_deltas_end_as_an_error(self, kit) -> None:
        response = kit.response_object([kit.call_item("call_1", "fc_1", "grep", '{"q": 1}')])
        events = kit.stream_events(response)
        for event in events:
            if event["type"] == "response.function_call_arguments.done":
                event["arguments"] = '{"q": 2}'
        message = kit.final_message(kit.decode(_wire(events)))
        assert message.stop_reason is StopReason.ERROR
        assert "differ from the streamed deltas" in message.error_message

    def test_the_event_order_is_normative(self, kit) -> None:
        response = kit.response_object(
            [kit.message_item("Hi there"), kit.call_item("c", "fc", "grep", "{}")]
        )
        events = kit.decode(_wire(kit.stream_events(response, chunk=3)))
        kinds = [type(event).__name__ for event in events]
        assert kinds == [
            "MessageStart",
            "BlockStart",
            "BlockDelta",
            "BlockDelta",
            "BlockDelta",
            "BlockEnd",
            "BlockStart",
            "BlockDelta",
            "BlockEnd",
            "MessageEnd",
        ]
        starts = [e for e in events if isinstance(e, BlockStart)]
        assert [(s.index, s.kind) for s in starts] == [(0, "text"), (1, "tool_use")]
        assert starts[1].tool_use_id == "c|fc" and starts[1].tool_name == "grep"
        ends = [e for e in events if isinstance(e, BlockEnd)]
        assert ends[0].block == TextBlock("Hi there")
        text = "".join(e.delta for e in events if isinstance(e, BlockDelta) and e.index == 0)
        assert text == "Hi there"
        assert isinstance(events[0], MessageStart) and isinstance(events[-1], MessageEnd)


class TestReasoning:
    def test_the_signature_comes_from_the_finished_item(self, kit) -> None:
        # The added item carries no encrypted content; only output_item.done does.
        response = kit.response_object([kit.reasoning_item("rs_9", ["Why."], "gAAAA-full")])
        streamed, whole = _both(kit, response)
        for message in (streamed, whole):
            [block] = message.content
            assert json.loads(block.signature) == {"id": "rs_9", "encrypted_content": "gAAAA-full"}
            assert block.thinking == "Why." and block.redacted is False

    def test_reasoning_without_a_summary_is_kept_as_redacted(self, kit) -> None:
        response = kit.response_object(
            [kit.reasoning_item("rs_9", [], "gAAAA-only"), kit.message_item("Answer.")]
        )
        streamed, whole = _both(kit, response)
        assert streamed.content == whole.content
        assert streamed.content[0] == ThinkingBlock(
            "",
            json.dumps({"id": "rs_9", "encrypted_content": "gAAAA-only"}, separators=(",", ":")),
            True,
        )

    def test_an_unfinished_reasoning_item_keeps_its_id_but_not_its_item_ids(self, kit) -> None:
        from agentkit.plugin_api import ToolResultMessage, UserMessage

        response = kit.response_object(
            [kit.reasoning_item("rs_cut", ["Hmm"]), kit.call_item("call_1", "fc_1", "grep", "{}")]
        )
        events = [
            e
            for e in kit.stream_events(response)
            if not (e["type"] == "response.output_item.done" and e["output_index"] == 0)
        ]
        events[-1]["response"]["output"] = []  # the terminal event repeats nothing
        message = kit.final_message(kit.decode(_wire(events)))
        assert json.loads(message.content[0].signature) == {"id": "rs_cut"}
        result = ToolResultMessage("call_1|fc_1", "grep", [TextBlock("none")])
        body = kit.body_of(kit.request_for(messages=[UserMessage.text("go"), message, result]))
        assert [item["type"] for item in body["input"]] == [
            "message",
            "function_call",
            "function_call_output",
        ]
        assert "id" not in body["input"][1]

    def test_each_summary_part_is_a_block_and_empty_parts_make_none(self, kit) -> None:
        item = kit.reasoning_item("rs_1", ["a", "", "b"])
        streamed, whole = _both(kit, kit.response_object([item]))
        assert [b.thinking for b in streamed.content] == [b.thinking for b in whole.content] == ["a", "b"]
        # Even when the empty part streams an empty delta.
        events = kit.stream_events(kit.response_object([item]))
        at = next(i for i, e in enumerate(events) if e.get("summary_index") == 1)
        empty = {"item_id": "rs_1", "output_index": 0, "summary_index": 1, "delta": ""}
        events.insert(at + 1, {"type": "response.reasoning_summary_text.delta", **empty})
        assert [b.thinking for b in kit.final_message(kit.decode(_wire(events))).content] == ["a", "b"]

    def test_summary_parts_go_back_as_the_parts_of_one_item(self, kit) -> None:
        from agentkit.plugin_api import UserMessage

        item = kit.reasoning_item("rs_1", ["**Plan**", "", "Read it.", "Then answer."], "gAAAA-enc")
        for message in _both(kit, kit.response_object([item, kit.message_item("Done.", "msg_1")])):
            body = kit.body_of(kit.request_for(messages=[UserMessage.text("go"), message]))
            assert body["input"][1] == {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": text} for text in ("**Plan**", "Read it.", "Then answer.")],
                "encrypted_content": "gAAAA-enc",
            }

    def test_a_final_summary_that_rewrites_an_earlier_part_is_an_error(self, kit) -> None:
        item = kit.reasoning_item("rs_1", ["a", "b"], "gAAAA-enc")
        events = kit.stream_events(kit.response_object([item]))
        for event in events:
            if event["type"] == "response.output_item.done":
                event["item"]["summary"][0]["text"] = "not a"
        message = kit.final_message(kit.decode(_wire(events)))
        assert message.stop_reason is StopReason.ERROR and "summary" in (message.error_message or "")

    def test_a_decoded_transcript_replays_its_own_identities(self, kit) -> None:
        from agentkit.plugin_api import ToolResultMessage, UserMessage

        streamed, _ = _both(kit, _tool_turn(kit))
        results = [ToolResultMessage(c.id, c.name, [TextBlock("ok")]) for c in streamed.tool_calls]
        body = kit.body_of(kit.request_for(messages=[UserMessage.text("go"), streamed, *results]))
        items = body["input"][1:]
        assert [item["type"] for item in items] == [
            "reasoning",
            "message",
            "function_call",
            "function_call",
            "function_call_output",
            "function_call_output",
        ]
        assert items[0]["id"] == "rs_1" and items[0]["encrypted_content"] == "gAAAA-enc-1"
        assert [(i["call_id"], i["id"]) for i in items[2:4]] == [
            ("call_A", "fc_A"),
            ("call_B", "fc_B"),
        ]
        assert [i["call_id"] for i in items[4:]] == ["call_A", "call_B"]
        assert items[3]["arguments"] == '{"path":"ü/日本.py"}'


class TestUsage:
    def test_cached_tokens_are_netted_out_of_input_exactly_once(self, kit) -> None:
        streamed, whole = _both(kit, _tool_turn(kit))
        expected = Usage(input=200, output=150, reasoning=100, cache_read=1000)
        assert streamed.usage == expected == whole.usage

    def test_cache_writes_are_netted_out_too(self) -> None:
        from agentkit_provider_openai_responses import usage_from_wire

        usage = usage_from_wire(
            {
                "input_tokens": 5000,
                "input_tokens_details": {"cached_tokens": 1000, "cache_write_tokens": 3000},
                "output_tokens": 10,
                "output_tokens_details": {"reasoning_tokens": 0},
            }
        )
        assert usage == Usage(input=1000, output=10, cache_read=1000, cache_write=3000)
        assert usage.total == 5010


class TestEndings:
    def test_text_only_is_stop(self, kit) -> None:
        streamed, whole = _both(kit, kit.response_object([kit.message_item("Done.")]))
        assert streamed.stop_reason is whole.stop_reason is StopReason.STOP
        assert streamed.text == whole.text == "Done."

    def test_max_output_tokens_is_length(self, kit) -> None:
        response = kit.response_object(
            [kit.call_item("c", "fc", "write_file", '{"path": "a", "conte')],
            status="incomplete",
            incomplete_reason="max_output_tokens",
        )
        streamed, whole = _both(kit, response)
        for message in (streamed, whole):
            assert message.stop_reason is StopReason.LENGTH
            assert message.raw_stop_reason == "incomplete:max_output_tokens"
            assert message.tool_calls[0].arguments == '{"path": "a", "conte'

    def test_a_content_filter_is_a_refusal(self, kit) -> None:
        response = kit.response_object(
            [kit.message_item("I")], status="incomplete", incomplete_reason="content_filter"
        )
        streamed, whole = _both(kit, response)
        assert streamed.stop_reason is whole.stop_reason is StopReason.REFUSAL

    def test_a_refusal_part_is_kept_as_text(self, kit) -> None:
        item = kit.message_item("")
        item["content"] = [{"type": "refusal", "refusal": "I can't help with that."}]
        events = kit.stream_events(kit.response_object([item]))
        events = [e for e in events if not e["type"].startswith("response.output_text")]
        index = next(i for i, e in enumerate(events) if e["type"] == "response.output_item.done")
        events.insert(
            index,
            {
                "type": "response.refusal.delta",
                "item_id": "msg_01",
                "output_index": 0,
                "content_index": 0,
                "delta": "I can't help with that.",
                "sequence_number": 99,
            },
        )
        streamed = kit.final_message(kit.decode(_wire(events)))
        whole = kit.final_message(kit.decode(kit.frame_json(kit.response_object([item]))))
        for message in (streamed, whole):
            assert message.stop_reason is StopReason.REFUSAL
            assert message.text == "I can't help with that."

    def test_a_failed_response_is_an_error_with_its_message(self, kit) -> None:
        response = kit.response_object(
            [kit.message_item("Part")],
            status="failed",
            error={"code": "server_error", "message": "The model crashed."},
        )
        message = kit.final_message(kit.decode(_wire(kit.stream_events(response))))
        assert message.stop_reason is StopReason.ERROR
        assert message.raw_stop_reason == "failed"
        assert message.error_message == "openai-responses: The model crashed. (server_error)"
        assert message.text == "Part"

    def test_an_error_event_ends_the_message(self, kit) -> None:
        response = kit.response_object([kit.message_item("Partial answer")])
        events = kit.stream_events(response, terminal=False)
        events.append(
            {
                "type": "error",
                "code": "rate_limit_exceeded",
                "message": "Slow down.",
                "param": None,
                "sequence_number": 50,
            }
        )
        out = kit.decode(_wire(events))
        message = kit.final_message(out)
        assert message.stop_reason is StopReason.ERROR
        assert message.error_message == "openai-responses: Slow down. (rate_limit_exceeded)"
        assert message.text == "Partial answer"

    def test_a_stream_that_stops_before_the_end_is_an_error(self, kit) -> None:
        response = kit.response_object([kit.call_item("c", "fc", "grep", '{"q": "x"}')])
        events = kit.stream_events(response, terminal=False)[:-2]  # cut inside the call
        message = kit.final_message(kit.decode(_wire(events)))
        assert message.stop_reason is StopReason.ERROR
        assert "before response.completed" in message.error_message
        assert message.tool_calls[0].id == "c|fc"

    def test_an_abort_keeps_what_arrived(self, kit) -> None:
        decoder = OpenAIResponses().decoder(kit.request_for())
        events = kit.stream_events(kit.response_object([kit.message_item("Hello world")]), chunk=5)
        # created, in_progress, item added, part added, the first delta
        for event in _wire(events[:5]):
            decoder.feed(event)
        out = decoder.fail(StopReason.ABORTED, "aborted")
        message = kit.final_message(out)
        assert message.stop_reason is StopReason.ABORTED and message.text == "Hello"
        assert decoder.finish() == [] and decoder.feed(_wire(events[5:6])[0]) == []

    def test_unknown_events_and_server_tool_items_are_skipped(self, kit) -> None:
        search = {"id": "ws_1", "type": "web_search_call", "status": "completed"}
        response = kit.response_object([search, kit.message_item("Found it.")])
        events = kit.stream_events(response)
        events.insert(
            3,
            {
                "type": "response.web_search_call.searching",
                "output_index": 0,
                "item_id": "ws_1",
                "sequence_number": 3,
            },
        )
        streamed = kit.final_message(kit.decode(_wire(events)))
        whole = kit.final_message(kit.decode(kit.frame_json(response)))
        assert streamed.content == whole.content == [TextBlock("Found it.")]
        assert streamed.stop_reason is StopReason.STOP
