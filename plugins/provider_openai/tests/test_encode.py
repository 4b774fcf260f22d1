"""Request bodies: what each profile changes, how transcripts map, and what is reused."""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any, ClassVar

import pytest
from agentkit_provider_openai import OpenAICompletions

from agentkit.host.wire.json import loads as strict_loads
from agentkit.plugin_api import (
    AssistantMessage,
    Credential,
    ImageBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolSpec,
    ToolUseBlock,
    UserMessage,
)

SPEC = ToolSpec("read", "Read a file.", {"type": "object", "properties": {"p": {"type": "string"}}})


def _body(
    kit: Any,
    key: str = "openai/gpt-4o-mini",
    provider: OpenAICompletions | None = None,
    **fields: Any,
) -> dict[str, Any]:
    provider = provider or OpenAICompletions()
    return json.loads(provider.encode(kit.request_for(model=kit.model_row(key), **fields)).body)


def test_the_wire_request_is_a_post_to_chat_completions_framed_by_stream(kit: Any) -> None:
    provider = OpenAICompletions()
    streamed = provider.encode(kit.request_for(stream=True))
    whole = provider.encode(kit.request_for(stream=False))
    assert (streamed.method, streamed.path, streamed.framing) == (
        "POST",
        "/chat/completions",
        "sse",
    )
    assert (whole.path, whole.framing, json.loads(whole.body)["stream"]) == (
        "/chat/completions",
        "json",
        False,
    )
    assert "stream_options" not in json.loads(whole.body)


def test_auth_is_a_bearer_token(kit: Any) -> None:
    headers = OpenAICompletions().auth_headers(Credential("api_key", "sk-test"))
    assert headers == {"Authorization": "Bearer sk-test"}


@pytest.mark.parametrize(
    ("key", "field", "stream_options"),
    [
        ("openai/gpt-4o-mini", "max_completion_tokens", True),
        ("openrouter/anthropic/claude-sonnet-4", "max_tokens", True),
        ("deepseek/deepseek-chat", "max_tokens", True),
        ("groq/llama-3.3-70b-versatile", "max_completion_tokens", False),
        ("local/default", "max_tokens", True),
    ],
)
def test_each_profile_names_its_token_limit_and_asks_for_stream_usage_when_it_can(
    key: str, field: str, stream_options: bool, kit: Any
) -> None:
    body = _body(kit, key, max_tokens=100, stream=True)
    assert body[field] == 100
    assert {"max_tokens", "max_completion_tokens"} & set(body) == {field}
    assert ("stream_options" in body) is stream_options
    if stream_options:
        assert body["stream_options"] == {"include_usage": True}


def test_absent_settings_are_absent_not_defaulted(kit: Any) -> None:
    body = _body(kit, stream=False)
    assert set(body) == {"model", "messages", "stream"}


def test_the_system_prompt_is_developer_only_for_openai_reasoning_models(kit: Any) -> None:
    assert _body(kit, "openai/o4-mini", system="s")["messages"][0] == {
        "role": "developer",
        "content": "s",
    }
    assert _body(kit, "openai/gpt-4o-mini", system="s")["messages"][0] == {
        "role": "system",
        "content": "s",
    }
    assert _body(kit, "groq/openai/gpt-oss-120b", system="s")["messages"][0]["role"] == "system"


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("read", {"type": "function", "function": {"name": "read"}}),
    ],
)
def test_tool_choice_maps_to_the_wire(choice: str, wire: Any, kit: Any) -> None:
    assert _body(kit, tools=[SPEC], tool_choice=choice)["tool_choice"] == wire


def test_no_tool_choice_is_sent_without_tools(kit: Any) -> None:
    assert "tool_choice" not in _body(kit, tool_choice="none")


def test_tools_are_function_definitions_and_strict_only_where_supported(kit: Any) -> None:
    plain = _body(kit, tools=[SPEC])
    assert plain["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read",
                "description": "Read a file.",
                "parameters": dict(SPEC.input_schema),
            },
        }
    ]
    assert "tool_choice" not in plain
    assert (
        _body(kit, tools=[SPEC], options={"strict_tools": True})["tools"][0]["function"]["strict"]
        is True
    )
    assert (
        "strict"
        not in _body(kit, "deepseek/deepseek-chat", tools=[SPEC], options={"strict_tools": True})[
            "tools"
        ][0]["function"]
    )


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("openai/o4-mini", {"reasoning_effort": "high"}),
        ("groq/openai/gpt-oss-120b", {"reasoning_effort": "high"}),
        ("openrouter/google/gemini-2.5-flash", {"reasoning": {"effort": "high"}}),
        ("deepseek/deepseek-reasoner", {}),
    ],
)
def test_reasoning_effort_follows_the_profile(key: str, expected: dict[str, Any], kit: Any) -> None:
    body = _body(kit, key, reasoning="high")
    assert {
        name: body[name] for name in ("reasoning_effort", "reasoning") if name in body
    } == expected


def test_the_session_id_becomes_openais_prompt_cache_key_within_its_limit(kit: Any) -> None:
    assert _body(kit, session_id="x" * 100)["prompt_cache_key"] == "x" * 64
    assert "prompt_cache_key" not in _body(kit, "deepseek/deepseek-chat", session_id="abc")


def test_extra_body_replaces_fields_without_duplicating_keys(kit: Any) -> None:
    """The body is bytes built in pieces; an override must replace a field, never
    add a second one (the strict decoder rejects duplicate keys, as servers may)."""
    wire = OpenAICompletions().encode(
        kit.request_for(
            temperature=0.5,
            tools=[SPEC],
            options={"extra_body": {"temperature": 1.0, "model": "other", "tools": [], "seed": 7}},
        )
    )
    body = strict_loads(wire.body)
    assert (body["temperature"], body["model"], body["tools"], body["seed"]) == (
        1.0,
        "other",
        [],
        7,
    )


def test_a_read_only_schema_is_sent_as_an_object(kit: Any) -> None:
    frozen = MappingProxyType(
        {"type": "object", "properties": MappingProxyType({"p": {"type": "string"}})}
    )
    body = _body(kit, tools=[ToolSpec("read", "Read.", frozen)])
    assert body["tools"][0]["function"]["parameters"] == {
        "type": "object",
        "properties": {"p": {"type": "string"}},
    }


def test_extra_body_is_merged_last(kit: Any) -> None:
    body = _body(
        kit,
        "openrouter/anthropic/claude-sonnet-4",
        options={"extra_body": {"provider": {"order": ["anthropic"]}}},
    )
    assert body["provider"] == {"order": ["anthropic"]}


def test_images_from_tool_results_follow_the_run_of_tool_messages(kit: Any) -> None:
    transcript = [
        UserMessage.text("look"),
        AssistantMessage(
            [ToolUseBlock("a", "shot", "{}"), ToolUseBlock("b", "shot", "{}")], StopReason.TOOL_USE
        ),
        ToolResultMessage("a", "shot", [ImageBlock("AAAA", "image/png")]),
        ToolResultMessage("b", "shot", [TextBlock("failed")], is_error=True),
        UserMessage.text("well?"),
    ]
    messages = _body(kit, messages=transcript)["messages"]
    assert [message["role"] for message in messages] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "user",
        "user",
    ]
    assert messages[2]["content"].startswith("(the result is the image")
    assert messages[3]["content"] == "Error: failed"
    assert messages[4]["content"] == [
        {"type": "text", "text": "Image(s) from tool call a (shot):"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
    ]


def test_thinking_is_not_sent_and_an_assistant_message_with_nothing_else_is_dropped(
    kit: Any,
) -> None:
    transcript = [
        UserMessage.text("q"),
        AssistantMessage([ThinkingBlock("hmm", "sig")], StopReason.STOP),
        AssistantMessage([ThinkingBlock("hmm"), TextBlock("a")], StopReason.STOP),
        UserMessage.text("q2"),
    ]
    messages = _body(kit, messages=transcript)["messages"]
    assert messages == [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a"},
        {"role": "user", "content": "q2"},
    ]


class _CountedSchema(Mapping[str, Any]):
    """A tool schema that counts how often it is serialized (read in full)."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self._schema = schema
        self.reads = 0

    def __getitem__(self, key: str) -> Any:
        return self._schema[key]

    def __iter__(self) -> Iterator[str]:
        self.reads += 1
        return iter(self._schema)

    def __len__(self) -> int:
        return len(self._schema)


class _CountedText(TextBlock):
    """A text block that counts how often its text is read."""

    reads: ClassVar[dict[int, int]] = {}

    def __getattribute__(self, name: str) -> Any:
        if name == "text":
            _CountedText.reads[id(self)] = _CountedText.reads.get(id(self), 0) + 1
        return super().__getattribute__(name)


def test_a_steady_state_request_serializes_no_schema_and_no_old_message(kit: Any) -> None:
    """Tool definitions are serialized once per ToolSpec object and each history
    message once: later turns read neither again, only the new messages."""
    schema = _CountedSchema({"type": "object", "properties": {"p": {"type": "string"}}})
    spec = ToolSpec("read", "Read a file.", schema)
    provider = OpenAICompletions()
    history: list[Any] = [UserMessage([_CountedText("q")])]
    bodies = []
    new_blocks: list[Any] = list(history[0].content)
    for turn in range(4):
        _CountedText.reads.clear()
        bodies.append(
            _body(kit, provider=provider, system="s", messages=list(history), tools=[spec])
        )
        assert schema.reads == 1
        # Only the messages added since the last turn were read.
        assert sorted(_CountedText.reads) == sorted(id(block) for block in new_blocks)
        call = ToolUseBlock(f"c{turn}", "read", "{}")
        new_blocks = [_CountedText(f"text {turn}"), _CountedText(f"result {turn}")]
        history += [
            AssistantMessage([new_blocks[0], call], StopReason.TOOL_USE),
            ToolResultMessage(call.id, "read", [new_blocks[1]]),
        ]
    for older, newer in itertools.pairwise(bodies):
        assert newer["messages"][: len(older["messages"])] == older["messages"]
        assert len(newer["messages"]) == len(older["messages"]) + 2
    # A new ToolSpec with equal content is a new definition: nothing stale is served.
    changed = dataclasses.replace(SPEC, description="Read a file, now with limits.")
    fourth = _body(kit, provider=provider, messages=list(history), tools=[changed])
    assert fourth["tools"][0]["function"]["description"] == "Read a file, now with limits."


def test_messages_appended_over_turns_are_not_serialized_again_when_the_transcript_is_rewritten(kit: Any) -> None:
    """A transcript rewritten at its head (a compaction's summary) is encoded from the start,
    reusing every message serialized on an earlier turn, appended ones included."""
    provider = OpenAICompletions()
    history: list[Any] = [UserMessage([_CountedText("q")])]
    for turn in range(3):
        _body(kit, provider=provider, messages=list(history))
        call = ToolUseBlock(f"c{turn}", "read", "{}")
        history += [
            AssistantMessage([_CountedText(f"text {turn}"), call], StopReason.TOOL_USE),
            ToolResultMessage(call.id, "read", [_CountedText(f"result {turn}")]),
        ]
    _body(kit, provider=provider, messages=list(history))  # the last two appended, encoded
    summary = _CountedText("summary")
    _CountedText.reads.clear()
    rewritten = _body(kit, provider=provider, messages=[UserMessage([summary]), *history[1:]])
    assert list(_CountedText.reads) == [id(summary)]
    assert rewritten["messages"][1:] == _body(kit, messages=history[1:])["messages"]


def test_the_system_prompt_is_serialized_once_while_it_stays_the_same(kit: Any, monkeypatch: Any) -> None:
    from agentkit_provider_openai import _encode

    serialized: list[Any] = []
    real = _encode.dumps

    def counting(value: Any) -> bytes:
        serialized.append(value)
        return real(value)

    monkeypatch.setattr(_encode, "dumps", counting)
    provider = OpenAICompletions()
    history: list[Any] = [UserMessage.text("q")]
    prompts = ["You are terse.", "You are terse.", "You are " + "terse.", "You are verbose.", "You are terse."]
    for turn, system in enumerate(prompts):
        body = _body(kit, provider=provider, system=system, messages=list(history))
        assert body["messages"][0] == {"role": "system", "content": system}
        history += [AssistantMessage([TextBlock(f"a{turn}")], StopReason.STOP), UserMessage.text(f"q{turn}")]
    systems = [value["content"] for value in serialized if isinstance(value, dict) and value.get("role") == "system"]
    assert systems == ["You are terse.", "You are verbose.", "You are terse."]  # only when it changed


def test_a_transcript_that_diverges_from_the_last_one_is_encoded_from_what_it_holds(
    kit: Any,
) -> None:
    """Reuse never serves a stale message: a replaced message, a shortened
    transcript (compaction) and a branch each encode exactly what they contain."""
    provider = OpenAICompletions()
    head = UserMessage.text("q")
    long = [head, AssistantMessage([TextBlock("a1")], StopReason.STOP), UserMessage.text("q2")]
    branch = [
        head,
        AssistantMessage([TextBlock("a1 (edited)")], StopReason.STOP),
        UserMessage.text("q3"),
    ]
    for transcript in (long, branch, long[:1], long, [*long, UserMessage.text("q4")]):
        assert _body(kit, provider=provider, messages=transcript) == _body(
            kit, provider=OpenAICompletions(), messages=transcript
        )


def test_images_of_a_tool_run_stay_together_when_the_run_spans_two_requests(kit: Any) -> None:
    provider = OpenAICompletions()
    calls = AssistantMessage(
        [ToolUseBlock("a", "shot", "{}"), ToolUseBlock("b", "shot", "{}")], StopReason.TOOL_USE
    )
    first = [
        UserMessage.text("go"),
        calls,
        ToolResultMessage("a", "shot", [ImageBlock("AAAA", "image/png")]),
    ]
    _body(kit, provider=provider, messages=first)
    both = [*first, ToolResultMessage("b", "shot", [ImageBlock("BBBB", "image/png")])]
    messages = _body(kit, provider=provider, messages=both)["messages"]
    assert [message["role"] for message in messages] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "user",
    ]
    assert [
        part["image_url"]["url"] for part in messages[-1]["content"] if part["type"] == "image_url"
    ] == [
        "data:image/png;base64,AAAA",
        "data:image/png;base64,BBBB",
    ]


def test_every_tool_choice_maps_to_the_wire(kit) -> None:
    tools = [ToolSpec("read", "Read.", {"type": "object"})]
    bodies = {choice: _settings_body(kit, tools=tools, tool_choice=choice)["tool_choice"]
              for choice in ("auto", "none", "required", "read")}
    assert bodies == {"auto": "auto", "none": "none", "required": "required",
                      "read": {"type": "function", "function": {"name": "read"}}}


def test_sampling_settings_are_clamped_and_named_as_the_wire_names_them(kit) -> None:
    body = _settings_body(kit, temperature=3.5, top_p=0.5, stop_sequences=["END"], seed=9)
    assert (body["temperature"], body["top_p"], body["stop"], body["seed"]) == (2.0, 0.5, ["END"], 9)


def test_top_k_is_refused_on_openai_and_sent_where_the_profile_takes_it(kit) -> None:
    with pytest.raises(ValueError, match=r"openai-completions \(openai profile\) cannot express top_k"):
        _settings_body(kit, top_k=5)
    assert _settings_body(kit, model=kit.model_row("local/default"), top_k=5)["top_k"] == 5


def test_one_provider_follows_each_request_s_profile_for_its_sampling_rules(kit) -> None:
    # The rules are kept between requests: a request of another profile must get its own.
    provider = OpenAICompletions()
    local = kit.request_for(model=kit.model_row("local/default"), top_k=5)
    openai = kit.request_for(model=kit.model_row("openai/gpt-4o-mini"), top_k=5)
    assert json.loads(provider.encode(local).body)["top_k"] == 5
    with pytest.raises(ValueError, match=r"openai-completions \(openai profile\) cannot express top_k"):
        provider.encode(openai)
    assert json.loads(provider.encode(local).body)["top_k"] == 5


def test_more_than_four_stop_sequences_are_refused_on_openai(kit) -> None:
    with pytest.raises(ValueError, match="5 stop sequences; it takes at most 4"):
        _settings_body(kit, stop_sequences=["a", "b", "c", "d", "e"])


@pytest.mark.parametrize("setting", [{"temperature": 0.2}, {"top_p": 0.5}])
def test_a_reasoning_model_refuses_temperature_and_top_p_naming_the_model(kit, setting) -> None:
    (name,) = setting
    with pytest.raises(ValueError, match=f"openai/o3 does not accept {name}"):
        _settings_body(kit, model=kit.model_row("openai/o3"), **setting)


def _settings_body(kit, **fields) -> dict:
    fields.setdefault("model", kit.model_row("openai/gpt-4o-mini"))
    return json.loads(OpenAICompletions().encode(kit.request_for(**fields)).body)
