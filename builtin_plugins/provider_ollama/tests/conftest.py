"""Shared helpers: Ollama responses built from the API reference, framed the way the host frames them.

The chunk shapes follow Ollama's API reference (``docs/api.md`` of ollama/ollama,
"Generate a chat completion") and its announcement of streamed tool calls
(ollama.com/blog/streaming-tool, 2025-05-28): each line is an object with
``model``, ``created_at``, ``message`` (``role``, ``content`` and, for thinking
models, ``thinking``; ``tool_calls`` holding whole calls with object arguments)
and ``done``; the last line has ``done: true``, ``done_reason`` and the counts.
"""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace
from typing import Any

import pytest
from agentkit_provider_ollama import OllamaChat

from agentkit.conformance import codec
from agentkit.plugin_api import (
    ModelInfo,
    ProviderEvent,
    ProviderRequest,
    UserMessage,
    WireEvent,
)

CREATED = "2025-05-27T22:54:57.641643Z"


def line(message: dict[str, Any] | None = None, *, model: str = "qwen3", **top: Any) -> dict:
    """One streamed chunk; ``done`` is false unless given."""
    chunk: dict[str, Any] = {"model": model, "created_at": CREATED}
    chunk["message"] = {"role": "assistant", "content": "", **(message or {})}
    chunk["done"] = False
    chunk.update(top)
    return chunk


def done(
    reason: str = "stop", *, prompt: int = 26, output: int = 282, model: str = "qwen3", **top: Any
) -> dict:
    """The final chunk of a stream, with counts and durations as the server sends them."""
    return line(
        model=model,
        done=True,
        done_reason=reason,
        total_duration=4883583458,
        load_duration=1334875,
        prompt_eval_count=prompt,
        prompt_eval_duration=342546000,
        eval_count=output,
        eval_duration=4535599000,
        **top,
    )


def ndjson(chunks: list[dict]) -> bytes:
    """The body of a streamed response: one compact JSON object per line, as the server writes it."""
    return b"".join(json.dumps(chunk, ensure_ascii=False).encode() + b"\n" for chunk in chunks)


def whole(chunks: list[dict]) -> dict:
    """The ``stream: false`` response the server builds from the same generation.

    Content and thinking are concatenated, tool calls gathered in order, and the
    final chunk's fields kept: what Ollama's chat handler does when it does not stream.
    """
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    thinking = "".join(c["message"].get("thinking", "") for c in chunks)
    if thinking:
        message["thinking"] = thinking
    message["content"] = "".join(c["message"].get("content", "") for c in chunks)
    calls = [call for c in chunks for call in c["message"].get("tool_calls", [])]
    if calls:
        message["tool_calls"] = calls
    final = dict(chunks[-1])
    final["message"] = message
    return final


def frame_ndjson(raw: bytes) -> list[WireEvent]:
    """Cut NDJSON bytes into wire events as the host does (its framer, strict JSON)."""
    return codec.frame(raw, "ndjson")


frame_json = codec.frame_json


def model_row(key: str = "ollama/qwen3", **changes: Any) -> ModelInfo:
    for row in OllamaChat().catalog():
        if row.key == key:
            return dataclasses.replace(row, **changes) if changes else row
    raise LookupError(key)


def request_for(**fields: Any) -> ProviderRequest:
    fields.setdefault("model", model_row())
    fields.setdefault("messages", [UserMessage.text("hi")])
    return ProviderRequest(**fields)


def decode(
    events: list[WireEvent],
    *,
    request: ProviderRequest | None = None,
    provider: OllamaChat | None = None,
) -> list[ProviderEvent]:
    """Feed every wire event to a fresh decoder, then ``finish`` it, as the host does."""
    decoder = (provider or OllamaChat()).decoder(request or request_for())
    out: list[ProviderEvent] = []
    for event in events:
        out += decoder.feed(event)
    out += decoder.finish()
    return out


final_message = codec.final_message


def body_of(provider: OllamaChat, request: ProviderRequest) -> dict[str, Any]:
    wire = provider.encode(request)
    assert isinstance(wire.body, bytes)
    return json.loads(wire.body)


@pytest.fixture
def kit() -> SimpleNamespace:
    """The helpers above, for test modules (which cannot import each other)."""
    return SimpleNamespace(
        line=line,
        done=done,
        ndjson=ndjson,
        whole=whole,
        frame_ndjson=frame_ndjson,
        frame_json=frame_json,
        model_row=model_row,
        request_for=request_for,
        decode=decode,
        final_message=final_message,
        body_of=body_of,
    )
