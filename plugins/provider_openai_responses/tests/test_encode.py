"""The request body: what each canonical transcript becomes on the Responses wire."""

from __future__ import annotations

import json

import pytest
from agentkit_provider_openai_responses import OpenAIResponses

from agentkit.plugin_api import (
    AssistantMessage,
    ImageBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolSpec,
    ToolUseBlock,
    UserMessage,
)

READ = ToolSpec(
    "read_file",
    "Read a file.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


def _signature(item_id: str, encrypted: str | None) -> str:
    value = (
        {"id": item_id} if encrypted is None else {"id": item_id, "encrypted_content": encrypted}
    )
    return json.dumps(value, separators=(",", ":"))


def _turn(*blocks, results=()) -> list:
    return [AssistantMessage(list(blocks), StopReason.TOOL_USE), *results]


def _calls(body: dict) -> list[dict]:
    return [item for item in body["input"] if item["type"] == "function_call"]


def _outputs(body: dict) -> list[dict]:
    return [item for item in body["input"] if item["type"] == "function_call_output"]


class TestTheRequest:
    def test_a_stateless_post_to_responses(self, kit) -> None:
        wire = OpenAIResponses().encode(kit.request_for(system="Be brief.", max_tokens=100))
        body = json.loads(wire.body)
        assert (wire.method, wire.path, wire.framing) == ("POST", "/responses", "sse")
        assert body["model"] == "gpt-5"
        assert body["instructions"] == "Be brief."
        assert body["max_output_tokens"] == 100
        assert body["store"] is False
        assert body["include"] == ["reasoning.encrypted_content"]
        assert body["stream"] is True
        assert "previous_response_id" not in body
        assert body["input"] == [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
        ]

    def test_a_whole_response_is_read_as_json(self, kit) -> None:
        wire = OpenAIResponses().encode(kit.request_for(stream=False))
        assert wire.framing == "json"
        assert json.loads(wire.body)["stream"] is False

    def test_a_model_that_cannot_reason_is_not_asked_for_reasoning(self, kit) -> None:
        body = kit.body_of(kit.request_for(model=kit.model_row("openai-responses/gpt-4.1")))
        assert "include" not in body and "reasoning" not in body
        assert body["store"] is False

    def test_reasoning_effort_is_sent_only_when_set(self, kit) -> None:
        assert "reasoning" not in kit.body_of(kit.request_for())
        assert kit.body_of(kit.request_for(reasoning="minimal"))["reasoning"] == {
            "effort": "minimal"
        }

    def test_the_session_is_the_prompt_cache_key_cut_to_64_characters(self, kit) -> None:
        session = "session-" + "x" * 100
        body = kit.body_of(kit.request_for(session_id=session))
        assert body["prompt_cache_key"] == session[:64]
        assert "prompt_cache_key" not in kit.body_of(kit.request_for())

    def test_extra_body_cannot_replace_the_transcript(self, kit) -> None:
        options = {"extra_body": {"service_tier": "flex", "input": [], "model": "other"}}
        body = kit.body_of(kit.request_for(options=options))
        assert body["service_tier"] == "flex"
        assert body["model"] == "gpt-5" and len(body["input"]) == 1


class TestTools:
    def test_a_tool_is_flat_not_nested(self, kit) -> None:
        body = kit.body_of(kit.request_for(tools=[READ]))
        assert body["tools"] == [
            {
                "type": "function",
                "name": "read_file",
                "description": "Read a file.",
                "parameters": READ.input_schema,
                "strict": False,
            }
        ]

    def test_strict_is_opt_in(self, kit) -> None:
        body = kit.body_of(kit.request_for(tools=[READ], options={"strict_tools": True}))
        assert body["tools"][0]["strict"] is True

    def test_tool_choice(self, kit) -> None:
        def choice(value):
            return kit.body_of(kit.request_for(tools=[READ], tool_choice=value)).get("tool_choice")

        assert choice(None) is None
        assert choice("auto") == "auto"
        assert choice("none") == "none"
        assert choice("read_file") == {"type": "function", "name": "read_file"}
        assert choice("required") == "required"
        # The modes are words of the canonical choice on every wire: a tool named like one
        # cannot be forced by name (docs/providers.md), and the mode is what is sent.
        named = ToolSpec("required", "A tool with an unlucky name.", {"type": "object"})
        body = kit.body_of(kit.request_for(tools=[READ, named], tool_choice="required"))
        assert body["tool_choice"] == "required"
        # No tools: no tool_choice at all (the API refuses one).
        assert "tool_choice" not in kit.body_of(kit.request_for(tool_choice="auto"))


class TestSampling:
    def test_temperature_and_top_p_reach_the_wire_clamped(self, kit) -> None:
        body = kit.body_of(kit.request_for(model=kit.model_row("gpt-4.1"), temperature=2.5, top_p=0.3))
        assert (body["temperature"], body["top_p"]) == (2.0, 0.3)

    @pytest.mark.parametrize("setting", [{"top_k": 4}, {"stop_sequences": ["END"]}, {"seed": 1}])
    def test_what_the_wire_has_no_field_for_is_refused_naming_it(self, kit, setting) -> None:
        (name,) = setting
        with pytest.raises(ValueError, match=f"openai-responses cannot express {name}"):
            kit.body_of(kit.request_for(model=kit.model_row("gpt-4.1"), **setting))

    def test_a_reasoning_model_refuses_temperature(self, kit) -> None:
        with pytest.raises(ValueError, match="openai-responses/o3 does not accept temperature"):
            kit.body_of(kit.request_for(model=kit.model_row("o3"), temperature=0.1))


class TestToolCallIdentity:
    def test_the_tool_call_identity_is_composite(self, kit) -> None:
        call = ToolUseBlock("call_9x|fc_68c1", "read_file", '{"path": "a"}')
        messages = [UserMessage.text("go"), *_turn(call)]
        [wire] = _calls(kit.body_of(kit.request_for(messages=messages)))
        assert wire == {
            "type": "function_call",
            "call_id": "call_9x",
            "name": "read_file",
            "arguments": '{"path": "a"}',
            "id": "fc_68c1",
        }

    def test_a_function_call_output_references_only_the_call_id(self, kit) -> None:
        calls = [ToolUseBlock(f"call_{n}|fc_{n}", "read_file", "{}") for n in range(3)]
        results = [
            ToolResultMessage(c.id, c.name, [TextBlock(f"r{n}")]) for n, c in enumerate(calls)
        ]
        messages = [UserMessage.text("go"), *_turn(*calls, results=results)]
        outputs = _outputs(kit.body_of(kit.request_for(messages=messages)))
        assert outputs == [
            {"type": "function_call_output", "call_id": f"call_{n}", "output": f"r{n}"}
            for n in range(3)
        ]

    def test_a_call_from_another_wire_is_replayed_without_an_item_id(self, kit) -> None:
        call = ToolUseBlock("toolu_01", "read_file", "{}")
        messages = [
            UserMessage.text("go"),
            *_turn(call, results=[ToolResultMessage("toolu_01", "read_file", [TextBlock("ok")])]),
        ]
        body = kit.body_of(kit.request_for(messages=messages))
        assert _calls(body)[0]["call_id"] == "toolu_01" and "id" not in _calls(body)[0]
        assert _outputs(body)[0]["call_id"] == "toolu_01"

    def test_argument_text_is_replayed_byte_for_byte(self, kit) -> None:
        odd = '{ "b" : 1,"a":[1 ,2], "s": "\\u00e9\\"x" }'
        messages = [UserMessage.text("go"), *_turn(ToolUseBlock("c|fc", "read_file", odd))]
        wire = OpenAIResponses().encode(kit.request_for(messages=messages))
        assert _calls(json.loads(wire.body))[0]["arguments"] == odd

    def test_a_call_with_blank_argument_text_is_replayed_as_an_empty_object(self, kit) -> None:
        """Text that arrived as null or empty (or blank from another wire) is no JSON object."""
        calls = [ToolUseBlock(f"c{n}|fc{n}", "list", text) for n, text in enumerate(["", "  "])]
        messages = [UserMessage.text("go"), *_turn(*calls)]
        wire = OpenAIResponses().encode(kit.request_for(messages=messages))
        assert [call["arguments"] for call in _calls(json.loads(wire.body))] == ["{}", "{}"]

    def test_an_error_result_says_so(self, kit) -> None:
        call = ToolUseBlock("c|fc", "read_file", "{}")
        result = ToolResultMessage(call.id, call.name, [TextBlock("not found")], is_error=True)
        messages = [UserMessage.text("go"), *_turn(call, results=[result])]
        assert _outputs(kit.body_of(kit.request_for(messages=messages)))[0]["output"] == (
            "Error: not found"
        )

    def test_tool_result_images_travel_inside_the_output(self, kit) -> None:
        call = ToolUseBlock("c|fc", "read_file", "{}")
        image = ImageBlock("QUJD", "image/png")
        result = ToolResultMessage(call.id, call.name, [TextBlock("shot:"), image])
        messages = [UserMessage.text("go"), *_turn(call, results=[result])]
        body = kit.body_of(kit.request_for(messages=messages))
        assert _outputs(body)[0]["output"] == [
            {"type": "input_text", "text": "shot:"},
            {"type": "input_image", "image_url": "data:image/png;base64,QUJD", "detail": "auto"},
        ]
        assert body["input"][-1]["type"] == "function_call_output"


class TestReasoningReplay:
    def test_reasoning_is_replayed_with_its_item_id_and_encrypted_content(self, kit) -> None:
        thinking = ThinkingBlock("**Plan**\n\nRead it.", _signature("rs_1", "gAAA-enc"))
        call = ToolUseBlock("call_1|fc_1", "read_file", "{}")
        messages = [UserMessage.text("go"), *_turn(thinking, TextBlock("On it."), call)]
        body = kit.body_of(kit.request_for(messages=messages))
        assert body["input"][1:] == [
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "**Plan**\n\nRead it."}],
                "encrypted_content": "gAAA-enc",
            },
            {"type": "message", "role": "assistant", "content": "On it."},
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "read_file",
                "arguments": "{}",
                "id": "fc_1",
            },
        ]

    def test_redacted_reasoning_is_replayed_with_an_empty_summary(self, kit) -> None:
        thinking = ThinkingBlock("", _signature("rs_1", "gAAA-enc"), redacted=True)
        messages = [UserMessage.text("go"), *_turn(thinking, TextBlock("Done."))]
        body = kit.body_of(kit.request_for(messages=messages))
        assert body["input"][1] == {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [],
            "encrypted_content": "gAAA-enc",
        }

    def test_reasoning_without_encrypted_content_drops_the_call_item_ids(self, kit) -> None:
        thinking = ThinkingBlock("", _signature("rs_1", None), redacted=True)
        call = ToolUseBlock("call_1|fc_1", "read_file", "{}")
        messages = [UserMessage.text("go"), *_turn(thinking, call)]
        body = kit.body_of(kit.request_for(messages=messages))
        assert [item["type"] for item in body["input"]] == ["message", "function_call"]
        assert "id" not in _calls(body)[0] and _calls(body)[0]["call_id"] == "call_1"

    def test_reasoning_with_nothing_after_it_is_not_sent(self, kit) -> None:
        cut = AssistantMessage(
            [ThinkingBlock("", _signature("rs_1", "gAAA-enc"), redacted=True)], StopReason.LENGTH
        )
        messages = [UserMessage.text("go"), cut, UserMessage.text("go on")]
        body = kit.body_of(kit.request_for(messages=messages))
        assert [item["type"] for item in body["input"]] == ["message", "message"]

    def test_thinking_from_another_wire_is_not_sent(self, kit) -> None:
        thinking = ThinkingBlock("hmm", "EqQBCkYIBxgCKkD-anthropic")
        messages = [UserMessage.text("go"), *_turn(thinking, TextBlock("ok"))]
        body = kit.body_of(kit.request_for(messages=messages))
        assert [item["type"] for item in body["input"]] == ["message", "message"]


class TestPerTurnCaches:
    def test_a_growing_transcript_encodes_as_a_fresh_encoder_would(self, kit) -> None:
        provider = OpenAIResponses()
        messages: list = [UserMessage.text("start")]
        for n in range(6):
            call = ToolUseBlock(f"call_{n}|fc_{n}", "read_file", f'{{"n": {n}}}')
            messages += _turn(
                ThinkingBlock(f"t{n}", _signature(f"rs_{n}", "enc")),
                call,
                results=[ToolResultMessage(call.id, call.name, [TextBlock(f"out {n}")])],
            )
            request = kit.request_for(messages=list(messages), tools=[READ], system="S")
            warm = provider.encode(request).body
            assert warm == OpenAIResponses().encode(request).body

    def test_a_replaced_message_is_encoded_anew(self, kit) -> None:
        provider = OpenAIResponses()
        first = [UserMessage.text("a"), AssistantMessage([TextBlock("one")], StopReason.STOP)]
        provider.encode(kit.request_for(messages=first))
        second = [first[0], AssistantMessage([TextBlock("two")], StopReason.STOP)]
        body = json.loads(provider.encode(kit.request_for(messages=second)).body)
        assert body["input"][1]["content"] == "two"
