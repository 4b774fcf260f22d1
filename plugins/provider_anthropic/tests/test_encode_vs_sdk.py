"""Our request bodies against the official ``anthropic`` SDK as a reference encoder.

For each canonical transcript we build the wire body with ``encode``, hand the
same wire-shaped request to ``anthropic.Anthropic().messages.create(**body)``
over a mock transport, and compare the body the SDK would send with ours as
parsed JSON. A key the SDK does not know fails the call (``create`` takes
keyword arguments only), and the SDK's serializer shows what reaches the wire,
including the key order of replayed tool inputs.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

import anthropic
import httpx2
import pytest
from agentkit_provider_anthropic import AnthropicMessages

from agentkit.conformance import codec
from agentkit.plugin_api import (
    AssistantMessage,
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

# A 1x1 transparent PNG.
_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

_WEATHER = ToolSpec(
    "get_weather",
    "Current weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
_SEARCH = ToolSpec(
    "search",
    "Search the web.",
    {"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}},
)


def _body(wire) -> dict:
    """The request body as parsed JSON (the codec sends it pre-serialized)."""
    assert isinstance(wire.body, bytes)
    return json.loads(wire.body)


def _assistant(*blocks, stop=StopReason.TOOL_USE) -> AssistantMessage:
    return AssistantMessage(list(blocks), stop)


def _result(call_id: str, name: str, text: str, *, error: bool = False, image: bool = False):
    content: list[Any] = [TextBlock(text)]
    if image:
        content.append(ImageBlock(_PNG, "image/png"))
    return ToolResultMessage(call_id, name, content, is_error=error)


#: A structured-output schema with nesting, an enum and a nullable field.
_REPORT = {"type": "object", "properties": {"city": {"type": "string"},
                                            "sky": {"enum": ["clear", "cloudy"]},
                                            "wind": {"anyOf": [{"type": "number"}, {"type": "null"}]}},
           "required": ["city", "sky", "wind"], "additionalProperties": False}


_TRANSCRIPTS: dict[str, dict[str, Any]] = {
    "parallel_tool_results": dict(
        messages=[
            UserMessage.text("Weather in Paris and Oslo?"),
            _assistant(
                TextBlock("Checking both."),
                ToolUseBlock("toolu_1", "get_weather", '{"city": "Paris"}'),
                ToolUseBlock("toolu_2", "get_weather", '{"city":"Oslo"}'),
                ToolUseBlock("toolu_3", "search", ""),
            ),
            _result("toolu_1", "get_weather", "18C, sunny"),
            _result("toolu_2", "get_weather", "timeout", error=True),
            _result("toolu_3", "search", ""),
            UserMessage.text("Also, be brief."),
        ],
        tools=[_WEATHER, _SEARCH],
        system="You are terse.",
        tool_choice="auto",
    ),
    "images": dict(
        messages=[
            UserMessage([TextBlock("What is in this picture?"), ImageBlock(_PNG, "image/png")]),
            _assistant(ToolUseBlock("toolu_9", "search", '{"q": "pixel"}')),
            _result("toolu_9", "search", "a screenshot", image=True),
        ],
        tools=[_SEARCH],
    ),
    # A URL image goes as a url source, which the Messages API downloads itself.
    "image_urls": dict(
        messages=[
            UserMessage([TextBlock("What is this vegetable?"), ImageBlock.from_url("https://images.example/vegetable.jpg")]),
            _assistant(ToolUseBlock("toolu_8", "search", '{"q": "potato"}')),
            ToolResultMessage("toolu_8", "search", [TextBlock("found:"), ImageBlock.from_url("https://images.example/vegetable.jpg")]),
        ],
        tools=[_SEARCH],
    ),
    # A PDF as a base64 source, a text file as a text source, a PDF by URL as a url source.
    "documents": dict(
        messages=[UserMessage([
            TextBlock("Summarize these."), DocumentBlock.from_bytes(b"%PDF-1.4\n", "application/pdf"),
            DocumentBlock.from_bytes(b"notes\n", "text/plain"), DocumentBlock.from_url("https://example.com/a.pdf"),
        ])],
    ),
    "thinking_signed_and_redacted": dict(
        messages=[
            UserMessage.text("Plan the trip."),
            _assistant(
                ThinkingBlock("Let me think about the route.", signature="EqQBCkYIARgCIkD"),
                ThinkingBlock("", signature="EmwKAhgBEgy3va3pzix", redacted=True),
                ToolUseBlock("toolu_5", "get_weather", '{"city": "Rome"}'),
            ),
            _result("toolu_5", "get_weather", "22C"),
        ],
        tools=[_WEATHER],
        reasoning="high",
    ),
    "unicode_and_key_order": dict(
        messages=[
            UserMessage.text('Été à Zürich? 天气 🌦️ \u2028 "quoted"'),
            _assistant(
                ToolUseBlock(
                    "toolu_7", "search", '{"q": "\\u00e9t\\u00e9 Z\u00fcrich", "limit": 3}'
                ),
                ToolUseBlock("toolu_8", "search", '{"limit":1,"q":"🌦️"}'),
            ),
            _result("toolu_7", "search", "résultats: 3 — ok"),
            _result("toolu_8", "search", "☔"),
        ],
        tools=[_SEARCH],
        model="claude-haiku-4-5",
        temperature=0.0,
    ),
    "tool_choice_none": dict(tools=[_WEATHER], tool_choice="none"),
    "tool_choice_specific": dict(tools=[_WEATHER, _SEARCH], tool_choice="search"),
    "tool_choice_absent": dict(tools=[_WEATHER], tool_choice=None),
    "tool_choice_required": dict(tools=[_WEATHER, _SEARCH], tool_choice="required"),
    "stop_sequences": dict(stop_sequences=["END", "\n\nHuman:"]),
    "sampling_on_a_claude_4_model": dict(
        model="claude-sonnet-4-6", temperature=0.7, top_p=0.9, top_k=40, stop_sequences=["END"]
    ),
    "tool_choice_without_tools": dict(tool_choice="none"),
    "structured_output": dict(output_schema=_REPORT),
    "structured_output_beside_an_effort": dict(output_schema=_REPORT, reasoning="high", tools=[_WEATHER]),
    "budget_thinking_and_options": dict(
        model="claude-haiku-4-5",
        reasoning="low",
        options={"stop_sequences": ["END"], "cache_retention": "long"},
        system="Be careful.",
    ),
    "no_cache": dict(tools=[_WEATHER], system="s", options={"cache_retention": "none"}),
}


def _sdk_body(body: dict[str, Any]) -> dict[str, Any]:
    """What the SDK sends when asked for exactly our request."""
    captured: list[bytes] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        captured.append(request.read())
        if body.get("stream"):
            return httpx2.Response(
                200,
                headers={"content-type": "text/event-stream"},
                content=b'event: message_stop\ndata: {"type":"message_stop"}\n\n',
            )
        return httpx2.Response(
            200,
            json={
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        )

    client = anthropic.Anthropic(
        api_key="test",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    # temperature, top_p and top_k left the SDK's request type with API version
    # 2026-10-21; the Claude 4 models still take them (the recorded exchange
    # test_anthropic_sampling_settings_reach_the_wire shows it), so for those
    # rows they travel as extra body fields, and only for those.
    known = set(inspect.signature(client.messages.create).parameters)
    extra = {key: value for key, value in body.items() if key not in known}
    assert set(extra) <= {"temperature", "top_p", "top_k"}, f"fields the SDK does not know: {sorted(extra)}"
    assert not extra or "-4-" in body["model"], f"{body['model']} is a model that refuses {sorted(extra)}"
    params = {key: value for key, value in body.items() if key in known}
    response = client.messages.create(**params, extra_body=extra or None)
    if body.get("stream"):
        response.close()
    (sent,) = captured
    return json.loads(sent)


def test_the_api_version_is_the_one_the_sdk_sends(kit) -> None:
    seen: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.headers["anthropic-version"])
        return httpx2.Response(400, json={"type": "error", "error": {"type": "x", "message": "x"}})

    client = anthropic.Anthropic(api_key="test", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    with pytest.raises(anthropic.BadRequestError):
        client.messages.create(model="claude-opus-5-5", max_tokens=1, messages=[])
    wire = AnthropicMessages().encode(kit.request_for(model=kit.model_row("claude-opus-5-5")))
    assert seen == [wire.headers["anthropic-version"]]


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("name", sorted(_TRANSCRIPTS))
def test_body_is_what_the_sdk_sends_for_the_same_request(kit, name: str, stream: bool) -> None:
    fields = dict(_TRANSCRIPTS[name])
    fields["model"] = kit.model_row(fields.get("model", "claude-sonnet-5-5"))
    fields.setdefault("max_tokens", 1024)
    request = kit.request_for(stream=stream, **fields)
    wire = AnthropicMessages().encode(request)
    ours = _body(wire)
    assert _sdk_body(ours) == ours
    assert wire.framing == ("sse" if stream else "json")


def test_replayed_tool_input_keeps_the_key_order_of_the_argument_text(kit) -> None:
    """Anthropic carries input as an object: the bytes are re-serialized, the order is kept."""
    fields = dict(_TRANSCRIPTS["unicode_and_key_order"])
    fields["model"] = kit.model_row(fields["model"])
    request = kit.request_for(max_tokens=1024, **fields)
    sent = _sdk_body(_body(AnthropicMessages().encode(request)))
    calls = [b for m in sent["messages"] for b in m["content"] if b["type"] == "tool_use"]
    assert [list(call["input"]) for call in calls] == [["q", "limit"], ["limit", "q"]]
    assert calls[0]["input"] == {"q": "été Zürich", "limit": 3}


def test_url_images_fit_the_sdk_message_param_type(kit) -> None:
    """URL images, in a user message and a tool result, as ``anthropic.types.MessageParam`` declares them.

    (The SDK types a base64 source's ``data`` as a file or a string, which the strict shape
    check cannot take; inline images are pinned by the SDK sending our body unchanged.)
    """
    fields = dict(_TRANSCRIPTS["image_urls"])
    fields["model"] = kit.model_row("claude-sonnet-5-5")
    body = _body(AnthropicMessages().encode(kit.request_for(max_tokens=1024, **fields)))
    sources = [part["source"] for message in body["messages"] if isinstance(message["content"], list)
               for part in _parts(message["content"]) if part["type"] == "image"]
    assert sources == [{"type": "url", "url": "https://images.example/vegetable.jpg"}] * 2
    assert codec.shape_problems(body["messages"], list[anthropic.types.MessageParam], "$.messages") == []


def _parts(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The content parts, a tool result's own parts included."""
    found = []
    for part in content:
        found.append(part)
        if part["type"] == "tool_result" and isinstance(part.get("content"), list):
            found.extend(part["content"])
    return found


def test_text_and_url_documents_fit_the_sdk_message_param_type(kit) -> None:
    """A plain-text document (a ``text`` source) and a PDF by URL (a ``url`` source), as the SDK's
    ``PlainTextSourceParam`` and ``URLPDFSourceParam`` declare them (the message type's source union
    holds a file type the strict shape check cannot take; a base64 PDF is pinned by the SDK sending
    our body unchanged)."""
    messages = [UserMessage([TextBlock("Summarize."), DocumentBlock.from_bytes(b"notes\n", "text/plain"),
                             DocumentBlock.from_url("https://example.com/a.pdf")])]
    body = _body(AnthropicMessages().encode(kit.request_for(max_tokens=1024, messages=messages,
                                                            model=kit.model_row("claude-sonnet-5-5"))))
    sources = [part["source"] for part in body["messages"][0]["content"] if part["type"] == "document"]
    assert sources == [{"type": "text", "media_type": "text/plain", "data": "notes\n"},
                       {"type": "url", "url": "https://example.com/a.pdf"}]
    text, url = sources
    assert codec.shape_problems(text, anthropic.types.PlainTextSourceParam, "$.source") == []
    assert codec.shape_problems(url, anthropic.types.URLPDFSourceParam, "$.source") == []
