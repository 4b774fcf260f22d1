"""Request bodies against the ``google-genai`` SDK, the vendor's own encoder.

For each canonical transcript, the body we build is handed to
``client.models.generate_content(model=..., contents=..., config=...)`` (or
``generate_content_stream``) as the same wire-shaped request, over
``httpx2.MockTransport``. The SDK validates every part and config field
against its pydantic types (an unknown field is an error) and serializes the
request itself; the body it sends must equal ours as parsed JSON, and it must
go to the same URL with the key in ``x-goog-api-key``.

The SDK takes bytes where the wire has base64 (``inlineData.data``,
``thoughtSignature``) and writes some nested names in their proto spelling
(``mime_type``); ``conftest.proto_json`` brings those to lowerCamelCase, the
other spelling the API accepts for the same field.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

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

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
SIG_A = "CikBypeBEsobvcr6wjGzmiPcTaeG7/gUfE5yuYB3ha/uSLvR7Q=="
SIG_B = "Ci0BPiPoFgA5WUoziU9lZOGxNIu9egCI1CxKy3PurtWcAJ2S61/+5q4v"
READ = ToolSpec(
    "read_file",
    "Read a text file.",
    {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Relative path."},
            "offset": {"type": "integer", "minimum": 0, "default": 0},
        },
        "required": ["path"],
        "additionalProperties": False,
    },
)
GREP = ToolSpec(
    "grep",
    "Search file contents.",
    {
        "type": "object",
        "properties": {
            "pattern": {"type": "string"},
            "mode": {"anyOf": [{"enum": ["fast", "thorough"]}, {"type": "null"}]},
        },
        "required": ["pattern"],
    },
)


def _assistant(*blocks: Any, stop: StopReason = StopReason.STOP) -> AssistantMessage:
    return AssistantMessage(
        list(blocks), stop, provider="google", api="google-generative-ai", model="gemini-2.5-flash"
    )


def _three_parallel() -> list[Any]:
    calls = [
        ToolUseBlock("gemini_aaaaaaaaaaaaaaaaaaaaaaaa", "read_file", '{"path":"a.py"}'),
        ToolUseBlock("gemini_bbbbbbbbbbbbbbbbbbbbbbbb", "read_file", '{"path":"b.py","offset":2}'),
        ToolUseBlock("gemini_cccccccccccccccccccccccc", "grep", '{"pattern":"TODO","mode":null}'),
    ]
    return [
        UserMessage.text("Read a.py and b.py, and grep TODO"),
        _assistant(TextBlock("Reading both."), *calls),
        ToolResultMessage(calls[0].id, "read_file", [TextBlock("print('a')\n")]),
        ToolResultMessage(calls[1].id, "read_file", [TextBlock("no such file")], is_error=True),
        ToolResultMessage(calls[2].id, "grep", [TextBlock("a.py:3: # TODO")]),
    ]


def _signatures() -> list[Any]:
    call = ToolUseBlock("gemini_dddddddddddddddddddddddd", "read_file", '{"path":"setup.cfg"}')
    return [
        UserMessage.text("What does setup.cfg say?"),
        _assistant(
            ThinkingBlock("**Reading the config**", SIG_A),
            call,
            ThinkingBlock("", SIG_B, redacted=True),
        ),
        ToolResultMessage(call.id, call.name, [TextBlock("[metadata]\nname = x\n")]),
        _assistant(
            ThinkingBlock("**Answering**"),
            TextBlock("It names the package x."),
            ThinkingBlock("", SIG_A, redacted=True),
        ),
        UserMessage.text("Thanks"),
    ]


def _wire_ids() -> list[Any]:
    call = ToolUseBlock("fc-7d2a91", "grep", '{"pattern":"x"}')
    return [
        UserMessage.text("grep x"),
        _assistant(call),
        ToolResultMessage(call.id, call.name, [TextBlock("none")]),
    ]


def _images() -> list[Any]:
    call = ToolUseBlock("gemini_eeeeeeeeeeeeeeeeeeeeeeee", "read_file", '{"path":"logo.png"}')
    return [
        UserMessage([TextBlock("What is in this picture?"), ImageBlock(PNG, "image/png")]),
        _assistant(call),
        ToolResultMessage(
            call.id, call.name, [TextBlock("the logo:"), ImageBlock(PNG, "image/png")]
        ),
    ]


def _documents_and_audio() -> list[Any]:
    """A PDF, a text file and a recording inline, and a PDF by URL (fileData, which the API fetches)."""
    return [UserMessage([
        TextBlock("Read and listen."), DocumentBlock.from_bytes(b"%PDF-1.4\n", "application/pdf"),
        DocumentBlock.from_bytes(b"notes\n", "text/plain"), AudioBlock.from_bytes(b"RIFF\0\0\0\0WAVE", "audio/wav"),
        DocumentBlock.from_url("https://example.com/report.pdf", "application/pdf"),
    ])]


def _unicode() -> list[Any]:
    call = ToolUseBlock(
        "gemini_ffffffffffffffffffffffff", "grep", '{"pattern":"naïve \\"quoted\\" 🚀 日本"}'
    )
    return [
        UserMessage.text("Find «naïve» 🚀 — 日本語\u2028 too"),
        _assistant(TextBlock("Searching… ✓"), call),
        ToolResultMessage(call.id, call.name, [TextBlock("ü.py:1: naïve 🚀\n\ttab")]),
    ]


TRANSCRIPTS = {
    "three_parallel": _three_parallel,
    "signatures": _signatures,
    "wire_ids": _wire_ids,
    "images": _images,
    "documents_and_audio": _documents_and_audio,
    "unicode": _unicode,
}


def _sdk_request(kit, body: dict[str, Any], model: str, *, stream: bool) -> Any:
    """The request the SDK sends for the wire-shaped ``body``."""
    httpx2 = pytest.importorskip("httpx2")
    sent: list[Any] = []
    reply = kit.response([{"text": "ok"}])

    def handler(request: Any) -> Any:
        sent.append(request)
        if stream:
            return httpx2.Response(
                200,
                headers={"content-type": "text/event-stream"},
                content=kit.sse_bytes(kit.stream_chunks(reply)),
            )
        return httpx2.Response(200, json=reply)

    client = kit.sdk_client(handler)
    arguments = kit.sdk_arguments(body)
    if stream:
        list(client.models.generate_content_stream(model=model, **arguments))
    else:
        client.models.generate_content(model=model, **arguments)
    assert len(sent) == 1
    return sent[0]


def _compare(kit, request, *, stream: bool) -> dict[str, Any]:
    from agentkit_provider_gemini import GeminiGenerateContent

    wire = GeminiGenerateContent().encode(request)
    ours = json.loads(wire.body)
    sent = _sdk_request(kit, ours, request.model.id, stream=stream)
    assert kit.proto_json(json.loads(sent.content)) == kit.proto_json(ours)
    assert str(sent.url) == request.model.base_url + wire.path
    assert sent.headers["x-goog-api-key"] == "test-key"
    return ours


@pytest.mark.parametrize("name", sorted(TRANSCRIPTS))
def test_transcripts_match_the_sdk(kit, name) -> None:
    request = kit.request_for(
        messages=TRANSCRIPTS[name](),
        system="Be brief. Ünïcödé ok.",
        tools=[READ, GREP],
        max_tokens=2048,
        temperature=0.2,
        reasoning="medium",
        stream=False,
    )
    _compare(kit, request, stream=False)


@pytest.mark.parametrize("choice", ["auto", "none", "required", "grep"])
def test_tool_choice_variants_match_the_sdk(kit, choice) -> None:
    request = kit.request_for(
        messages=_three_parallel(), tools=[READ, GREP], tool_choice=choice, stream=False
    )
    body = _compare(kit, request, stream=False)
    assert "functionCallingConfig" in body["toolConfig"]


def test_every_sampling_setting_matches_the_sdk(kit) -> None:
    request = kit.request_for(messages=_three_parallel(), tools=[READ, GREP], max_tokens=512, temperature=1.3,
                              top_p=0.95, top_k=40, stop_sequences=["END", "STOP"], seed=1234, stream=False)
    body = _compare(kit, request, stream=False)
    assert set(body["generationConfig"]) == {"maxOutputTokens", "temperature", "topP", "topK", "stopSequences",
                                             "seed"}


@pytest.mark.parametrize(
    ("key", "level"),
    [("google/gemini-3-pro-preview", "high"), ("google/gemini-3-flash-preview", "minimal")],
)
def test_thinking_levels_match_the_sdk(kit, key, level) -> None:
    request = kit.request_for(
        model=kit.model_row(key), messages=_signatures(), reasoning=level, stream=False
    )
    body = _compare(kit, request, stream=False)
    assert body["generationConfig"]["thinkingConfig"] == {
        "thinkingLevel": level.upper(),
        "includeThoughts": True,
    }


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"city": {"type": "string"}, "wind": {"type": ["number", "null"]}},
     "required": ["city", "wind"], "additionalProperties": False, "$schema": "x"},
    {"type": "array", "items": {"enum": ["a", "b"]}},
], ids=["object", "array"])
def test_an_output_schema_matches_the_sdk(kit, schema) -> None:
    request = kit.request_for(messages=_three_parallel(), tools=[READ], output_schema=schema, stream=False)
    body = _compare(kit, request, stream=False)
    generation = body["generationConfig"]
    assert generation["responseMimeType"] == "application/json"
    assert generation["responseJsonSchema"] == {key: value for key, value in schema.items() if key != "$schema"}


def test_the_streaming_request_matches_the_sdk_url_and_body(kit) -> None:
    request = kit.request_for(messages=_three_parallel(), tools=[READ], stream=True)
    _compare(kit, request, stream=True)


def test_a_bare_request_matches_the_sdk(kit) -> None:
    _compare(kit, kit.request_for(stream=False), stream=False)


@pytest.mark.parametrize(
    "messages",
    [
        [UserMessage.text("")],
        [UserMessage.text("a"), _assistant(TextBlock("")), UserMessage.text("b")],
    ],
    ids=["empty_prompt", "empty_model_turn"],
)
def test_transcripts_with_empty_turns_are_sent_as_the_sdk_sends_them(kit, messages) -> None:
    """The SDK refuses ``contents: []`` ("contents are required") and keeps turns alternating."""
    body = _compare(kit, kit.request_for(messages=messages, stream=False), stream=False)
    roles = [content["role"] for content in body["contents"]]
    assert roles and roles[0] == "user"
    assert all(a != b for a, b in itertools.pairwise(roles))
