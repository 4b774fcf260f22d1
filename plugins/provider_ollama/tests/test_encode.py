"""Encoding requests for Ollama's ``/api/chat``: the body, positional results, argument replay, caching."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any, ClassVar

import pytest
from agentkit_provider_ollama import OllamaChat

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

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "minLength": 1},
        "limit": {"type": "integer", "minimum": 1, "default": 2000},
    },
    "required": ["path"],
    "additionalProperties": False,
}
READ = ToolSpec("read_file", "Read a file.", MappingProxyType(SCHEMA))


def test_a_first_turn_body(kit: Any) -> None:
    wire = OllamaChat().encode(
        kit.request_for(
            messages=[UserMessage.text("Hello!")],
            system="Be brief.",
            tools=[READ],
            max_tokens=100,
            temperature=0,
        )
    )
    assert (wire.method, wire.path, wire.framing) == ("POST", "/api/chat", "ndjson")
    assert json.loads(wire.body) == {
        "model": "qwen3",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hello!"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "read_file",
                    "description": "Read a file.",
                    "parameters": SCHEMA,
                },
            }
        ],
        "options": {"num_predict": 100, "temperature": 0},
        "stream": True,
    }


def test_a_whole_response_is_asked_for_with_stream_false(kit: Any) -> None:
    wire = OllamaChat().encode(kit.request_for(stream=False))
    assert wire.framing == "json"
    assert json.loads(wire.body)["stream"] is False


def _batch() -> list[Any]:
    calls = [
        ToolUseBlock("toolu_1", "read_file", '{"path": "a.py", "limit": 5}'),
        ToolUseBlock("toolu_2", "read_file", '{"limit":1,"path":"b.py"}'),
        ToolUseBlock("toolu_3", "grep", '{"pattern":"x","path":"."}'),
    ]
    return [
        UserMessage.text("go"),
        AssistantMessage([TextBlock("On it."), *calls], StopReason.TOOL_USE),
        ToolResultMessage("toolu_1", "read_file", [TextBlock("alpha")]),
        ToolResultMessage("toolu_2", "read_file", [TextBlock("no such file: b.py")], is_error=True),
        ToolResultMessage("toolu_3", "grep", [TextBlock("x:1"), TextBlock("x:2")]),
    ]


def test_results_are_tool_messages_paired_by_position_with_no_ids(kit: Any) -> None:
    raw = OllamaChat().encode(kit.request_for(messages=_batch())).body
    assert b"toolu_" not in raw  # no id of any kind goes on this wire
    messages = json.loads(raw)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "tool"]
    assert [c["function"]["name"] for c in messages[1]["tool_calls"]] == [
        "read_file",
        "read_file",
        "grep",
    ]
    assert messages[2:] == [
        {"role": "tool", "tool_name": "read_file", "content": "alpha"},
        {"role": "tool", "tool_name": "read_file", "content": "Error: no such file: b.py"},
        {"role": "tool", "tool_name": "grep", "content": "x:1\nx:2"},
    ]


def test_replayed_arguments_are_objects_in_the_stored_key_order(kit: Any) -> None:
    messages = json.loads(OllamaChat().encode(kit.request_for(messages=_batch())).body)["messages"]
    arguments = [call["function"]["arguments"] for call in messages[1]["tool_calls"]]
    assert arguments == [
        {"path": "a.py", "limit": 5},
        {"limit": 1, "path": "b.py"},
        {"pattern": "x", "path": "."},
    ]
    assert [list(a) for a in arguments] == [
        ["path", "limit"],
        ["limit", "path"],
        ["pattern", "path"],
    ]


@pytest.mark.parametrize("text", ["", '{"path": "a.py', "[1, 2]", '"x"', '{"x": NaN}', "not json"])
def test_arguments_that_are_not_an_object_replay_as_an_empty_object(kit: Any, text: str) -> None:
    history = [
        UserMessage.text("go"),
        AssistantMessage([ToolUseBlock("c", "read_file", text)], StopReason.LENGTH),
        ToolResultMessage("c", "read_file", [TextBlock("not run")], is_error=True),
    ]
    messages = json.loads(OllamaChat().encode(kit.request_for(messages=history)).body)["messages"]
    assert messages[1]["tool_calls"] == [{"function": {"name": "read_file", "arguments": {}}}]


def test_images_and_thinking(kit: Any) -> None:
    history = [
        UserMessage([TextBlock("Look:"), ImageBlock("iVBORw0K", "image/png"), TextBlock("ok?")]),
        AssistantMessage(
            [
                ThinkingBlock("hidden", "opaque", redacted=True),
                ThinkingBlock("It is a ", "ollama-chat"),
                ThinkingBlock("chart.", "ollama-chat"),
                TextBlock("A chart."),
            ],
            StopReason.STOP,
        ),
        UserMessage([ImageBlock("/9j/4AAQ", "image/jpeg")]),
        AssistantMessage([ToolUseBlock("c", "shot", "{}")], StopReason.TOOL_USE),
        ToolResultMessage("c", "shot", [ImageBlock("R0lGOD", "image/gif")]),
        AssistantMessage([], StopReason.STOP),
    ]
    messages = json.loads(OllamaChat().encode(kit.request_for(messages=history)).body)["messages"]
    assert messages == [
        {"role": "user", "content": "Look:\nok?", "images": ["iVBORw0K"]},
        {"role": "assistant", "content": "A chart.", "thinking": "It is a chart."},
        {"role": "user", "images": ["/9j/4AAQ"]},
        {"role": "assistant", "tool_calls": [{"function": {"name": "shot", "arguments": {}}}]},
        {"role": "tool", "tool_name": "shot", "images": ["R0lGOD"]},
    ]


@pytest.mark.parametrize(
    ("row", "level", "think"),
    [
        ("ollama/qwen3", None, None),
        ("ollama/qwen3", "high", True),
        ("ollama/gpt-oss:20b", "low", "low"),
        ("ollama/gpt-oss:20b", "high", "high"),
        ("ollama/gpt-oss:20b", "minimal", True),
        ("ollama/qwen3", "off", False),
    ],
)
def test_reasoning_is_sent_as_think(kit: Any, row: str, level: str | None, think: Any) -> None:
    body = kit.body_of(kit.request_for(model=kit.model_row(row), reasoning=level))
    assert body.get("think", None) == think
    assert ("think" in body) is (think is not None)


def test_tool_choice_none_sends_no_tools_and_auto_sends_them_all(kit: Any) -> None:
    grep = ToolSpec("grep", "Search.", {"type": "object", "properties": {}})
    provider = OllamaChat()
    assert "tools" not in kit.body_of(
        kit.request_for(tools=[READ, grep], tool_choice="none"), provider
    )
    auto = kit.body_of(kit.request_for(tools=[READ, grep], tool_choice="auto"), provider)
    assert [t["function"]["name"] for t in auto["tools"]] == ["read_file", "grep"]
    assert "tool_choice" not in auto


@pytest.mark.parametrize("choice", ["required", "grep"])
def test_a_forcing_tool_choice_is_refused_naming_the_wire(kit: Any, choice: str) -> None:
    grep = ToolSpec("grep", "Search.", {"type": "object", "properties": {}})
    with pytest.raises(ValueError, match=r"ollama-chat cannot express .*tool_choice="):
        kit.body_of(kit.request_for(tools=[READ, grep], tool_choice=choice), OllamaChat())


def test_sampling_settings_go_in_options_and_win_over_the_same_option(kit: Any) -> None:
    row = kit.model_row(options={"seed": 1, "top_k": 9})
    request = kit.request_for(model=row, max_tokens=64, temperature=0.4, top_p=0.8, top_k=20,
                              stop_sequences=["END"], seed=7, options={"stop": ["X"]})
    assert kit.body_of(request, OllamaChat())["options"] == {
        "num_predict": 64, "temperature": 0.4, "seed": 7, "top_k": 20, "top_p": 0.8, "stop": ["END"],
    }


def test_model_options_from_the_row_and_the_request(kit: Any) -> None:
    row = kit.model_row(options={"num_ctx": 8192, "seed": 1})
    body = kit.body_of(
        kit.request_for(
            model=row,
            max_tokens=64,
            options={
                "seed": 7,
                "keep_alive": "30m",
                "extra_body": {"format": "json", "model": "x"},
            },
        ),
    )
    assert body["options"] == {"num_predict": 64, "num_ctx": 8192, "seed": 7}
    assert (body["keep_alive"], body["format"], body["model"]) == ("30m", "json", "qwen3")


# -- the incremental body ----------------------------------------------------------


def _session(turns: int) -> list[Any]:
    history: list[Any] = [UserMessage.text("start")]
    for n in range(turns):
        call = ToolUseBlock(f"c{n}", "read_file", f'{{"path": "f{n}.py"}}')
        history += [
            AssistantMessage([TextBlock(f"step {n}"), call], StopReason.TOOL_USE),
            ToolResultMessage(call.id, call.name, [TextBlock(f"body {n}")]),
        ]
    return history


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


def test_a_growing_session_serializes_only_new_messages_and_no_schemas(kit: Any) -> None:
    """A steady-state request reads no tool schema and no old message again, and
    its body is the one a fresh codec builds."""
    schema = _CountedSchema({"type": "object", "properties": {"path": {"type": "string"}}})
    tools = [ToolSpec("read_file", "Read a file.", schema)]
    provider = OllamaChat()
    history: list[Any] = [UserMessage([_CountedText("start")])]
    new_blocks: list[Any] = list(history[0].content)
    for turn in range(5):
        _CountedText.reads.clear()
        schema_reads = schema.reads
        request = kit.request_for(messages=list(history), tools=tools, system="s")
        body = provider.encode(request).body
        assert schema.reads - schema_reads == (1 if turn == 0 else 0)
        assert sorted(_CountedText.reads) == sorted(id(block) for block in new_blocks)
        assert body == OllamaChat().encode(request).body  # a fresh codec agrees
        call = ToolUseBlock(f"c{turn}", "read_file", f'{{"path": "f{turn}.py"}}')
        new_blocks = [_CountedText(f"step {turn}"), _CountedText(f"body {turn}")]
        history += [
            AssistantMessage([new_blocks[0], call], StopReason.TOOL_USE),
            ToolResultMessage(call.id, call.name, [new_blocks[1]]),
        ]


def test_a_branch_of_a_session_is_encoded_from_its_own_messages(kit: Any) -> None:
    provider = OllamaChat()
    history = _session(4)
    provider.encode(kit.request_for(messages=history))
    branch = [*history[:3], UserMessage.text("no, do something else")]
    body = json.loads(provider.encode(kit.request_for(messages=branch)).body)
    assert body == json.loads(OllamaChat().encode(kit.request_for(messages=branch)).body)
    assert body["messages"][-1] == {"role": "user", "content": "no, do something else"}
    assert len(body["messages"]) == 4


def test_a_replaced_message_is_never_served_from_the_last_encoding(kit: Any) -> None:
    """A longer transcript that replaced a message (the host's repair view, an
    edit) shares the first message but not the prefix: nothing stale is sent."""
    provider = OllamaChat()
    history = _session(2)
    provider.encode(kit.request_for(messages=history))
    edited = [
        history[0],
        AssistantMessage([TextBlock("step 0, revised")], StopReason.STOP),
        *history[2:],
        UserMessage.text("more"),
    ]
    body = json.loads(provider.encode(kit.request_for(messages=edited)).body)
    assert body == json.loads(OllamaChat().encode(kit.request_for(messages=edited)).body)
    assert body["messages"][1] == {"role": "assistant", "content": "step 0, revised"}


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
        kit.body_of(kit.request_for(model=kit.model_row("ollama/qwen2.5vl"), messages=messages))
    assert "ollama-chat" in str(raised.value) and "https://images.example/chart.png" in str(raised.value)
