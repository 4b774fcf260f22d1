"""Decode every recorded Anthropic Messages exchange and compare with the recording.

Source: pydantic/pydantic-ai (MIT), ``tests/models/cassettes/test_anthropic/*.yaml``,
kept in ``testdata/pydantic-ai/test_anthropic`` (see its ``PROVENANCE.md``). They
are VCR recordings of real HTTP traffic: streaming responses are kept as raw
SSE text (with ``event: ping``, padding after the JSON), whole responses as
parsed JSON.

The expectations are read from the recording by a deliberately naive reader
(every ``data:`` line is one JSON event), not from our decoder: the text is the
concatenated ``text_delta`` pieces, a tool call's argument text the
concatenated ``partial_json`` pieces, usage the last non-zero count of each
kind. Our decoder gets the bytes framed the way the host frames them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from agentkit.plugin_api import StopReason, TextBlock, ThinkingBlock, WireEvent

# libyaml's parser where PyYAML has it: the cassettes are megabytes of YAML read at collection.
FAST_YAML = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_CASSETTES = Path(__file__).resolve().parents[3] / "testdata" / "pydantic-ai" / "test_anthropic"

#: The mapping the issue pins, restated here so the decoder's table is checked.
_STOP = {
    "end_turn": StopReason.STOP,
    "max_tokens": StopReason.LENGTH,
    "tool_use": StopReason.TOOL_USE,
    "stop_sequence": StopReason.STOP_SEQUENCE,
    "refusal": StopReason.REFUSAL,
    "pause_turn": StopReason.STOP,
    None: StopReason.STOP,
}


def _messages_exchanges() -> list[Any]:
    """Every interaction that is a call of POST /v1/messages, as a pytest param."""
    params = []
    for path in sorted(_CASSETTES.glob("*.yaml")):
        recording = yaml.load(path.read_bytes(), Loader=FAST_YAML)
        for number, interaction in enumerate(recording["interactions"]):
            if urlsplit(interaction["request"]["uri"]).path.endswith("/v1/messages"):
                params.append(pytest.param(interaction["response"], id=f"{path.stem}#{number}"))
    assert params, f"no recorded /v1/messages exchanges in {_CASSETTES}"
    return params


_EXCHANGES = _messages_exchanges()


def _is_stream(response: dict[str, Any]) -> bool:
    return "string" in (response.get("body") or {})


def _naive_events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]


class _Expected:
    """What the recording says the message is, read without our code."""

    def __init__(self) -> None:
        self.blocks: dict[int, dict[str, Any]] = {}
        self.order: list[int] = []
        self.usage: dict[str, int] = {}
        self.stop: str | None = None
        self.id: str | None = None
        self.model: str | None = None

    def take_usage(self, usage: dict[str, Any] | None) -> None:
        for key, value in (usage or {}).items():
            if isinstance(value, int) and value > 0:
                self.usage[key] = value

    def start(self, index: int, block: dict[str, Any]) -> None:
        entry = dict(block)
        entry["pieces"] = []
        self.blocks[index] = entry
        self.order.append(index)

    @classmethod
    def from_stream(cls, text: str) -> _Expected:
        expected = cls()
        for event in _naive_events(text):
            kind = event.get("type")
            if kind == "message_start":
                expected.id = event["message"]["id"]
                expected.model = event["message"]["model"]
                expected.take_usage(event["message"].get("usage"))
            elif kind == "content_block_start":
                expected.start(event["index"], event["content_block"])
            elif kind == "content_block_delta":
                delta, block = event["delta"], expected.blocks[event["index"]]
                for field in ("text", "thinking", "partial_json"):
                    if field in delta:
                        block["pieces"].append(delta[field])
                if "signature" in delta:
                    block["signature"] = delta["signature"]
            elif kind == "message_delta":
                expected.stop = event["delta"].get("stop_reason")
                expected.take_usage(event.get("usage"))
        return expected

    @classmethod
    def from_body(cls, body: dict[str, Any]) -> _Expected:
        expected = cls()
        expected.id, expected.model, expected.stop = body["id"], body["model"], body["stop_reason"]
        expected.take_usage(body.get("usage"))
        for index, block in enumerate(body["content"]):
            expected.start(index, block)
            if block["type"] == "tool_use":
                expected.blocks[index]["pieces"].append(
                    json.dumps(block["input"], ensure_ascii=False)
                )
        return expected

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [self.blocks[i] for i in self.order if self.blocks[i]["type"] == kind]

    def text(self) -> str:
        return "".join(b.get("text", "") + "".join(b["pieces"]) for b in self.of_type("text"))

    def tool_calls(self) -> list[tuple[str, str, str]]:
        calls = []
        for block in self.of_type("tool_use"):
            arguments = "".join(block["pieces"]) or json.dumps(block["input"], ensure_ascii=False)
            calls.append((block["id"], block["name"], arguments))
        return calls

    def thinking(self) -> list[tuple[str, str | None, bool]]:
        out = []
        for index in self.order:
            block = self.blocks[index]
            if block["type"] == "thinking":
                text = block.get("thinking", "") + "".join(block["pieces"])
                out.append((text, block.get("signature") or None, False))
            elif block["type"] == "redacted_thinking":
                out.append(("", block["data"], True))
        return out


@pytest.mark.parametrize("response", _EXCHANGES)
def test_recorded_response_decodes_to_what_the_recording_says(kit, response) -> None:
    status = response["status"]["code"]
    if status >= 400:
        # The host hands an error body to the decoder like any other body.
        body = response["parsed_body"]
        message = kit.final_message(kit.decode([WireEvent(data=body)]))
        assert message.stop_reason is StopReason.ERROR
        assert body["error"]["message"] in message.error_message
        assert body["error"]["type"] in message.error_message
        return
    if _is_stream(response):
        raw = response["body"]["string"]
        expected = _Expected.from_stream(raw)
        events = kit.frame_sse(raw.encode("utf-8"))
    else:
        expected = _Expected.from_body(response["parsed_body"])
        events = [WireEvent(data=response["parsed_body"])]

    message = kit.final_message(kit.decode(events))

    assert message.text == expected.text()
    assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == expected.tool_calls()
    for call in message.tool_calls:
        assert isinstance(json.loads(call.arguments), dict)
    thinking = [
        (b.thinking, b.signature, b.redacted)
        for b in message.content
        if isinstance(b, ThinkingBlock)
    ]
    assert thinking == expected.thinking()
    assert message.raw_stop_reason == expected.stop
    assert message.stop_reason is _STOP.get(expected.stop, StopReason.STOP)
    assert message.response_id == expected.id
    assert message.response_model == expected.model
    usage = expected.usage
    assert message.usage.input == usage.get("input_tokens", 0)
    assert message.usage.output == usage.get("output_tokens", 0)
    assert message.usage.cache_read == usage.get("cache_read_input_tokens", 0)
    assert message.usage.cache_write == usage.get("cache_creation_input_tokens", 0)
    # Only the content kinds the canonical vocabulary has come through.
    assert all(
        isinstance(b, TextBlock | ThinkingBlock) or b in message.tool_calls for b in message.content
    )


def test_the_recordings_cover_streams_whole_bodies_tools_thinking_and_errors() -> None:
    """Guards the test above against a filter that silently drops the interesting cases."""
    kinds = {"stream": 0, "whole": 0, "error": 0, "tool_use": 0, "thinking": 0, "redacted": 0}
    for param in _EXCHANGES:
        response = param.values[0]
        if response["status"]["code"] >= 400:
            kinds["error"] += 1
            continue
        if _is_stream(response):
            kinds["stream"] += 1
            expected = _Expected.from_stream(response["body"]["string"])
        else:
            kinds["whole"] += 1
            expected = _Expected.from_body(response["parsed_body"])
        kinds["tool_use"] += bool(expected.tool_calls())
        kinds["thinking"] += any(not r for _, _, r in expected.thinking())
        kinds["redacted"] += any(r for _, _, r in expected.thinking())
    assert all(count > 0 for count in kinds.values()), kinds
