"""The official ``openai`` SDK as a second, independent implementation of the wire.

Encoding: each request body we build is handed to ``client.chat.completions.create``
(an unknown top-level field is a ``TypeError`` there) and the body the SDK puts on
the wire, captured by a mock transport, must equal ours as parsed JSON; every
message, tool and tool choice must also validate against the SDK's declared
parameter types.

Decoding: recorded response bytes (pydantic/pydantic-ai cassettes, MIT, under
``testdata/pydantic-ai/test_openai``) and a synthetic
interleaved stream are replayed through the SDK's own stream accumulator
(``ChatCompletionStreamState``) or its response parser, and its text, tool calls,
finish reason and usage must agree with our decoder's message.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
import yaml
from agentkit_provider_openai import OpenAICompletions
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import (
    ChatCompletionMessageParam,
    ChatCompletionToolChoiceOptionParam,
    ChatCompletionToolUnionParam,
)
from openai.types.shared_params import ResponseFormatJSONSchema

from agentkit.conformance import codec
from agentkit.plugin_api import (
    AssistantMessage,
    AudioBlock,
    DocumentBlock,
    ImageBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolSpec,
    ToolUseBlock,
    UserMessage,
)

# libyaml's parser where PyYAML has it: the cassettes are megabytes of YAML read at collection.
FAST_YAML = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

CASSETTES = Path(__file__).resolve().parents[3] / "testdata" / "pydantic-ai" / "test_openai"

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(64))).decode("ascii")
WEATHER = ToolSpec(
    "get_weather",
    "Current weather for a city.",
    {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"enum": ["c", "f"]}},
        "required": ["city"],
        "additionalProperties": False,
    },
)
READ = ToolSpec(
    "read_file",
    "Read a file.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


def _client(handler: Callable[[httpx2.Request], httpx2.Response]) -> openai.OpenAI:
    return openai.OpenAI(
        api_key="test",
        base_url="http://127.0.0.1:9/v1",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )


def _sdk_sends(body: dict[str, Any]) -> dict[str, Any]:
    """What the SDK puts on the wire for ``create(**body)``, as parsed JSON."""
    captured: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        captured.append(request)
        if body.get("stream"):
            return httpx2.Response(
                200, headers={"content-type": "text/event-stream"}, content=b"data: [DONE]\n\n"
            )
        return httpx2.Response(200, json=_MINIMAL_COMPLETION)

    result = _client(handler).chat.completions.create(**body)
    if body.get("stream"):
        list(result)
    (request,) = captured
    assert request.url.path == "/v1/chat/completions"
    return json.loads(request.content)


_MINIMAL_COMPLETION = {
    "id": "chatcmpl-x",
    "object": "chat.completion",
    "created": 0,
    "model": "gpt-4o-mini",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    ],
}


def _three_parallel_results() -> list[Any]:
    calls = [
        ToolUseBlock("call_a", "get_weather", '{"city": "Paris"}'),
        ToolUseBlock("call_b", "get_weather", '{"city":"Zürich","unit":"c"}'),
        ToolUseBlock("call_c", "read_file", '{"path":"notes/日本.md"}'),
    ]
    return [
        UserMessage.text("Weather in Paris and Zürich, and my notes?"),
        AssistantMessage([TextBlock("Checking."), *calls], StopReason.TOOL_USE),
        ToolResultMessage("call_a", "get_weather", [TextBlock("18°C, cloudy")]),
        ToolResultMessage("call_b", "get_weather", [TextBlock("no such unit")], is_error=True),
        ToolResultMessage("call_c", "read_file", [TextBlock("- buy 🍣\n- call mum")]),
    ]


def _images() -> list[Any]:
    return [
        UserMessage([TextBlock("What is in this picture?"), ImageBlock(PNG, "image/png")]),
        AssistantMessage(
            [ThinkingBlock("looks like a chart", "sig"), ToolUseBlock("c1", "read_file", "{}")],
            StopReason.TOOL_USE,
        ),
        ToolResultMessage("c1", "read_file", [ImageBlock(PNG, "image/png")]),
        ToolResultMessage("c2", "read_file", [TextBlock("second"), ImageBlock(PNG, "image/jpeg")]),
        UserMessage.text("and now?"),
    ]


TRANSCRIPTS: dict[str, dict[str, Any]] = {
    "plain": {"messages": [UserMessage.text("hi")]},
    "system_and_unicode": {
        "system": "Réponds en français. Emojis allowed: 🙂",
        "messages": [UserMessage.text('Ça va ? \u2028 «quotes» "double" \\ back\u0000slash')],
    },
    "tools_auto": {
        "messages": _three_parallel_results(),
        "tools": [WEATHER, READ],
        "tool_choice": "auto",
    },
    "tools_none": {"messages": [UserMessage.text("hi")], "tools": [WEATHER], "tool_choice": "none"},
    "tools_forced": {
        "messages": [UserMessage.text("hi")],
        "tools": [WEATHER, READ],
        "tool_choice": "read_file",
    },
    "tool_choice_without_tools": {"messages": [UserMessage.text("hi")], "tool_choice": "none"},
    "tools_required": {
        "messages": [UserMessage.text("hi")],
        "tools": [WEATHER, READ],
        "tool_choice": "required",
    },
    "every_sampling_setting": {
        "messages": [UserMessage.text("hi")],
        "temperature": 1.2,
        "top_p": 0.9,
        "stop_sequences": ["END", "\n\n"],
        "seed": 42,
    },
    "images": {"messages": _images(), "tools": [READ]},
    # A URL image goes as the image_url part's url, which the API downloads itself.
    "image_urls": {"messages": [UserMessage([TextBlock("What is this?"), ImageBlock.from_url("https://images.example/vegetable.jpg")])]},
    # A PDF goes as a file part, a text document as a text part, a recording as an input_audio part.
    "documents_and_audio": {"messages": [UserMessage([
        TextBlock("Read and listen."), DocumentBlock.from_bytes(b"%PDF-1.4\n", "application/pdf", name="a.pdf"),
        DocumentBlock.from_bytes(b"notes\n", "text/plain", name="n.txt"), AudioBlock.from_bytes(b"ID3\x03", "audio/mpeg"),
    ])]},
    "limits_and_sampling": {
        "messages": [UserMessage.text("hi")],
        "max_tokens": 321,
        "temperature": 0.0,
    },
    "reasoning_model": {
        "system": "be brief",
        "messages": [UserMessage.text("hi")],
        "reasoning": "high",
        "model": "openai/o4-mini",
        "session_id": "s" * 80,
    },
    "structured_output_strict": {
        "messages": [UserMessage.text("hi")],
        "output_schema": {"type": "object", "title": "Report", "properties": {"city": {"type": "string"}},
                          "required": ["city"], "additionalProperties": False},
    },
    "structured_output_loose": {
        "messages": [UserMessage.text("hi")],
        "tools": [WEATHER],
        "output_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
    "strict_tools": {
        "messages": [UserMessage.text("hi")],
        "tools": [WEATHER],
        "options": {"strict_tools": True},
    },
}


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("name", sorted(TRANSCRIPTS))
def test_the_sdk_sends_exactly_our_body(name: str, stream: bool, kit: Any) -> None:
    fields = dict(TRANSCRIPTS[name])
    fields["model"] = kit.model_row(fields.pop("model", "openai/gpt-4o-mini"))
    body = json.loads(OpenAICompletions().encode(kit.request_for(stream=stream, **fields)).body)
    assert _sdk_sends(body) == body


@pytest.mark.parametrize("name", sorted(TRANSCRIPTS))
def test_our_body_fits_the_sdk_parameter_types(name: str, kit: Any) -> None:
    fields = dict(TRANSCRIPTS[name])
    fields["model"] = kit.model_row(fields.pop("model", "openai/gpt-4o-mini"))
    body = json.loads(OpenAICompletions().encode(kit.request_for(**fields)).body)
    problems = kit.shape_problems(body["messages"], list[ChatCompletionMessageParam], "$.messages")
    if "tools" in body:
        problems += kit.shape_problems(body["tools"], list[ChatCompletionToolUnionParam], "$.tools")
    if "tool_choice" in body:
        problems += kit.shape_problems(
            body["tool_choice"], ChatCompletionToolChoiceOptionParam, "$.tool_choice"
        )
    if "response_format" in body:
        problems += kit.shape_problems(body["response_format"], ResponseFormatJSONSchema, "$.response_format")
    assert problems == []


def test_the_shape_check_can_fail(kit: Any) -> None:
    """The strict checker rejects the mistakes it exists to catch."""
    bad = [
        {"role": "tool", "tool_use_id": "x", "content": "a"},
        {"role": "user", "content": [{"type": "image", "image_url": {"url": "x"}}]},
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "n", "arguments": {"a": 1}}}
            ],
        },
        {"role": "system", "content": "x", "bogus": 1},
    ]
    for message in bad:
        assert kit.shape_problems([message], list[ChatCompletionMessageParam]) != [], message


def test_three_parallel_results_are_three_tool_messages_in_call_order(kit: Any) -> None:
    body = json.loads(
        OpenAICompletions().encode(kit.request_for(messages=_three_parallel_results())).body
    )
    tool_messages = [message for message in body["messages"] if message["role"] == "tool"]
    assert [message["tool_call_id"] for message in tool_messages] == ["call_a", "call_b", "call_c"]
    assert tool_messages[1]["content"] == "Error: no such unit"
    assert tool_messages[0]["content"] == "18°C, cloudy"


# -- decoding: the SDK's accumulator as a second opinion ---------------------------


def _sdk_accumulates(raw: bytes, body: dict[str, Any]) -> Any:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=raw)

    state = ChatCompletionStreamState()
    for sdk_chunk in _client(handler).chat.completions.create(**body):
        state.handle_chunk(sdk_chunk)
    return state.get_final_completion()


def _sdk_parses(raw: bytes, body: dict[str, Any]) -> Any:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "application/json"}, content=raw)

    return _client(handler).chat.completions.create(**body)


def _agree(ours: AssistantMessage, sdk: Any) -> None:
    choice = sdk.choices[0]
    assert ours.text == (choice.message.content or "")
    theirs = choice.message.tool_calls or []
    assert [(call.id, call.name, call.arguments) for call in ours.tool_calls] == [
        (call.id, call.function.name, call.function.arguments) for call in theirs
    ]
    assert ours.raw_stop_reason == choice.finish_reason
    if sdk.usage is not None:
        cached = (
            (sdk.usage.prompt_tokens_details.cached_tokens or 0)
            if sdk.usage.prompt_tokens_details
            else 0
        )
        assert ours.usage.input + ours.usage.cache_read == sdk.usage.prompt_tokens
        assert ours.usage.cache_read == cached
        assert ours.usage.output == sdk.usage.completion_tokens
    assert ours.response_id == sdk.id


@functools.cache
def _recording(path: Path) -> dict[str, Any]:
    return yaml.load(path.read_bytes(), Loader=FAST_YAML)


def _recorded_chat_exchanges(streamed: bool) -> list[Any]:
    params = []
    for path in sorted(CASSETTES.glob("*.yaml")):
        for index, interaction in enumerate(_recording(path)["interactions"]):
            request, response = interaction["request"], interaction["response"]
            sent = request.get("parsed_body") or {}
            if (
                request["uri"].endswith("/chat/completions")
                and response["status"]["code"] == 200
                and bool(sent.get("stream")) == streamed
                and (streamed or "choices" in (response.get("parsed_body") or {}))
            ):
                params.append(pytest.param(path, index, id=f"{path.stem}#{index}"))
    assert params, f"no recorded Chat Completions exchanges in {CASSETTES}"
    return params


def _recorded(path: Path, index: int) -> tuple[dict[str, Any], bytes]:
    interaction = _recording(path)["interactions"][index]
    response = interaction["response"]
    if "body" in response:
        raw = response["body"]["string"]
        raw = raw if isinstance(raw, bytes) else raw.encode("utf-8")
    else:
        raw = json.dumps(response["parsed_body"]).encode("utf-8")
    return interaction["request"]["parsed_body"], raw


@pytest.mark.parametrize(("path", "index"), _recorded_chat_exchanges(streamed=True))
def test_a_recorded_stream_decodes_as_the_sdk_accumulates_it(
    path: Path, index: int, kit: Any
) -> None:
    sent, raw = _recorded(path, index)
    ours = kit.final_message(kit.decode(kit.frame_sse(raw), request=kit.request_for(stream=True)))
    _agree(ours, _sdk_accumulates(raw, sent))


@pytest.mark.parametrize(("path", "index"), _recorded_chat_exchanges(streamed=False))
def test_a_recorded_whole_response_decodes_as_the_sdk_parses_it(
    path: Path, index: int, kit: Any
) -> None:
    sent, raw = _recorded(path, index)
    model = kit.model_row(
        "local/default"
    )  # reads every reasoning field a compatible server may send
    ours = kit.final_message(
        kit.decode(kit.frame_json(raw), request=kit.request_for(model=model, stream=False))
    )
    sdk = _sdk_parses(raw, {**sent, "stream": False})
    if any(not call.id for call in sdk.choices[0].message.tool_calls or []):
        pytest.skip(f"{path.name}#{index}: the server sent empty tool-call ids, which we replace")
    _agree(ours, sdk)


def _sse(*chunks: dict[str, Any]) -> bytes:
    return codec.sse_body(chunks) + b"data: [DONE]\n\n"


def _delta(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-i",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _call(
    index: int, arguments: str, *, id: str | None = None, name: str | None = None
) -> dict[str, Any]:
    call: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if id:
        call.update(id=id, type="function")
        call["function"]["name"] = name
    return {"tool_calls": [call]}


INTERLEAVED = _sse(
    _delta({"role": "assistant", "content": "Let me look. "}),
    _delta(_call(0, "", id="call_0", name="get_weather")),
    _delta(_call(1, '{"pa', id="call_1", name="read_file")),
    _delta(_call(0, '{"city": ')),
    _delta(_call(2, "{}", id="call_2", name="get_weather")),
    _delta(_call(1, 'th": "a b.txt"}')),
    _delta(_call(0, '"Zürich"}')),
    _delta({}, "tool_calls"),
    {
        "id": "chatcmpl-i",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o-mini",
        "choices": [],
        "usage": {
            "prompt_tokens": 50,
            "completion_tokens": 20,
            "total_tokens": 70,
            "prompt_tokens_details": {"cached_tokens": 30},
        },
    },
)


def test_interleaved_parallel_calls_decode_as_the_sdk_accumulates_them(kit: Any) -> None:
    ours = kit.final_message(
        kit.decode(kit.frame_sse(INTERLEAVED), request=kit.request_for(stream=True))
    )
    sdk = _sdk_accumulates(INTERLEAVED, {"model": "gpt-4o-mini", "messages": [], "stream": True})
    _agree(ours, sdk)
    assert [call.arguments for call in ours.tool_calls] == [
        '{"city": "Zürich"}',
        '{"path": "a b.txt"}',
        "{}",
    ]
    assert ours.stop_reason is StopReason.TOOL_USE
    assert (ours.usage.input, ours.usage.cache_read) == (20, 30)
