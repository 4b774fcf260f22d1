"""Every recorded Chat Completions exchange decodes to what its recording says.

Source: pydantic/pydantic-ai (MIT), ``tests/models/cassettes/test_openai/*.yaml``,
real HTTP traffic with OpenAI and OpenAI-compatible servers (Cerebras, Gemini's
compatible endpoint), kept in ``testdata/pydantic-ai/test_openai`` (see its ``PROVENANCE.md``).
Streamed bodies are framed by the host's own SSE decoder and strict JSON decoder;
whole bodies go through the strict JSON decoder as one wire event. Expectations
are read from the raw recording in each test, never written by hand.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from agentkit_provider_openai import OpenAICompletions

from agentkit.host.wire.errors import WireDecodeError
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
    UserContent,
    UserMessage,
)

# libyaml's parser where PyYAML has it: the cassettes are megabytes of YAML read at collection.
FAST_YAML = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

CASSETTES = Path(__file__).resolve().parents[3] / "testdata" / "pydantic-ai" / "test_openai"

# The vendor's documented meaning of each finish reason, written down independently of the codec.
FINISH = {
    "stop": StopReason.STOP,
    "length": StopReason.LENGTH,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "content_filter": StopReason.REFUSAL,
}


@functools.cache
def _recording(path: Path) -> dict[str, Any]:
    return yaml.load(path.read_bytes(), Loader=FAST_YAML)


def _interactions() -> list[Any]:
    params = []
    for path in sorted(CASSETTES.glob("*.yaml")):
        for index in range(len(_recording(path)["interactions"])):
            params.append(pytest.param(path, index, id=f"{path.stem}#{index}"))
    assert params, f"no recorded exchanges in {CASSETTES}"
    return params


def _load(path: Path, index: int) -> tuple[dict[str, Any], dict[str, Any]]:
    interaction = _recording(path)["interactions"][index]
    request, response = interaction["request"], interaction["response"]
    if not request["uri"].endswith("/chat/completions"):
        pytest.skip(f"{path.name}#{index}: {request['uri']} is not a Chat Completions exchange")
    return request, response


def _raw_body(response: dict[str, Any]) -> bytes:
    if "body" in response:
        body = response["body"]["string"]
        return body if isinstance(body, bytes) else body.encode("utf-8")
    return json.dumps(response["parsed_body"]).encode("utf-8")


def _row_for(kit: Any, uri: str) -> Any:
    """OpenAI's own host gets an ``openai`` row; every other server the ``local`` profile."""
    parts = urlsplit(uri)
    if parts.hostname == "api.openai.com":
        return kit.model_row("openai/gpt-4o-mini")
    base = f"{parts.scheme}://{parts.netloc}{parts.path.removesuffix('/chat/completions')}"
    return kit.model_row("local/default", base_url=base)


def _expected_from_chunks(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    text, thinking, finish, usage = "", "", None, None
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            text += delta.get("content") or ""
            thinking += delta.get("reasoning_content") or delta.get("reasoning") or ""
            for call in delta.get("tool_calls") or []:
                entry = calls.setdefault(call["index"], {"id": "", "name": "", "arguments": ""})
                entry["id"] = entry["id"] or call.get("id") or ""
                function = call.get("function") or {}
                entry["name"] = entry["name"] or function.get("name") or ""
                entry["arguments"] += function.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    return {
        "text": text,
        "thinking": thinking,
        "calls": [calls[key] for key in sorted(calls)],
        "finish": finish,
        "usage": usage,
        "id": chunks[0].get("id") if chunks else None,
        "model": chunks[-1].get("model") if chunks else None,
    }


def _expected_from_body(body: dict[str, Any]) -> dict[str, Any]:
    message = body["choices"][0]["message"]
    return {
        "text": message.get("content") or "",
        "thinking": message.get("reasoning_content") or message.get("reasoning") or "",
        "calls": [
            {
                "id": call.get("id") or "",
                "name": call["function"]["name"],
                "arguments": call["function"]["arguments"],
            }
            for call in message.get("tool_calls") or []
        ],
        "finish": body["choices"][0].get("finish_reason"),
        "usage": body.get("usage"),
        "id": body.get("id"),
        "model": body.get("model"),
    }


def _check(message: AssistantMessage, expected: dict[str, Any]) -> None:
    assert message.text == expected["text"]
    thinking = "".join(
        block.thinking for block in message.content if isinstance(block, ThinkingBlock)
    )
    assert thinking == expected["thinking"]
    calls = message.tool_calls
    assert [call.name for call in calls] == [call["name"] for call in expected["calls"]]
    assert [call.arguments for call in calls] == [call["arguments"] for call in expected["calls"]]
    for call, recorded in zip(calls, expected["calls"], strict=True):
        if recorded["id"]:
            assert call.id == recorded["id"]
        else:  # the server sent no id: one is made up, never left empty
            assert call.id.startswith("call_") and len(call.id) > len("call_")
    assert message.raw_stop_reason == expected["finish"]
    assert message.stop_reason is FINISH[expected["finish"]]
    assert message.response_id == expected["id"]
    assert message.response_model == expected["model"]
    usage = expected["usage"] or {}
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    assert message.usage.input == usage.get("prompt_tokens", 0) - cached
    assert message.usage.cache_read == cached
    assert message.usage.output == usage.get("completion_tokens", 0)
    assert message.usage.reasoning == (usage.get("completion_tokens_details") or {}).get(
        "reasoning_tokens", 0
    )


@pytest.mark.parametrize(("path", "index"), _interactions())
def test_a_recorded_response_decodes_to_what_the_recording_says(
    path: Path, index: int, kit: Any
) -> None:
    request, response = _load(path, index)
    sent = request.get("parsed_body") or {}
    stream = bool(sent.get("stream"))
    call = kit.request_for(model=_row_for(kit, request["uri"]), stream=stream)
    status = response["status"]["code"]
    raw = _raw_body(response)

    if status >= 400:
        # An HTTP error body carries an OpenAI-style error object: the message ends as an error with it.
        recorded_error = response["parsed_body"]["error"]["message"]
        message = kit.final_message(kit.decode(kit.frame_json(raw), request=call))
        assert message.stop_reason is StopReason.ERROR
        assert recorded_error in (message.error_message or "")
        assert message.content == []
        return

    if stream:
        events = kit.frame_sse(raw)
        expected = _expected_from_chunks([event.data for event in events])
    else:
        try:
            events = kit.frame_json(raw)
        except WireDecodeError as exc:
            # Not JSON at all (a text/plain answer): the host routes this through `fail`.
            decoder = OpenAICompletions().decoder(call)
            message = kit.final_message(
                decoder.fail(StopReason.ERROR, f"undecodable response: {exc}")
            )
            assert message.stop_reason is StopReason.ERROR
            assert message.content == []
            return
        body = events[0].data
        if "choices" not in body:
            message = kit.final_message(kit.decode(events, request=call))
            assert message.stop_reason is StopReason.ERROR
            assert "choices" in (message.error_message or "")
            return
        expected = _expected_from_body(body)

    message = kit.final_message(kit.decode(events, request=call))
    _check(message, expected)


# -- the recorded requests, rebuilt from canonical messages ------------------------


class _Unrepresentable(Exception):
    pass


#: input_audio's format names -> the MIME types the host admits recordings as.
_AUDIO_TYPES = {"wav": "audio/wav", "mp3": "audio/mpeg"}


def _canonical_from_recorded(body: dict[str, Any]) -> tuple[str | None, list[Any]]:
    """The canonical transcript a recorded request body expresses, or ``_Unrepresentable``."""
    system = None
    messages: list[Any] = []
    names: dict[str, str] = {}
    for position, wire in enumerate(body["messages"]):
        role, content = wire["role"], wire.get("content")
        if set(wire) - {"role", "content", "tool_calls", "tool_call_id"}:
            raise _Unrepresentable(f"fields {sorted(set(wire))}")
        if role in ("system", "developer"):
            if position != 0 or not isinstance(content, str):
                raise _Unrepresentable("a system message after the first")
            system = content
        elif role == "user":
            if isinstance(content, str):
                messages.append(UserMessage.text(content))
                continue
            blocks: list[UserContent] = []
            for part in content:
                if part["type"] == "text":
                    blocks.append(TextBlock(part["text"]))
                elif part["type"] == "image_url" and set(part["image_url"]) == {"url"}:
                    url = part["image_url"]["url"]
                    if url.startswith("data:"):
                        head, _, data = url.partition(",")
                        blocks.append(ImageBlock(data, head.removeprefix("data:").removesuffix(";base64")))
                    else:  # a web URL the wire downloads itself
                        blocks.append(ImageBlock.from_url(url))
                elif part["type"] == "file" and set(part["file"]) == {"file_data", "filename"}:
                    document = DocumentBlock.from_url(part["file"]["file_data"], name=part["file"]["filename"])
                    blocks.append(document)
                elif part["type"] == "input_audio":
                    audio = part["input_audio"]
                    blocks.append(AudioBlock(audio["data"], _AUDIO_TYPES[audio["format"]]))
                else:
                    raise _Unrepresentable(f"a {part['type']} part")
            messages.append(UserMessage(blocks))
        elif role == "assistant":
            blocks2: list[Any] = [TextBlock(content)] if content else []
            for call in wire.get("tool_calls") or []:
                names[call["id"]] = call["function"]["name"]
                blocks2.append(
                    ToolUseBlock(
                        call["id"], call["function"]["name"], call["function"]["arguments"]
                    )
                )
            messages.append(AssistantMessage(blocks2, StopReason.STOP))
        elif role == "tool" and isinstance(content, str):
            tool_id = wire["tool_call_id"]
            messages.append(
                ToolResultMessage(tool_id, names.get(tool_id, ""), [TextBlock(content)])
            )
        else:
            raise _Unrepresentable(f"a {role} message")
    return system, messages


def _as_sent(message: dict[str, Any]) -> dict[str, Any]:
    """The recorded message in the one of two equivalent spellings the codec uses.

    A user message of exactly one text part means the same as a plain string,
    which is what the codec sends. An assistant message with tool calls and no
    text has ``content: null`` in some recordings and no ``content`` in others
    (two releases of the recording client); the codec leaves it out.
    """
    content = message.get("content")
    if message["role"] == "assistant" and content is None and "content" in message:
        return {key: value for key, value in message.items() if key != "content"}
    if (
        message["role"] == "user"
        and isinstance(content, list)
        and len(content) == 1
        and content[0]["type"] == "text"
    ):
        return {**message, "content": content[0]["text"]}
    return message


#: The recorded sampling fields -> the canonical setting.
_SAMPLING = {"temperature": "temperature", "top_p": "top_p", "seed": "seed", "stop": "stop_sequences"}


def _canonical_choice(recorded: Any) -> str | None:
    """The canonical tool choice that asks for the recorded one."""
    if isinstance(recorded, dict):
        return recorded["function"]["name"]
    return recorded


def test_the_recordings_hold_required_and_automatic_tool_choices() -> None:
    seen = set()
    for param in _interactions():
        request = _recording(param.values[0])["interactions"][param.values[1]]["request"]
        if request["uri"].endswith("/chat/completions"):
            seen.add(json.dumps((request.get("parsed_body") or {}).get("tool_choice")))
    assert {'"auto"', '"required"'} <= seen


@pytest.mark.parametrize(("path", "index"), _interactions())
def test_a_recorded_request_is_what_we_encode_for_the_same_transcript(
    path: Path, index: int, kit: Any
) -> None:
    """Messages and tools of each recorded request, rebuilt as a canonical transcript
    and encoded again, come out as the recording (compared as parsed JSON)."""
    request, _ = _load(path, index)
    body = request["parsed_body"]
    try:
        system, messages = _canonical_from_recorded(body)
    except _Unrepresentable as exc:
        pytest.skip(
            f"{path.name}#{index}: the request holds {exc}, which the canonical transcript does not express"
        )
    row = _row_for(kit, request["uri"])
    # The system role is a profile decision: give the row the shape that asks for the recorded role.
    developer = body["messages"][0]["role"] == "developer"
    row = kit.model_row(
        row.key, base_url=row.base_url, reasoning_levels=("low",) if developer else (),
        structured_output=True,
    )
    # json_schema only: pydantic-ai's "prompted" output sends json_object, a mode agentkit does not use
    response_format = body.get("response_format") or {}
    if response_format.get("type") != "json_schema":
        response_format = {}
    tools = body.get("tools") or []
    strict = {bool(tool["function"].get("strict")) for tool in tools}
    specs = [
        ToolSpec(
            tool["function"]["name"],
            tool["function"].get("description", ""),
            tool["function"]["parameters"],
        )
        for tool in tools
    ]
    encoded = OpenAICompletions().encode(
        kit.request_for(
            model=row,
            system=system,
            messages=messages,
            tools=specs,
            stream=bool(body.get("stream")),
            options={"strict_tools": strict == {True}},
            tool_choice=_canonical_choice(body.get("tool_choice")),
            output_schema=response_format.get("json_schema", {}).get("schema"),
            **{name: body[field] for field, name in _SAMPLING.items() if field in body},
        )
    )
    wire = json.loads(encoded.body)
    if response_format:  # pydantic-ai names and describes its schemas its own way; the schema and strictness are ours to match
        ours = wire["response_format"]
        assert (ours["type"], ours["json_schema"]["schema"]) == (response_format["type"],
                                                                 response_format["json_schema"]["schema"])
        recorded_strict = response_format["json_schema"].get("strict")
        assert recorded_strict is None or ours["json_schema"]["strict"] == recorded_strict
    for field in ("tool_choice", *_SAMPLING):
        assert wire.get(field) == body.get(field), field
    assert wire["messages"] == [_as_sent(message) for message in body["messages"]]
    if tools and len(strict) == 1 and row.options["compat"] == "openai":
        assert wire["tools"] == tools
    if "stream_options" in body:
        assert wire["stream_options"] == body["stream_options"]


def test_the_recordings_hold_structured_output_requests() -> None:
    formats = set()
    for param in _interactions():
        request = _recording(param.values[0])["interactions"][param.values[1]]["request"]
        if request["uri"].endswith("/chat/completions"):
            formats.add(((request.get("parsed_body") or {}).get("response_format") or {}).get("type"))
    assert "json_schema" in formats
