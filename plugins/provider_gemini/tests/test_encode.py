"""Encoding: canonical requests into the Gemini ``generateContent`` request."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agentkit_provider_gemini import GeminiGenerateContent

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
from agentkit.plugin_api.errors import ProviderError

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def _ours(*blocks: Any, api: str = "google-generative-ai") -> AssistantMessage:
    return AssistantMessage(
        list(blocks), StopReason.STOP, provider="google", api=api, model="gemini-2.5-flash"
    )


def _contents(kit, messages: list[Any], **fields: Any) -> list[dict[str, Any]]:
    return kit.body_of(kit.request_for(messages=messages, **fields))["contents"]


class TestToolResults:
    def _batch(self, ids: list[str]) -> list[Any]:
        calls = [ToolUseBlock(ids[n], f"tool_{n}", f'{{"n":{n}}}') for n in range(3)]
        return [
            UserMessage.text("go"),
            _ours(*calls),
            ToolResultMessage(ids[0], "tool_0", [TextBlock("zero")]),
            ToolResultMessage(ids[1], "tool_1", [TextBlock("boom")], is_error=True),
            ToolResultMessage(ids[2], "tool_2", [TextBlock("two")]),
            UserMessage.text("and now?"),
        ]

    def test_a_batch_is_one_user_content_with_a_response_per_call_in_order(self, kit) -> None:
        ids = [f"gemini_{n:024d}" for n in range(3)]
        contents = _contents(kit, self._batch(ids))
        assert [c["role"] for c in contents] == ["user", "model", "user", "user"]
        assert contents[2]["parts"] == [
            {"functionResponse": {"name": "tool_0", "response": {"output": "zero"}}},
            {"functionResponse": {"name": "tool_1", "response": {"error": "boom"}}},
            {"functionResponse": {"name": "tool_2", "response": {"output": "two"}}},
        ]
        # Synthesized ids never reach the wire: pairing is by position.
        assert [part["functionCall"] for part in contents[1]["parts"]] == [
            {"name": "tool_0", "args": {"n": 0}},
            {"name": "tool_1", "args": {"n": 1}},
            {"name": "tool_2", "args": {"n": 2}},
        ]
        assert contents[3] == {"role": "user", "parts": [{"text": "and now?"}]}

    def test_ids_the_wire_sent_go_back_on_the_call_and_its_response(self, kit) -> None:
        contents = _contents(kit, self._batch(["fc-1", "fc-2", "fc-3"]))
        assert [p["functionCall"]["id"] for p in contents[1]["parts"]] == ["fc-1", "fc-2", "fc-3"]
        assert [p["functionResponse"]["id"] for p in contents[2]["parts"]] == [
            "fc-1",
            "fc-2",
            "fc-3",
        ]

    def test_images_of_a_result_follow_the_batch_responses(self, kit) -> None:
        call = ToolUseBlock("gemini_1", "screenshot", "{}")
        other = ToolUseBlock("gemini_2", "read_file", '{"path":"a"}')
        contents = _contents(
            kit,
            [
                UserMessage.text("look"),
                _ours(call, other),
                ToolResultMessage(
                    call.id, call.name, [TextBlock("png:"), ImageBlock(PNG, "image/png")]
                ),
                ToolResultMessage(other.id, other.name, [TextBlock("a")]),
            ],
        )
        assert contents[2]["parts"] == [
            {"functionResponse": {"name": "screenshot", "response": {"output": "png:"}}},
            {"functionResponse": {"name": "read_file", "response": {"output": "a"}}},
            {"inlineData": {"mimeType": "image/png", "data": PNG}},
        ]


class TestModelTurns:
    def test_signatures_go_back_on_the_parts_they_came_with(self, kit) -> None:
        call = ToolUseBlock("gemini_1", "grep", '{"pattern":"x"}')
        message = _ours(
            ThinkingBlock("plan", "SIG-T"),
            ThinkingBlock("more, unsigned"),
            call,
            ThinkingBlock("", "SIG-C", redacted=True),
            TextBlock("found"),
            ThinkingBlock("", "SIG-X", redacted=True),
            TextBlock("after"),
        )
        (_, model) = _contents(kit, [UserMessage.text("q"), message])
        assert model["parts"] == [
            {"text": "plan", "thought": True, "thoughtSignature": "SIG-T"},
            {"text": "more, unsigned", "thought": True},
            {
                "functionCall": {"name": "grep", "args": {"pattern": "x"}},
                "thoughtSignature": "SIG-C",
            },
            {"text": "found", "thoughtSignature": "SIG-X"},
            {"text": "after"},
        ]

    def test_an_empty_signed_text_part_is_kept_and_empty_text_is_dropped(self, kit) -> None:
        call = ToolUseBlock("gemini_1", "grep", "{}")
        message = _ours(
            TextBlock(""),
            call,
            TextBlock(""),
            ThinkingBlock("", "SIG-E", redacted=True),
            ThinkingBlock(""),
        )
        (_, model) = _contents(kit, [UserMessage.text("q"), message])
        assert model["parts"] == [
            {"functionCall": {"name": "grep", "args": {}}},
            {"text": "", "thoughtSignature": "SIG-E"},
        ]

    def test_thinking_of_another_wire_is_text_and_no_signature_is_sent(self, kit) -> None:
        message = _ours(
            ThinkingBlock("reasoned elsewhere", "anthropic-signature"),
            ThinkingBlock("", "opaque", redacted=True),
            TextBlock("answer"),
            api="anthropic-messages",
        )
        (_, model) = _contents(kit, [UserMessage.text("q"), message])
        assert model["parts"] == [{"text": "reasoned elsewhere"}, {"text": "answer"}]

    def test_an_empty_model_turn_is_left_out_and_the_user_turns_around_it_join(self, kit) -> None:
        """Two user turns in a row would read as if the model had never been asked."""
        contents = _contents(
            kit, [UserMessage.text("a"), _ours(TextBlock("")), UserMessage.text("b")]
        )
        assert contents == [{"role": "user", "parts": [{"text": "a"}, {"text": "b"}]}]

    def test_a_result_batch_after_an_empty_model_turn_joins_the_user_turn_too(self, kit) -> None:
        call = ToolUseBlock("gemini_1", "read", "{}")
        contents = _contents(
            kit,
            [
                UserMessage.text("go"),
                _ours(call),
                ToolResultMessage(call.id, call.name, [TextBlock("r")]),
                _ours(TextBlock("")),
                UserMessage.text("well?"),
            ],
        )
        assert [c["role"] for c in contents] == ["user", "model", "user"]
        assert contents[2]["parts"] == [
            {"functionResponse": {"name": "read", "response": {"output": "r"}}},
            {"text": "well?"},
        ]

    def test_a_prompt_after_a_run_that_failed_before_the_model_answered_joins_it(self, kit) -> None:
        """The run's prompt is left last: the next one joins it, as the API refuses two user
        turns in a row. Function responses stay a content of their own."""
        contents = _contents(kit, [UserMessage.text("a"), UserMessage.text("b")])
        assert contents == [{"role": "user", "parts": [{"text": "a"}, {"text": "b"}]}]
        call = ToolUseBlock("gemini_1", "read", "{}")
        contents = _contents(
            kit,
            [
                UserMessage.text("go"),
                _ours(call),
                ToolResultMessage(call.id, call.name, [TextBlock("r")]),
                UserMessage.text("well?"),
                UserMessage.text("still there?"),
            ],
        )
        assert [c["role"] for c in contents] == ["user", "model", "user", "user"]
        assert contents[2]["parts"] == [{"functionResponse": {"name": "read", "response": {"output": "r"}}}]
        assert contents[3]["parts"] == [{"text": "well?"}, {"text": "still there?"}]

    def test_an_empty_user_prompt_is_still_a_user_turn(self, kit) -> None:
        """``contents: []`` is refused by the API: the prompt is sent as one blank."""
        blank = {"role": "user", "parts": [{"text": " "}]}
        assert _contents(kit, [UserMessage.text("")]) == [blank]
        assert _contents(kit, [UserMessage([])]) == [blank]
        contents = _contents(
            kit, [UserMessage.text(""), _ours(TextBlock("hello?")), UserMessage.text("hi")]
        )
        assert [c["role"] for c in contents] == ["user", "model", "user"]
        assert contents[0] == blank

    def test_argument_text_goes_back_as_the_object_with_its_key_order(self, kit) -> None:
        call = ToolUseBlock("gemini_1", "edit", '{"z":1,"a":{"y":[1,2.5,"é"],"b":null}}')
        cut = ToolUseBlock("gemini_2", "edit", '{"z":1,"a":')
        (_, model) = _contents(kit, [UserMessage.text("q"), _ours(call, cut)])
        args = [part["functionCall"]["args"] for part in model["parts"]]
        assert json.dumps(args[0], ensure_ascii=False, separators=(",", ":")) == call.arguments
        assert args[1] == {}  # cut off by the token limit: not an object

    def test_user_images_are_inline_data_and_empty_text_is_dropped(self, kit) -> None:
        message = UserMessage([TextBlock(""), TextBlock("see"), ImageBlock(PNG, "image/png")])
        assert _contents(kit, [message]) == [
            {
                "role": "user",
                "parts": [{"text": "see"}, {"inlineData": {"mimeType": "image/png", "data": PNG}}],
            }
        ]


class TestRequest:
    def test_paths_and_framing(self, kit) -> None:
        provider = GeminiGenerateContent()
        streamed = provider.encode(kit.request_for(stream=True))
        whole = provider.encode(kit.request_for(stream=False))
        assert (streamed.path, streamed.framing) == (
            "/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            "sse",
        )
        assert (whole.path, whole.framing) == ("/models/gemini-2.5-flash:generateContent", "json")
        assert streamed.method == "POST" and streamed.headers == {}

    def test_a_bare_request_is_only_contents(self, kit) -> None:
        assert kit.body_of(kit.request_for()) == {
            "contents": [{"role": "user", "parts": [{"text": "hi"}]}]
        }

    def test_system_tools_and_generation_config(self, kit) -> None:
        tool = ToolSpec(
            "grep", "Search.", {"type": "object", "properties": {"q": {"type": "string"}}}
        )
        body = kit.body_of(
            kit.request_for(
                system="Be brief.",
                tools=[tool],
                max_tokens=100,
                temperature=0.0,
                options={"stop_sequences": ["END"]},
            )
        )
        assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
        assert body["tools"] == [
            {
                "functionDeclarations": [
                    {
                        "name": "grep",
                        "description": "Search.",
                        "parametersJsonSchema": {
                            "type": "object",
                            "properties": {"q": {"type": "string"}},
                        },
                    }
                ]
            }
        ]
        # temperature 0 is a value, not an absence.
        assert body["generationConfig"] == {
            "maxOutputTokens": 100,
            "temperature": 0.0,
            "stopSequences": ["END"],
        }
        assert "toolConfig" not in body

    @pytest.mark.parametrize(
        ("choice", "config"),
        [
            ("auto", {"mode": "AUTO"}),
            ("none", {"mode": "NONE"}),
            ("required", {"mode": "ANY"}),
            ("grep", {"mode": "ANY", "allowedFunctionNames": ["grep"]}),
        ],
    )
    def test_tool_choice(self, kit, choice, config) -> None:
        grep = ToolSpec("grep", "Search.", {"type": "object"})
        body = kit.body_of(kit.request_for(tool_choice=choice, tools=[grep]))
        assert body["toolConfig"] == {"functionCallingConfig": config}

    @pytest.mark.parametrize("choice", ["auto", "none"])
    def test_a_choice_that_forces_nothing_is_sent_even_without_tools(self, kit, choice) -> None:
        body = kit.body_of(kit.request_for(tool_choice=choice))
        assert body["toolConfig"] == {"functionCallingConfig": {"mode": choice.upper()}}

    @pytest.mark.parametrize("choice", ["required", "grep"])
    def test_a_forcing_choice_without_tools_is_refused(self, kit, choice) -> None:
        with pytest.raises(ValueError, match=f"tool_choice='{choice}'"):
            kit.body_of(kit.request_for(tool_choice=choice))

    def test_every_sampling_setting_reaches_the_generation_config(self, kit) -> None:
        request = kit.request_for(temperature=9.0, top_p=0.4, top_k=32, stop_sequences=["A", "B"], seed=5)
        assert kit.body_of(request)["generationConfig"] == {
            "temperature": 2.0, "topP": 0.4, "topK": 32, "stopSequences": ["A", "B"], "seed": 5,
        }

    def test_more_than_five_stop_sequences_are_refused(self, kit) -> None:
        with pytest.raises(ValueError, match="google-generative-ai cannot express 6 stop sequences"):
            kit.body_of(kit.request_for(stop_sequences=list("abcdef")))

    @pytest.mark.parametrize(
        ("key", "level", "config"),
        [
            ("google/gemini-2.5-flash", "low", {"thinkingBudget": 1024, "includeThoughts": True}),
            ("google/gemini-2.5-flash", "off", {"thinkingBudget": 0}),
            ("google/gemini-2.5-pro", "high", {"thinkingBudget": 32768, "includeThoughts": True}),
            ("google/gemini-2.5-pro", "off", None),
            (
                "google/gemini-3-pro-preview",
                "low",
                {"thinkingLevel": "LOW", "includeThoughts": True},
            ),
            ("google/gemini-3-flash-preview", "off", None),
            ("google/gemini-2.5-flash", None, None),
        ],
    )
    def test_reasoning_per_model_family(self, kit, key, level, config) -> None:
        body = kit.body_of(kit.request_for(model=kit.model_row(key), reasoning=level))
        assert body.get("generationConfig", {}).get("thinkingConfig") == config

    def test_extra_body_adds_fields_but_never_replaces_the_transcript(self, kit) -> None:
        safety = [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]
        body = kit.body_of(
            kit.request_for(options={"extra_body": {"safetySettings": safety, "contents": []}})
        )
        assert body["safetySettings"] == safety
        assert body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]


class TestSchemas:
    def test_metadata_and_examples_are_dropped_everywhere_but_defaults_and_names_are_kept(self, kit) -> None:
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "urn:x",
            "type": "object",
            "properties": {
                "default": {"type": "string", "default": "d", "examples": ["e"]},
                "items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"n": {"type": "integer", "default": 1}},
                    },
                },
                "mode": {"anyOf": [{"type": "string", "default": "x"}, {"type": "null"}]},
                "enum_with_default": {"enum": ["default", "$schema"]},
            },
            "required": ["default"],
            "additionalProperties": False,
            "$defs": {"Thing": {"type": "string", "$comment": "c"}},
        }
        (tool,) = kit.body_of(kit.request_for(tools=[ToolSpec("t", "d", schema)]))["tools"]
        assert tool["functionDeclarations"][0]["parametersJsonSchema"] == {
            "type": "object",
            "properties": {
                "default": {"type": "string", "default": "d"},
                "items": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"n": {"type": "integer", "default": 1}}},
                },
                "mode": {"anyOf": [{"type": "string", "default": "x"}, {"type": "null"}]},
                "enum_with_default": {"enum": ["default", "$schema"]},
            },
            "required": ["default"],
            "additionalProperties": False,
            "$defs": {"Thing": {"type": "string"}},
        }

    @pytest.mark.parametrize("schema", [{}, {"properties": {}}, {"$schema": "x"}])
    def test_a_schema_without_an_object_type_becomes_an_object(self, kit, schema) -> None:
        (tool,) = kit.body_of(kit.request_for(tools=[ToolSpec("t", "d", schema)]))["tools"]
        parameters = tool["functionDeclarations"][0]["parametersJsonSchema"]
        assert parameters["type"] == "object"


class TestIncrementalEncoding:
    def _turn(self, n: int) -> list[Any]:
        call = ToolUseBlock(f"gemini_{n:024d}", "read", f'{{"n":{n}}}')
        return [
            _ours(TextBlock(f"step {n}"), call, ThinkingBlock("", f"SIG{n}", redacted=True)),
            ToolResultMessage(call.id, call.name, [TextBlock(f"result {n}")]),
        ]

    def test_a_growing_transcript_encodes_as_a_fresh_encoder_would(self, kit) -> None:
        provider = GeminiGenerateContent()
        history: list[Any] = [UserMessage.text("start")]
        for n in range(6):
            history = [*history, *self._turn(n)]
            if n == 3:
                history.append(UserMessage.text("steer"))
            request = kit.request_for(messages=history)
            assert provider.encode(request).body == GeminiGenerateContent().encode(request).body

    def test_a_user_turn_after_an_empty_model_turn_joins_across_requests(self, kit) -> None:
        provider = GeminiGenerateContent()
        head = [UserMessage.text("a"), _ours(TextBlock(""))]
        for messages in ([UserMessage.text("")], head, [*head, UserMessage.text("b")]):
            request = kit.request_for(messages=messages)
            assert provider.encode(request).body == GeminiGenerateContent().encode(request).body
        contents = kit.body_of(kit.request_for(messages=[*head, UserMessage.text("b")]), provider)
        assert contents["contents"] == [{"role": "user", "parts": [{"text": "a"}, {"text": "b"}]}]

    def test_a_branch_and_a_result_batch_split_across_requests(self, kit) -> None:
        provider = GeminiGenerateContent()
        calls = [ToolUseBlock(f"gemini_{n}", "read", "{}") for n in range(2)]
        head = [UserMessage.text("go"), _ours(*calls)]
        first = ToolResultMessage("gemini_0", "read", [TextBlock("0")])
        second = ToolResultMessage("gemini_1", "read", [TextBlock("1")])
        # The batch is open after the first result; the second one joins it.
        for messages in (
            [*head, first],
            [*head, first, second],
            [*head, first, second, UserMessage.text("more")],
            [*head, second],  # a branch: a different continuation of the same head
            [*head, first, UserMessage.text("instead")],  # longer, but not an extension
        ):
            request = kit.request_for(messages=messages)
            assert provider.encode(request).body == GeminiGenerateContent().encode(request).body
        contents = kit.body_of(kit.request_for(messages=[*head, first, second]), provider)[
            "contents"
        ]
        assert len(contents[2]["parts"]) == 2


@pytest.mark.parametrize("where", ["user", "tool_result"])
def test_a_url_image_is_refused_naming_the_fetcher_never_dropped(kit: Any, where: str) -> None:
    """The wire takes no image URLs: the host sends the bytes it fetched, and a URL that reaches
    the codec (a transcript from another wire) fails with the fix rather than vanishing."""
    image = ImageBlock.from_url("https://images.example/chart.png")
    call = ToolUseBlock("call_1", "chart", "{}")
    messages: list[Any] = (
        [UserMessage([TextBlock("what is this?"), image])]
        if where == "user"
        else [UserMessage.text("chart"), AssistantMessage([call], StopReason.TOOL_USE),
              ToolResultMessage(call.id, call.name, [TextBlock("here"), image])]
    )
    with pytest.raises(ProviderError, match="image_fetcher") as raised:
        kit.body_of(kit.request_for(model=kit.model_row("google/gemini-2.5-flash"), messages=messages))
    assert "google-generative-ai" in str(raised.value) and "https://images.example/chart.png" in str(raised.value)
