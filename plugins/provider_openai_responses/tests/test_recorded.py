"""Recorded Responses traffic: the pydantic-ai cassettes that hit ``/v1/responses``.

Source: pydantic/pydantic-ai (MIT), ``tests/models/cassettes/test_openai/``,
kept in ``testdata/pydantic-ai/test_openai/`` (see its ``PROVENANCE.md``).
Whole bodies are decoded as one wire event; the recorded stream goes through
the host's SSE framing, and through the ``openai`` SDK's accumulator as a
second opinion. Expectations are read from the recording itself.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentkit.plugin_api import (
    DocumentBlock,
    ImageBlock,
    StopReason,
    TextBlock,
    UserMessage,
)

# libyaml's parser where PyYAML has it: the cassettes are megabytes of YAML read at collection.
FAST_YAML = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

RESPONSES_URI = "https://api.openai.com/v1/responses"
CASSETTES = Path(__file__).resolve().parents[3] / "testdata" / "pydantic-ai" / "test_openai"


@functools.cache
def _exchanges() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(CASSETTES.glob("*.yaml")):
        cassette = yaml.load(path.read_bytes(), Loader=FAST_YAML)
        for number, interaction in enumerate(cassette.get("interactions") or ()):
            if interaction["request"].get("uri") == RESPONSES_URI:
                found.append((f"{path.stem}#{number}", interaction))
    assert found, f"no recorded /v1/responses exchanges in {CASSETTES}"
    return found


def _expected_blocks(kit, output: list[dict[str, Any]]) -> list[Any]:
    blocks: list[Any] = []
    for item in output:
        if item["type"] == "reasoning":
            texts = [part["text"] for part in item.get("summary") or () if part["text"]]
            signature = {"id": item["id"]}
            if item.get("encrypted_content"):
                signature["encrypted_content"] = item["encrypted_content"]
            blocks += kit.reasoning_blocks(texts, signature)
        elif item["type"] == "message":
            blocks.append(TextBlock("".join(p.get("text", "") for p in item["content"])))
    return blocks


def test_every_recorded_whole_response_decodes(kit) -> None:
    checked = 0
    for name, interaction in _exchanges():
        body = interaction["response"].get("parsed_body")
        if interaction["response"]["status"]["code"] != 200 or not isinstance(body, dict):
            continue
        message = kit.final_message(kit.decode(kit.frame_json(body)))
        assert message.content == _expected_blocks(kit, body["output"]), name
        assert message.stop_reason is StopReason.STOP, name
        assert message.response_id == body["id"] and message.response_model == body["model"]
        usage = body["usage"]
        cached = usage["input_tokens_details"]["cached_tokens"]
        assert message.usage.input == usage["input_tokens"] - cached, name
        assert message.usage.cache_read == cached
        assert message.usage.output == usage["output_tokens"]
        assert message.usage.reasoning == usage["output_tokens_details"]["reasoning_tokens"]
        checked += 1
    assert checked >= 5


def test_recorded_reasoning_replays_with_its_id_and_encrypted_content(kit) -> None:
    """``test_openai_model_thinking_part``: o3-mini, two summary parts, encrypted content."""
    from agentkit.plugin_api import UserMessage

    recorded = next(
        interaction["response"]["parsed_body"]
        for name, interaction in _exchanges()
        if name.startswith("test_openai_model_thinking_part#")
    )
    message = kit.final_message(kit.decode(kit.frame_json(recorded)))
    body = kit.body_of(
        kit.request_for(messages=[UserMessage.text("How do I cross the street?"), message])
    )
    [reasoning] = [item for item in recorded["output"] if item["type"] == "reasoning"]
    replayed = body["input"][1]
    assert replayed["type"] == "reasoning"
    assert replayed["id"] == reasoning["id"]
    assert replayed["encrypted_content"] == reasoning["encrypted_content"]
    assert replayed["summary"][0]["text"].startswith("**Emphasizing pedestrian safety**")
    assert body["input"][2]["role"] == "assistant"


def test_the_recorded_stream_decodes_as_its_completed_response_says(kit) -> None:
    httpx2 = pytest.importorskip("httpx2")
    streams = [
        (name, interaction)
        for name, interaction in _exchanges()
        if interaction["request"].get("parsed_body", {}).get("stream")
    ]
    assert streams, "no recorded Responses stream"
    for name, interaction in streams:
        raw = interaction["response"]["body"]["string"].encode("utf-8")
        events = kit.frame_sse(raw)
        completed = next(e.data["response"] for e in events if e.event == "response.completed")
        message = kit.final_message(kit.decode(events))
        assert message.content == _expected_blocks(kit, completed["output"]), name
        assert message.stop_reason is StopReason.STOP
        assert message.usage.output == completed["usage"]["output_tokens"]

        def handler(request, raw=raw):
            return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=raw)

        with kit.sdk_client(handler).responses.stream(model="gpt-4o-mini", input="q") as stream:
            final = stream.get_final_response()
        assert message.text == final.output_text, name


def _recorded_formats() -> list[dict[str, Any]]:
    return [interaction["request"]["parsed_body"]["text"]["format"] for _, interaction in _exchanges()
            if "format" in ((interaction["request"].get("parsed_body") or {}).get("text") or {})]


def test_a_recorded_text_format_is_what_we_send_for_the_same_schema(kit) -> None:
    """pydantic-ai names its schema after the output class; the rest of the format is ours to match."""
    formats = _recorded_formats()
    assert formats
    for recorded in formats:
        request = kit.request_for(messages=[UserMessage.text("hi")], output_schema=recorded["schema"])
        ours = kit.body_of(request)["text"]["format"]
        assert {**ours, "name": recorded["name"]} == recorded


def test_a_recorded_image_input_is_what_we_send_for_the_same_image(kit) -> None:
    """pydantic-ai's recorded question about a downloaded picture: the same text and image bytes
    encode to the recorded ``input`` (an ``input_image`` with a ``data:`` URL, ``detail: auto``)."""
    (interaction,) = [found for name, found in _exchanges()
                      if name.startswith("test_image_url_input_force_download_response_api#")]
    recorded = interaction["request"]["parsed_body"]["input"]
    (message,) = recorded
    blocks = [TextBlock(part["text"]) if part["type"] == "input_text" else ImageBlock.from_url(part["image_url"])
              for part in message["content"]]
    assert [block.mime_type for block in blocks if isinstance(block, ImageBlock)] == ["image/jpeg"]
    ours = kit.body_of(kit.request_for(messages=[UserMessage(blocks)]))["input"]
    # We name the item's type ("message"), which pydantic-ai's easy input form leaves implicit.
    assert [{key: value for key, value in item.items() if key != "type"} for item in ours] == recorded


@pytest.mark.parametrize("cassette", ["test_document_url_input_response_api#0",
                                      "test_document_url_input_force_download_response_api#1"])
def test_a_recorded_document_input_is_what_we_send_for_the_same_document(kit, cassette) -> None:
    """pydantic-ai's recorded questions about a PDF: by ``file_url`` (the API downloads it) and by
    ``file_data`` with a ``filename``, each the same ``input_file`` we encode."""
    (interaction,) = [found for name, found in _exchanges() if name == cassette]
    (message,) = interaction["request"]["parsed_body"]["input"]
    text, part = message["content"]
    document = (DocumentBlock.from_url(part["file_url"]) if "file_url" in part
                else DocumentBlock.from_url(part["file_data"], name=part["filename"]))
    ours = kit.body_of(kit.request_for(messages=[UserMessage([TextBlock(text["text"]), document])]))["input"]
    assert [{key: value for key, value in item.items() if key != "type"} for item in ours] == [message]
