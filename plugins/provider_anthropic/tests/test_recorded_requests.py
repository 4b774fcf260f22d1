"""Our tool choice and sampling fields against the requests pydantic-ai recorded to the Messages API.

Source: ``testdata/pydantic-ai/test_anthropic`` (see its ``PROVENANCE.md``). For
every recorded ``POST /v1/messages`` that carried a ``tool_choice``, the same
canonical choice over the same tools encodes to the recorded value; the
recorded sampling exchange (Claude Haiku 4.5, which answered it) encodes to
the recorded sampling fields.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from agentkit_provider_anthropic import AnthropicMessages

from agentkit.plugin_api import DocumentBlock, ImageBlock, TextBlock, ToolSpec, UserMessage

FAST_YAML = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CASSETTES = Path(__file__).resolve().parents[3] / "testdata" / "pydantic-ai" / "test_anthropic"
#: The recorded wire value -> the canonical choice that asks for it.
_CANONICAL = {"auto": "auto", "any": "required", "none": "none"}


def _requests() -> list:
    params = []
    for path in sorted(_CASSETTES.glob("*.yaml")):
        for number, interaction in enumerate(yaml.load(path.read_bytes(), Loader=FAST_YAML)["interactions"]):
            request = interaction["request"]
            body = request.get("parsed_body")
            if urlsplit(request["uri"]).path.endswith("/v1/messages") and isinstance(body, dict):
                params.append(pytest.param(body, id=f"{path.stem}#{number}"))
    return params


_RECORDED = _requests()
_WITH_CHOICE = [p for p in _RECORDED if "tool_choice" in p.values[0]]


def _encoded(kit, **fields) -> dict:
    return json.loads(AnthropicMessages().encode(kit.request_for(max_tokens=1024, **fields)).body)


def test_the_recordings_hold_forced_and_automatic_choices() -> None:
    kinds = {p.values[0]["tool_choice"]["type"] for p in _WITH_CHOICE}
    assert {"auto", "any"} <= kinds


@pytest.mark.parametrize("recorded", _WITH_CHOICE)
def test_a_recorded_tool_choice_is_what_we_send_for_the_same_choice(kit, recorded) -> None:
    wire = recorded["tool_choice"]
    choice = wire["name"] if wire["type"] == "tool" else _CANONICAL[wire["type"]]
    tools = [ToolSpec(tool["name"], tool.get("description", ""), tool.get("input_schema", {"type": "object"}))
             for tool in recorded.get("tools", []) if "name" in tool]
    ours = _encoded(kit, tools=tools, tool_choice=choice)["tool_choice"]
    assert ours == {key: value for key, value in wire.items() if key != "disable_parallel_tool_use"}


def test_the_recorded_sampling_settings_are_what_we_send(kit) -> None:
    (recorded,) = [p.values[0] for p in _RECORDED if "top_k" in p.values[0]]
    ours = _encoded(kit, model=kit.model_row(recorded["model"]), temperature=recorded["temperature"],
                    top_k=recorded["top_k"], stream=recorded["stream"])
    fields = ("model", "temperature", "top_k", "stream")
    assert {f: ours[f] for f in fields} == {f: recorded[f] for f in fields}


_WITH_FORMAT = [p for p in _RECORDED if "format" in p.values[0].get("output_config", {})]


def test_the_recordings_hold_structured_output() -> None:
    assert _WITH_FORMAT


@pytest.mark.parametrize("recorded", _WITH_FORMAT)
def test_a_recorded_output_format_is_what_we_send_for_the_same_schema(kit, recorded) -> None:
    wire = recorded["output_config"]["format"]
    model = kit.model_row("claude-sonnet-4-6")
    ours = _encoded(kit, model=model, output_schema=wire["schema"])["output_config"]["format"]
    assert ours == wire


def test_a_recorded_url_image_is_what_we_send_for_the_same_image(kit) -> None:
    """pydantic-ai's recorded question about a picture by URL: the same text and URL image encode
    to the recorded messages (a ``url`` source the API downloads itself)."""
    recording = yaml.load((_CASSETTES / "test_image_url_input.yaml").read_bytes(), Loader=FAST_YAML)
    recorded = recording["interactions"][0]["request"]["parsed_body"]["messages"]
    (message,) = recorded
    blocks = [TextBlock(part["text"]) if part["type"] == "text" else ImageBlock.from_url(part["source"]["url"])
              for part in message["content"]]
    assert any(isinstance(block, ImageBlock) for block in blocks)
    (ours,) = _encoded(kit, messages=[UserMessage(blocks)])["messages"]
    # Our cache breakpoint on the last part is the one difference pydantic-ai does not send.
    parts = [{key: value for key, value in part.items() if key != "cache_control"} for part in ours["content"]]
    assert [{**ours, "content": parts}] == recorded


@pytest.mark.parametrize("cassette", ["test_document_binary_content_input", "test_document_url_input"])
def test_a_recorded_document_is_what_we_send_for_the_same_document(kit, cassette) -> None:
    """pydantic-ai's recorded questions about a PDF, by base64 and by URL: the same text and
    document encode to the recorded ``document`` block (a ``base64`` or a ``url`` source)."""
    recording = yaml.load((_CASSETTES / f"{cassette}.yaml").read_bytes(), Loader=FAST_YAML)
    (message,) = recording["interactions"][0]["request"]["parsed_body"]["messages"]
    text, part = message["content"]
    source = part["source"]
    document = (DocumentBlock.from_url(source["url"]) if source["type"] == "url"
                else DocumentBlock(source["data"], source["media_type"]))
    (ours,) = _encoded(kit, messages=[UserMessage([TextBlock(text["text"]), document])])["messages"]
    parts = [{key: value for key, value in p.items() if key != "cache_control"} for p in ours["content"]]
    assert [{**ours, "content": parts}] == [message]
