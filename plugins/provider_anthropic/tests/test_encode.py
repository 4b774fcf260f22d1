"""The wire rules of the request body, checked through ``encode``."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest
from agentkit_provider_anthropic import AnthropicMessages

from agentkit.plugin_api import (
    AssistantMessage,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolSpec,
    ToolUseBlock,
    UserMessage,
)


def _body(wire) -> dict:
    """The request body as parsed JSON (the codec sends it pre-serialized)."""
    assert isinstance(wire.body, bytes)
    return json.loads(wire.body)


def _spec(name: str) -> ToolSpec:
    return ToolSpec(name, f"{name} things", {"type": "object", "properties": {}})


def _turns(count: int) -> list:
    """A transcript of ``count`` tool turns, each a call answered by one result."""
    messages: list = [UserMessage.text("start")]
    for turn in range(count):
        call = ToolUseBlock(f"toolu_{turn}", "read", f'{{"path": "f{turn}.py"}}')
        messages.append(AssistantMessage([TextBlock(f"turn {turn}"), call], StopReason.TOOL_USE))
        messages.append(ToolResultMessage(call.id, "read", [TextBlock(f"content {turn}")]))
    return messages


def _cache_marks(body: dict) -> list[str]:
    """Where the breakpoints are: ``system``, ``tools[i]``, ``messages[i][j]``."""
    marks = [f"system[{i}]" for i, b in enumerate(body.get("system", [])) if "cache_control" in b]
    marks += [f"tools[{i}]" for i, t in enumerate(body.get("tools", [])) if "cache_control" in t]
    for i, message in enumerate(body["messages"]):
        for j, block in enumerate(message["content"]):
            if "cache_control" in block:
                marks.append(f"messages[{i}][{j}]")
    return marks


def test_one_user_message_carries_every_result_of_a_batch_results_first(kit) -> None:
    calls = [ToolUseBlock(f"toolu_{i}", "read", "{}") for i in range(3)]
    messages = [
        UserMessage.text("go"),
        AssistantMessage(list(calls), StopReason.TOOL_USE),
        ToolResultMessage("toolu_0", "read", [TextBlock("a")]),
        ToolResultMessage("toolu_1", "read", [TextBlock("boom")], is_error=True),
        ToolResultMessage("toolu_2", "read", [TextBlock("c")]),
        UserMessage.text("and then?"),
    ]
    body = _body(AnthropicMessages().encode(kit.request_for(messages=messages)))
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    last = body["messages"][-1]["content"]
    assert [b["type"] for b in last] == ["tool_result"] * 3 + ["text"]
    assert [b["tool_use_id"] for b in last[:3]] == ["toolu_0", "toolu_1", "toolu_2"]
    assert [b.get("is_error", False) for b in last[:3]] == [False, True, False]


def test_breakpoints_sit_on_system_last_tool_and_last_user_block(kit) -> None:
    request = kit.request_for(messages=_turns(5), system="sys", tools=[_spec("a"), _spec("b")])
    body = _body(AnthropicMessages().encode(request))
    last = len(body["messages"]) - 1
    assert _cache_marks(body) == ["system[0]", "tools[1]", f"messages[{last}][0]"]
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}


def test_the_message_breakpoint_rolls_forward_and_stays_within_four(kit) -> None:
    provider = AnthropicMessages()
    tools = [_spec("a"), _spec("b"), _spec("c")]
    transcript = _turns(6)
    seen = []
    for depth in range(1, len(transcript) + 1):
        request = kit.request_for(messages=transcript[:depth], system="sys", tools=tools)
        body = _body(provider.encode(request))
        marks = _cache_marks(body)
        assert len(marks) <= 4
        seen.append(marks[-1])
        # Deterministic: the same request gives the same body.
        assert provider.encode(request).body == provider.encode(request).body
    # Each new user turn moves the message breakpoint; an assistant turn does not.
    assert seen == [
        "messages[0][0]",
        "messages[0][0]",
        "messages[2][0]",
        "messages[2][0]",
        "messages[4][0]",
        "messages[4][0]",
        "messages[6][0]",
        "messages[6][0]",
        "messages[8][0]",
        "messages[8][0]",
        "messages[10][0]",
        "messages[10][0]",
        "messages[12][0]",
    ]


def test_cache_retention_long_and_none(kit) -> None:
    provider = AnthropicMessages()
    long = _body(
        provider.encode(
            kit.request_for(system="s", tools=[_spec("a")], options={"cache_retention": "long"})
        )
    )
    assert long["tools"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    none = _body(
        provider.encode(
            kit.request_for(system="s", tools=[_spec("a")], options={"cache_retention": "none"})
        )
    )
    assert _cache_marks(none) == []
    with pytest.raises(ValueError, match="cache_retention"):
        provider.encode(kit.request_for(options={"cache_retention": "forever"}))


def test_a_cached_tool_definition_is_never_stamped_in_place(kit) -> None:
    """The last tool gets a copy with cache_control; the shared definition stays clean."""
    provider = AnthropicMessages()
    a, b = _spec("a"), _spec("b")
    provider.encode(kit.request_for(tools=[a, b]))
    body = _body(provider.encode(kit.request_for(tools=[b, a])))
    assert "cache_control" not in body["tools"][0]
    assert "cache_control" in body["tools"][1]


class _CountingSchema(Mapping):
    """A schema that counts how often it is read: once per serialization."""

    def __init__(self, schema: dict) -> None:
        self._schema = schema
        self.reads = 0

    def __getitem__(self, key):
        return self._schema[key]

    def __iter__(self):
        self.reads += 1
        return iter(self._schema)

    def __len__(self) -> int:
        return len(self._schema)


def test_schemas_are_serialized_once_per_tool_spec_not_per_turn(kit) -> None:
    """The host reuses ToolSpec objects across turns; steady-state requests read no schema."""
    provider = AnthropicMessages()
    schemas = [_CountingSchema({"type": "object", "properties": {}}) for _ in range(3)]
    tools = [ToolSpec(f"t{n}", "a tool", schema) for n, schema in enumerate(schemas)]
    for turn in range(1, 6):
        body = _body(provider.encode(kit.request_for(tools=list(tools), messages=_turns(turn))))
        assert [t["input_schema"] for t in body["tools"]] == [
            {"type": "object", "properties": {}}
        ] * 3
    # Once for the shared definitions, once more for the last tool's stamped copy.
    assert [schema.reads for schema in schemas] == [1, 1, 2]
    # A new tool list with the same specs in another order reuses every definition.
    provider.encode(kit.request_for(tools=[tools[2], tools[0], tools[1]]))
    assert [schema.reads for schema in schemas] == [1, 2, 2]


def test_tool_choice_mapping_and_absence(kit) -> None:
    provider = AnthropicMessages()
    choices = {
        "auto": {"type": "auto"},
        "none": {"type": "none"},
        "required": {"type": "any"},
        "read": {"type": "tool", "name": "read"},
    }
    for choice, wire in choices.items():
        request = kit.request_for(tool_choice=choice, tools=[_spec("read")])
        assert _body(provider.encode(request))["tool_choice"] == wire
    assert "tool_choice" not in _body(provider.encode(kit.request_for(tool_choice=None)))


def test_empty_argument_text_sends_an_empty_object(kit) -> None:
    messages = [
        UserMessage.text("go"),
        AssistantMessage(
            [ToolUseBlock("t1", "now", ""), ToolUseBlock("t2", "cut", '{"path": "a.')],
            StopReason.LENGTH,
        ),
    ]
    body = _body(AnthropicMessages().encode(kit.request_for(messages=messages)))
    assert [b["input"] for b in body["messages"][1]["content"]] == [{}, {}]


def test_thinking_is_replayed_with_its_signature_and_redacted_thinking_kept(kit) -> None:
    messages = [
        UserMessage.text("go"),
        AssistantMessage(
            [
                ThinkingBlock("step one", signature="sig-1"),
                ThinkingBlock("", signature="opaque", redacted=True),
                ThinkingBlock("unsigned"),
                TextBlock(""),
                TextBlock("answer"),
            ],
            StopReason.STOP,
        ),
    ]
    body = _body(AnthropicMessages().encode(kit.request_for(messages=messages)))
    assert body["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "step one", "signature": "sig-1"},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "unsigned"},
        {"type": "text", "text": "answer"},
    ]


def test_max_tokens_defaults_to_the_model_row_and_stream_sets_framing(kit) -> None:
    provider = AnthropicMessages()
    row = kit.model_row("claude-haiku-4-5")
    wire = provider.encode(kit.request_for(model=row, stream=False))
    assert _body(wire)["max_tokens"] == row.max_output == 64_000
    assert _body(wire)["stream"] is False and wire.framing == "json"
    assert (wire.method, wire.path) == ("POST", "/v1/messages")
    assert wire.headers == {"anthropic-version": "2026-10-21"}
    streamed = provider.encode(kit.request_for(model=row, max_tokens=50, temperature=0.3))
    assert _body(streamed)["max_tokens"] == 50 and _body(streamed)["temperature"] == 0.3
    assert _body(streamed)["stream"] is True and streamed.framing == "sse"


def test_reasoning_levels_reach_the_wire_the_way_the_row_takes_them(kit) -> None:
    provider = AnthropicMessages()
    adaptive = _body(provider.encode(kit.request_for(reasoning="xhigh")))
    assert adaptive["thinking"] == {"type": "adaptive"}
    assert adaptive["output_config"] == {"effort": "xhigh"}
    budget = _body(
        provider.encode(
            kit.request_for(
                model=kit.model_row("claude-haiku-4-5"), reasoning="high", max_tokens=4000
            )
        )
    )
    assert budget["thinking"] == {"type": "enabled", "budget_tokens": 3999}
    assert "thinking" not in _body(provider.encode(kit.request_for()))


def test_messages_left_empty_are_dropped_and_the_body_stays_json(kit) -> None:
    provider = AnthropicMessages()
    only_empty = [UserMessage([TextBlock("")])]
    assert _body(provider.encode(kit.request_for(messages=only_empty)))["messages"] == []
    messages = [
        UserMessage.text("go"),
        AssistantMessage([TextBlock("")], StopReason.REFUSAL),
        UserMessage.text("again"),
    ]
    body = _body(provider.encode(kit.request_for(messages=messages)))
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert [b["text"] for b in body["messages"][0]["content"]] == ["go", "again"]


def test_sampling_settings_reach_the_wire_clamped_to_its_range(kit) -> None:
    request = kit.request_for(model=kit.model_row("claude-sonnet-4-6"), temperature=1.7, top_p=0.8, top_k=5,
                              stop_sequences=["END"])
    body = _body(AnthropicMessages().encode(request))
    assert (body["temperature"], body["top_p"], body["top_k"], body["stop_sequences"]) == (1.0, 0.8, 5, ["END"])


@pytest.mark.parametrize("setting", [{"temperature": 0.2}, {"top_p": 0.5}, {"top_k": 3}])
def test_a_claude_5_model_refuses_the_sampling_fields_the_api_version_removed(kit, setting) -> None:
    (name,) = setting
    with pytest.raises(ValueError, match=f"anthropic/claude-opus-5-5 does not accept {name}"):
        AnthropicMessages().encode(kit.request_for(model=kit.model_row("claude-opus-5-5"), **setting))


def test_stop_sequences_reach_every_model_and_seed_is_refused_naming_the_wire(kit) -> None:
    row = kit.model_row("claude-opus-5-5")
    body = _body(AnthropicMessages().encode(kit.request_for(model=row, stop_sequences=["END"])))
    assert body["stop_sequences"] == ["END"]
    with pytest.raises(ValueError, match=r"anthropic-messages cannot express seed"):
        AnthropicMessages().encode(kit.request_for(model=row, seed=1))


@pytest.mark.parametrize(("setting", "named"), [
    ({"tool_choice": "required"}, "a forced tool_choice"), ({"tool_choice": "read"}, "a forced tool_choice"),
    ({"top_k": 5}, "top_k"), ({"temperature": 0.5}, "temperature other than 1"), ({"top_p": 0.5}, "top_p below 0.95"),
])
def test_what_thinking_does_not_allow_is_refused_before_sending(kit, setting, named) -> None:
    request = kit.request_for(model=kit.model_row("claude-haiku-4-5"), reasoning="low", tools=[_spec("read")],
                              **setting)
    with pytest.raises(ValueError, match=f"{named} with thinking on"):
        AnthropicMessages().encode(request)


def test_what_thinking_allows_is_sent(kit) -> None:
    request = kit.request_for(model=kit.model_row("claude-haiku-4-5"), reasoning="low", tools=[_spec("read")],
                              tool_choice="auto", temperature=1.0, top_p=0.97, stop_sequences=["END"])
    body = _body(AnthropicMessages().encode(request))
    assert (body["temperature"], body["top_p"], body["thinking"]["type"]) == (1.0, 0.97, "enabled")
