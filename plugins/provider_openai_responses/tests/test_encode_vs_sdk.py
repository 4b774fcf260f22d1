"""Request bodies against the ``openai`` SDK, the vendor's own encoder.

For each canonical transcript the body we build is handed to
``client.responses.create(**body)`` over ``httpx2.MockTransport``; the body
the SDK sends must equal ours as parsed JSON, and every field must be a
parameter the SDK knows (an unknown keyword is a ``TypeError``). Each item is
also checked against the request types the SDK declares
(``ResponseInputItemParam``, ``FunctionToolParam``, ``ToolChoice``...), more
strictly than the SDK itself: every key declared, every required key present.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentkit.conformance import codec
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

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
READ = ToolSpec(
    "read_file",
    "Read a text file.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
GREP = ToolSpec(
    "grep",
    "Search file contents.",
    {
        "type": "object",
        "properties": {"pattern": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["pattern"],
    },
)
SIGNED = json.dumps({"id": "rs_01", "encrypted_content": "gAAAAB-opaque=="}, separators=(",", ":"))


def _assistant(*blocks: Any, stop: StopReason = StopReason.TOOL_USE) -> AssistantMessage:
    return AssistantMessage(list(blocks), stop, api="openai-responses", model="gpt-5")


def _three_parallel() -> list[Any]:
    calls = [
        ToolUseBlock("call_a|fc_a", "read_file", '{"path": "a.py"}'),
        ToolUseBlock("call_b|fc_b", "read_file", '{"path":"b.py"}'),
        ToolUseBlock("call_c|fc_c", "grep", '{"pattern": "TODO", "limit": 3}'),
    ]
    return [
        UserMessage.text("Read a.py and b.py, and grep TODO"),
        _assistant(TextBlock("Reading both."), *calls),
        ToolResultMessage("call_a|fc_a", "read_file", [TextBlock("print('a')\n")]),
        ToolResultMessage("call_b|fc_b", "read_file", [TextBlock("no such file")], is_error=True),
        ToolResultMessage("call_c|fc_c", "grep", [TextBlock("a.py:3: # TODO")]),
    ]


def _reasoning_replay() -> list[Any]:
    call = ToolUseBlock("call_r|fc_r", "read_file", '{"path": "setup.cfg"}')
    return [
        UserMessage.text("What does setup.cfg say?"),
        _assistant(ThinkingBlock("**Reading the config**", SIGNED), call),
        ToolResultMessage(call.id, call.name, [TextBlock("[metadata]\nname = x\n")]),
        _assistant(
            ThinkingBlock("", json.dumps({"id": "rs_02", "encrypted_content": "gAAAAB-two"}), True),
            TextBlock("It names the package x."),
            stop=StopReason.STOP,
        ),
        UserMessage.text("Thanks"),
    ]


def _images() -> list[Any]:
    call = ToolUseBlock("call_i|fc_i", "read_file", '{"path": "logo.png"}')
    return [
        UserMessage([TextBlock("What is in this picture?"), ImageBlock(PNG, "image/png")]),
        _assistant(call),
        ToolResultMessage(
            call.id, call.name, [TextBlock("logo.png:"), ImageBlock(PNG, "image/png")]
        ),
    ]


def _unicode() -> list[Any]:
    call = ToolUseBlock("call_u|fc_u", "grep", '{"pattern":"naïve \\"straße\\" 日本語 🚀"}')
    return [
        UserMessage.text("Find «naïve» and 日本語 — and 🚀\u2028 too"),
        _assistant(TextBlock("Suchen… 🔎"), call),
        ToolResultMessage(call.id, call.name, [TextBlock("ü.txt: 🚀\n")]),
    ]


def _foreign() -> list[Any]:
    # A transcript from another wire: bare call ids, unsigned thinking.
    call = ToolUseBlock("toolu_01ABC", "read_file", '{"path": "x"}')
    return [
        UserMessage.text("go"),
        AssistantMessage(
            [ThinkingBlock("let me think", "EqQBCkYIBxgCKkD-anthropic-signature"), call],
            StopReason.TOOL_USE,
            api="anthropic-messages",
        ),
        ToolResultMessage(call.id, call.name, [TextBlock("x")]),
    ]


CASES: dict[str, dict[str, Any]] = {
    "plain": {"messages": [UserMessage.text("hi")], "system": "Be brief.", "stream": False},
    "tools-auto": {
        "messages": [UserMessage.text("hi")],
        "tools": [READ, GREP],
        "tool_choice": "auto",
        "max_tokens": 2048,
        "session_id": "s" * 80,
    },
    "tool-choice-none": {
        "messages": [UserMessage.text("hi")],
        "tools": [READ],
        "tool_choice": "none",
    },
    "tool-choice-named": {
        "messages": [UserMessage.text("hi")],
        "tools": [READ, GREP],
        "tool_choice": "grep",
        "reasoning": "high",
        "options": {"strict_tools": True, "reasoning_summary": "auto"},
    },
    "tool-choice-required": {
        "messages": [UserMessage.text("hi")],
        "tools": [READ, GREP],
        "tool_choice": "required",
    },
    "sampling": {
        "messages": [UserMessage.text("hi")],
        "model": "openai-responses/gpt-4.1-mini",
        "temperature": 1.1,
        "top_p": 0.9,
    },
    "three-parallel": {"messages": _three_parallel(), "tools": [READ, GREP], "system": "Be brief."},
    "reasoning-replay": {"messages": _reasoning_replay(), "tools": [READ], "reasoning": "low"},
    "images": {"messages": _images(), "tools": [READ]},
    # A URL image goes as the input_image's image_url, which the API downloads itself.
    "image-urls": {"messages": [UserMessage([TextBlock("What is this?"), ImageBlock.from_url("https://images.example/vegetable.jpg")])]},
    "unicode": {"messages": _unicode(), "tools": [GREP], "system": "Répondez en français ✓"},
    "foreign-transcript": {"messages": _foreign(), "tools": [READ], "stream": False},
    "structured-output": {
        "messages": [UserMessage.text("hi")],
        "output_schema": {"type": "object", "title": "Report", "properties": {"city": {"type": "string"}},
                          "required": ["city"], "additionalProperties": False},
    },
    "structured-output-loose": {
        "messages": [UserMessage.text("hi")],
        "tools": [READ],
        "output_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
    "no-reasoning-row": {
        "messages": _three_parallel(),
        "tools": [READ, GREP],
        "model": "openai-responses/gpt-4.1",
        "temperature": 0.2,
    },
}


def _request(kit, case: dict[str, Any]):
    fields = dict(case)
    if "model" in fields:
        fields["model"] = kit.model_row(fields["model"])
    return kit.request_for(**fields)


def _sent_by_sdk(kit, body: dict[str, Any]) -> dict[str, Any]:
    captured: list[bytes] = []

    def handler(request):
        captured.append(request.read())
        assert request.url.path == "/v1/responses"
        if body.get("stream"):
            return _httpx2().Response(
                200, headers={"content-type": "text/event-stream"}, content=b""
            )
        return _httpx2().Response(200, json=kit.response_object([]))

    client = kit.sdk_client(handler)
    result = client.responses.create(**body)
    if body.get("stream"):
        result.close()
    assert len(captured) == 1
    return json.loads(captured[0])


def _httpx2():
    return pytest.importorskip("httpx2")


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_sdk_sends_the_body_we_build(kit, name: str) -> None:
    ours = kit.body_of(_request(kit, CASES[name]))
    assert _sent_by_sdk(kit, ours) == ours


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_field_has_the_shape_the_sdk_declares(kit, name: str) -> None:
    params = pytest.importorskip("openai.types.responses.response_create_params")
    from openai.types.responses import (
        FunctionToolParam,
        ResponseInputItemParam,
        ResponseTextConfigParam,
    )
    from openai.types.shared_params import Reasoning

    body = kit.body_of(_request(kit, CASES[name]))
    problems = []
    for index, item in enumerate(body["input"]):
        problems += codec.shape_problems(item, ResponseInputItemParam, f"input[{index}]")
    for index, tool in enumerate(body.get("tools", [])):
        problems += codec.shape_problems(tool, FunctionToolParam, f"tools[{index}]")
    if "tool_choice" in body:
        problems += codec.shape_problems(body["tool_choice"], params.ToolChoice, "tool_choice")
    if "reasoning" in body:
        problems += codec.shape_problems(body["reasoning"], Reasoning, "reasoning")
    if "text" in body:
        problems += codec.shape_problems(body["text"], ResponseTextConfigParam, "text")
    if "include" in body:
        problems += codec.shape_problems(
            body["include"], list[params.ResponseIncludable], "include"
        )
    assert problems == []
