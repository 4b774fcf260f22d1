"""The codec against the request and response examples of Ollama's own API documentation.

``testdata/ollama/`` holds ollama/ollama's ``docs/api.md`` (the API reference),
``docs/api/errors.mdx`` and ``docs/capabilities/thinking.mdx``, unchanged (see
its ``PROVENANCE.md``). The examples are read from them here: every chat
response example decodes to what its JSON says, the chat and thinking request
examples are what the encoder sends for the same conversation, and the
documented error shapes become clear errors, through the host's runtime.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentkit.plugin_api import StopReason, ToolSpec, UserMessage

DOCS = Path(__file__).resolve().parents[3] / "testdata" / "ollama" / "docs"
FENCE = re.compile(r"^[ \t]*```(\w*)\n(.*?)^[ \t]*```", re.S | re.M)  # fences may be indented (.mdx tabs)
CURL_BODY = re.compile(r"-d '(\{.*\})'", re.S)


def _section(text: str, heading: str) -> str:
    """The part of ``text`` under ``heading`` (a whole line), up to the next heading of its level."""
    level = heading.split(" ", 1)[0]
    start = text.index(heading + "\n")
    end = re.compile(rf"^{level} ", re.M).search(text, start + len(heading))
    return text[start : end.start() if end else len(text)]


def chat_examples() -> dict[str, tuple[dict[str, Any] | None, list[dict[str, Any]]]]:
    """Each ``#### Chat request (...)`` example: its request body and its response objects, in order."""
    chat = _section((DOCS / "api.md").read_text(encoding="utf-8"), "## Generate a chat completion")
    examples = {}
    for title in re.findall(r"^#### (Chat request \(.*\))$", chat, re.M):
        part = _section(chat, f"#### {title}")
        request_part, _, response_part = part.partition("##### Response")
        bodies = [_json(m.group(1)) for _, block in FENCE.findall(request_part) if (m := CURL_BODY.search(block))]
        responses = [_json(block) for kind, block in FENCE.findall(response_part) if kind == "json"]
        # An example with a placeholder (an elided base64 image) is no JSON: it is not read.
        examples[title] = (bodies[0] if bodies else None, [] if None in responses else responses)
    return examples


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


EXAMPLES = chat_examples()
RESPONSES = {title: responses for title, (_, responses) in EXAMPLES.items() if responses}


def test_the_reference_was_read() -> None:
    assert len(RESPONSES) >= 8, sorted(RESPONSES)
    assert {"Chat request (Streaming)", "Chat request (Streaming with tools)", "Chat request (No streaming)"} <= set(RESPONSES)


@pytest.mark.parametrize("title", sorted(RESPONSES))
def test_every_chat_response_example_decodes_to_what_it_says(kit, title) -> None:
    chunks = RESPONSES[title]
    message = kit.final_message(kit.decode(kit.frame_ndjson(kit.ndjson(chunks))))
    final = chunks[-1]
    assert final["done"] is True
    assert message.text == "".join(chunk.get("message", {}).get("content") or "" for chunk in chunks)
    calls = [call["function"] for chunk in chunks for call in chunk.get("message", {}).get("tool_calls") or ()]
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == [
        (call["name"], call["arguments"]) for call in calls]
    assert message.stop_reason is (StopReason.TOOL_USE if calls else StopReason.STOP)
    assert message.raw_stop_reason == final.get("done_reason")
    assert (message.usage.input, message.usage.output) == (final.get("prompt_eval_count", 0), final["eval_count"])
    assert message.response_model == final["model"]


def test_the_final_chunk_with_done_reason_length_is_the_output_limit(kit) -> None:
    """``length`` is what the server writes when ``num_predict`` cut the answer (``DoneReasonLength``)."""
    first, final = RESPONSES["Chat request (Streaming)"]
    cut = {**final, "done_reason": "length"}
    message = kit.final_message(kit.decode(kit.frame_ndjson(kit.ndjson([first, cut]))))
    assert (message.stop_reason, message.raw_stop_reason, message.text) == (StopReason.LENGTH, "length", "The")


def test_the_documented_thinking_field_becomes_a_thinking_block_sent_back_as_thinking(kit) -> None:
    """``message.thinking``: "(for thinking models) the model's thinking process", before the content."""
    first, final = RESPONSES["Chat request (Streaming)"]
    thinking = {**first, "message": {"role": "assistant", "content": "", "thinking": "Rayleigh scattering."}}
    message = kit.final_message(kit.decode(kit.frame_ndjson(kit.ndjson([thinking, first, final]))))
    assert [block.type for block in message.content] == ["thinking", "text"]
    assert message.content[0].thinking == "Rayleigh scattering."
    body = kit.body_of(kit.request_for(messages=[UserMessage.text("why is the sky blue?"), message]))
    assert body["messages"][1] == {"role": "assistant", "content": "The", "thinking": "Rayleigh scattering."}


def _encoded_like(kit, example: dict[str, Any]) -> dict[str, Any]:
    """What the encoder sends for the example's conversation, tools and options."""
    row = kit.model_row(f"ollama/{example['model']}")  # llama3.2, a row of the catalog
    tools = [ToolSpec(t["function"]["name"], t["function"]["description"], t["function"]["parameters"])
             for t in example.get("tools") or ()]
    messages = [UserMessage.text(m["content"]) for m in example["messages"] if m["role"] == "user"]
    return kit.body_of(kit.request_for(model=row, messages=messages, tools=tools,
                                       stream=example.get("stream", True)))


@pytest.mark.parametrize("title", ["Chat request (Streaming)", "Chat request (Streaming with tools)",
                                   "Chat request (No streaming)", "Chat request (No streaming, with tools)"])
def test_the_chat_request_examples_are_what_the_encoder_sends(kit, title) -> None:
    example, _ = EXAMPLES[title]
    assert example is not None
    body = _encoded_like(kit, example)
    assert body["model"] == example["model"] and body["messages"] == example["messages"]
    assert body.get("tools", []) == example.get("tools", [])
    assert body["stream"] is example.get("stream", True)


def test_the_thinking_request_example_is_what_the_encoder_sends_for_a_reasoning_level(kit) -> None:
    text = (DOCS / "capabilities" / "thinking.mdx").read_text(encoding="utf-8")
    curl = next(block for kind, block in FENCE.findall(text) if kind == "shell" and "/api/chat" in block)
    example = json.loads(CURL_BODY.search(curl).group(1))  # type: ignore[union-attr]
    assert example["think"] is True
    messages = [UserMessage.text(m["content"]) for m in example["messages"]]
    body = kit.body_of(kit.request_for(model=kit.model_row(f"ollama/{example['model']}"), messages=messages,
                                       reasoning="high", stream=example["stream"]))
    assert {key: body[key] for key in example} == example
    off = kit.body_of(kit.request_for(model=kit.model_row(f"ollama/{example['model']}"), messages=messages,
                                      reasoning="off", stream=False))
    assert off["think"] is False


def _error_examples() -> tuple[dict[str, Any], list[str]]:
    """errors.mdx: the JSON error body, and the NDJSON lines of an error mid-stream."""
    blocks = [block for kind, block in FENCE.findall((DOCS / "api" / "errors.mdx").read_text(encoding="utf-8"))
              if kind == "json"]
    body, stream = json.loads(blocks[0]), blocks[1].splitlines()
    return body, stream


@pytest.mark.parametrize("status", [500, 502, 400, 404])
def test_an_error_status_with_the_documented_body_names_the_servers_message(kit, status) -> None:
    body, _ = _error_examples()
    message, _ = kit.through_runtime(kit.request_for(), lambda request: httpx.Response(status, json=body), env={})
    assert message.stop_reason is StopReason.ERROR
    assert f"HTTP {status}" in message.error_message and body["error"] in message.error_message


def test_the_documented_error_mid_stream_ends_the_message_with_its_text(kit) -> None:
    _, lines = _error_examples()
    assert json.loads(lines[-1]) == {"error": "an error was encountered while running the model"}
    raw = ("\n".join(lines) + "\n").encode()
    headers = {"content-type": "application/x-ndjson"}
    message, _ = kit.through_runtime(kit.request_for(), lambda request: httpx.Response(200, headers=headers,
                                                                                         content=raw), env={})
    assert message.stop_reason is StopReason.ERROR
    assert message.error_message == "the Ollama server reported an error: an error was encountered while running the model"


def test_the_documented_error_as_a_whole_200_body_is_an_error(kit) -> None:
    body, _ = _error_examples()
    message, _ = kit.through_runtime(kit.request_for(stream=False),
                                     lambda request: httpx.Response(200, json=body), env={})
    assert message.stop_reason is StopReason.ERROR and body["error"] in message.error_message
