"""The official ``ollama`` Python SDK as a second, independent implementation of the wire.

Encoding: each body we build is handed, field by field, to ``ollama.Client.chat``
(over ``httpx.MockTransport``) and the body the SDK puts on the wire must equal ours
as parsed JSON. The SDK validates every message and tool into its pydantic models
and drops what they do not declare, so a field we invent, misname or misplace
makes the two bodies differ.

Decoding: NDJSON bytes built from Ollama's API reference (see ``conftest.py``) are
parsed by the SDK (its streamed ``ChatResponse`` chunks, or the whole response) and
by our decoder; text, thinking, tool calls (names and argument objects, key order
included), the done reason and the counts must agree. A mid-stream error line,
which the SDK raises as ``ResponseError``, must end our message as an error.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import ollama
import pytest
from ollama import Options

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

HOST = "http://127.0.0.1:11434"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(64))).decode("ascii")
JPEG = base64.b64encode(b"\xff\xd8\xff\xe0" + bytes(range(48))).decode("ascii")

# Schemas limited to the keywords the SDK's ``Tool`` model declares (type,
# properties with type/description/enum/items, required): it silently drops the
# rest, which ``test_encode`` shows we do not.
WEATHER = ToolSpec(
    "get_weather",
    "Current weather for a city.",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["c", "f"]},
        },
        "required": ["city"],
    },
)
READ = ToolSpec(
    "read_file",
    "Read a file.",
    {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "lines": {"type": "array", "items": {"type": "integer"}},
        },
        "required": ["path"],
    },
)


def _client(handler: Any) -> ollama.Client:
    return ollama.Client(host=HOST, transport=httpx.MockTransport(handler))


def _sdk_sends(body: dict[str, Any]) -> dict[str, Any]:
    """What the SDK puts on the wire for the same request, as parsed JSON."""
    captured: list[httpx.Request] = []
    final = {
        "model": body["model"],
        "created_at": "2025-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": "ok"},
        "done": True,
        "done_reason": "stop",
    }

    def handler(request: httpx.Request) -> httpx.Response:
        captured.append(request)
        return httpx.Response(200, content=json.dumps(final).encode() + b"\n")

    known = {"model", "messages", "tools", "think", "options", "stream", "keep_alive", "format"}
    assert set(body) <= known, f"fields the SDK's chat() has no parameter for: {set(body) - known}"
    # The SDK passes unknown option names through: hold them to its Options model.
    unknown = set(body.get("options") or {}) - set(Options.model_fields)
    assert not unknown, f"options the SDK's Options has no field for: {sorted(unknown)}"
    result = _client(handler).chat(
        model=body["model"],
        messages=body["messages"],
        tools=body.get("tools"),
        think=body.get("think"),
        format=body.get("format"),
        options=body.get("options"),
        stream=body["stream"],
        keep_alive=body.get("keep_alive"),
    )
    if body["stream"]:
        list(result)
    (request,) = captured
    assert request.url.path == "/api/chat"
    return json.loads(request.content)


def _three_parallel_results() -> list[Any]:
    calls = [
        ToolUseBlock("c1", "get_weather", '{"city": "Paris"}'),
        ToolUseBlock("c2", "get_weather", '{"unit":"c","city":"Zürich"}'),
        ToolUseBlock("c3", "read_file", '{"path":"notes/日本.md","lines":[1,2]}'),
    ]
    return [
        UserMessage.text("Weather in Paris and Zürich, and my notes?"),
        AssistantMessage([TextBlock("Checking."), *calls], StopReason.TOOL_USE),
        ToolResultMessage("c1", "get_weather", [TextBlock("18°C, cloudy")]),
        ToolResultMessage("c2", "get_weather", [TextBlock("no such unit")], is_error=True),
        ToolResultMessage("c3", "read_file", [TextBlock("- buy 🍣\n- call mum")]),
        AssistantMessage([TextBlock("Paris is 18°C; Zürich failed.")], StopReason.STOP),
        UserMessage.text("Thanks — and «now»?"),
    ]


def _images() -> list[Any]:
    return [
        UserMessage(
            [
                TextBlock("What is in this picture?"),
                ImageBlock(PNG, "image/png"),
                ImageBlock(JPEG, "image/jpeg"),
            ]
        ),
        AssistantMessage(
            [ToolUseBlock("c1", "read_file", '{"path":"chart.png"}')], StopReason.TOOL_USE
        ),
        ToolResultMessage(
            "c1", "read_file", [TextBlock("the chart:"), ImageBlock(PNG, "image/png")]
        ),
        UserMessage([ImageBlock(JPEG, "image/jpeg")]),
    ]


def _thinking() -> list[Any]:
    return [
        UserMessage.text("Is 2027 prime?"),
        AssistantMessage(
            [
                ThinkingBlock("2027 = 3·675.67… no; try 7, 11, 13 … none divide.", "ollama-chat"),
                ToolUseBlock("c1", "read_file", '{"path":"primes.txt"}'),
            ],
            StopReason.TOOL_USE,
        ),
        ToolResultMessage("c1", "read_file", []),
        AssistantMessage(
            [ThinkingBlock("It is prime.", "ollama-chat"), TextBlock("Yes.")], StopReason.STOP
        ),
        UserMessage.text("Why?"),
    ]


TRANSCRIPTS = {
    "three parallel results": (_three_parallel_results, "ollama/qwen3", None),
    "images": (_images, "ollama/mistral-small3.2", None),
    "thinking on": (_thinking, "ollama/qwen3", "high"),
    "thinking level": (_thinking, "ollama/gpt-oss:20b", "medium"),
}


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("name", sorted(TRANSCRIPTS))
def test_our_body_equals_what_the_sdk_sends(kit: Any, name: str, stream: bool) -> None:
    messages, row, reasoning = TRANSCRIPTS[name]
    request = kit.request_for(
        model=kit.model_row(row),
        messages=messages(),
        system="You are terse. Ünïcödé is fine.",
        tools=[WEATHER, READ],
        max_tokens=512,
        temperature=0.2,
        top_p=0.9,
        top_k=40,
        stop_sequences=["END"],
        seed=11,
        reasoning=reasoning,
        stream=stream,
        options={"num_ctx": 32768, "keep_alive": "10m"},
    )
    ours = kit.body_of(request)
    assert _sdk_sends(ours) == ours


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_an_output_schema_is_the_format_the_sdk_sends(kit: Any, stream: bool) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}, "sky": {"enum": ["clear", "rain"]}},
              "required": ["city", "sky"]}
    request = kit.request_for(model=kit.model_row("ollama/qwen3"), messages=_three_parallel_results(),
                              tools=[WEATHER], output_schema=schema, stream=stream)
    ours = kit.body_of(request)
    assert ours["format"] == schema
    assert _sdk_sends(ours) == ours


def test_the_three_results_are_tool_messages_in_call_order_without_ids(kit: Any) -> None:
    body = kit.body_of(kit.request_for(messages=_three_parallel_results(), tools=[WEATHER, READ]))
    tools = [message for message in body["messages"] if message["role"] == "tool"]
    assert [(m["tool_name"], m["content"]) for m in tools] == [
        ("get_weather", "18°C, cloudy"),
        ("get_weather", "Error: no such unit"),
        ("read_file", "- buy 🍣\n- call mum"),
    ]
    assert all(set(m) == {"role", "tool_name", "content"} for m in tools)
    # The same check through the SDK's declared message model: nothing undeclared.
    for message in body["messages"]:
        assert set(message) <= set(ollama.Message.model_fields)


# -- decoding: the SDK parses the same bytes ---------------------------------


def _tool_turn(kit: Any) -> list[dict]:
    return [
        kit.line({"thinking": "The user wants "}),
        kit.line({"thinking": "two cities."}),
        kit.line({"content": "Let me check "}),
        kit.line({"content": "both."}),
        kit.line(
            {
                "tool_calls": [
                    {
                        "function": {
                            "name": "get_weather",
                            "arguments": {"location": "Toronto", "format": "celsius"},
                        }
                    },
                    {
                        "function": {
                            "name": "get_weather",
                            "arguments": {
                                "format": "celsius",
                                "location": "Zürich",
                                "days": [1, 2.5],
                                "hint": None,
                            },
                        }
                    },
                ]
            }
        ),
        kit.done(prompt=122, output=33),
    ]


def _text_turn(kit: Any) -> list[dict]:
    return [kit.line({"content": word}) for word in ("The", " sky", " is", " blue", " 🌤.")] + [
        kit.done("length", prompt=26, output=5)
    ]


def _sdk_reads(raw: bytes, stream: bool) -> dict[str, Any]:
    """What the SDK makes of a response: joined text and thinking, calls, reason, counts."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=raw)

    result = _client(handler).chat(
        model="qwen3", messages=[{"role": "user", "content": "hi"}], stream=stream
    )
    chunks = list(result) if stream else [result]
    calls = [call for chunk in chunks for call in (chunk.message.tool_calls or [])]
    final = chunks[-1]
    return {
        "text": "".join(chunk.message.content or "" for chunk in chunks),
        "thinking": "".join(chunk.message.thinking or "" for chunk in chunks),
        "calls": [(call.function.name, list(call.function.arguments.items())) for call in calls],
        "reason": final.done_reason,
        "counts": (final.prompt_eval_count, final.eval_count),
    }


def _we_read(kit: Any, events: list) -> dict[str, Any]:
    message = kit.final_message(kit.decode(events))
    return {
        "text": message.text,
        "thinking": "".join(b.thinking for b in message.content if isinstance(b, ThinkingBlock)),
        "calls": [
            (call.name, list(json.loads(call.arguments).items())) for call in message.tool_calls
        ],
        "reason": message.raw_stop_reason,
        "counts": (message.usage.input, message.usage.output),
    }


@pytest.mark.parametrize("turn", [_tool_turn, _text_turn], ids=["tool calls", "text"])
def test_a_stream_reads_as_the_sdk_reads_it(kit: Any, turn: Any) -> None:
    raw = kit.ndjson(turn(kit))
    assert _we_read(kit, kit.frame_ndjson(raw)) == _sdk_reads(raw, stream=True)


@pytest.mark.parametrize("turn", [_tool_turn, _text_turn], ids=["tool calls", "text"])
def test_a_whole_response_reads_as_the_sdk_reads_it(kit: Any, turn: Any) -> None:
    body = kit.whole(turn(kit))
    raw = json.dumps(body, ensure_ascii=False).encode()
    assert _we_read(kit, kit.frame_json(raw)) == _sdk_reads(raw, stream=False)


def test_an_error_line_the_sdk_raises_on_ends_our_message_as_an_error(kit: Any) -> None:
    raw = kit.ndjson(
        [
            kit.line({"content": "Half an ans"}),
            {"error": "an error was encountered while running the model: unexpected EOF"},
        ]
    )
    with pytest.raises(ollama.ResponseError) as raised:
        _sdk_reads(raw, stream=True)
    message = kit.final_message(kit.decode(kit.frame_ndjson(raw)))
    assert message.stop_reason is StopReason.ERROR
    assert raised.value.error in (message.error_message or "")
    assert message.text == "Half an ans"
