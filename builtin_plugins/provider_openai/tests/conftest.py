"""Shared helpers: recorded exchanges framed the way the host frames them, and a decode driver."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from agentkit.host.wire.json import loads
from agentkit.host.wire.sse import SSEDecoder
from agentkit.plugin_api import (
    AssistantMessage,
    MessageEnd,
    ModelInfo,
    ProviderEvent,
    ProviderRequest,
    UserMessage,
    WireEvent,
)
from agentkit_provider_openai import OpenAICompletions

_DEFAULT_TESTDATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "testdata"


def testdata_root() -> Path:
    return Path(os.environ.get("AGENTKIT_TESTDATA", _DEFAULT_TESTDATA))


def frame_sse(raw: bytes) -> list[WireEvent]:
    """Cut raw SSE bytes into wire events as the host does: SSE framing, strict
    JSON, and ``data: [DONE]`` as the end of the stream."""
    decoder = SSEDecoder()
    messages = decoder.feed(raw)
    messages += decoder.close()
    events = []
    for message in messages:
        if message.data.strip() == "[DONE]":
            break
        events.append(WireEvent(data=loads(message.data.encode("utf-8")), event=message.event))
    return events


def frame_json(body: Any) -> list[WireEvent]:
    """A whole (non-streamed) body as the host hands it over: one wire event."""
    raw = json.dumps(body).encode("utf-8") if not isinstance(body, bytes) else body
    return [WireEvent(data=loads(raw))]


def model_row(key: str = "openai/gpt-4o-mini", **changes: Any) -> ModelInfo:
    """A catalog row of the provider, optionally changed (e.g. another base URL)."""
    for row in OpenAICompletions().catalog():
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
    provider: OpenAICompletions | None = None,
) -> list[ProviderEvent]:
    """Feed every wire event to a fresh decoder, then ``finish`` it."""
    provider = provider or OpenAICompletions()
    decoder = provider.decoder(request or request_for())
    out: list[ProviderEvent] = []
    for event in events:
        out += decoder.feed(event)
    out += decoder.finish()
    return out


def final_message(events: list[ProviderEvent]) -> AssistantMessage:
    ends = [event for event in events if isinstance(event, MessageEnd)]
    assert len(ends) == 1, f"expected exactly one message_end, got {len(ends)}"
    assert events[-1] is ends[0], "message_end must be the last event"
    return ends[0].message


def chunk(
    delta: dict[str, Any] | None = None, *, finish: str | None = None, **top: Any
) -> WireEvent:
    """One streamed ``chat.completion.chunk`` as a wire event."""
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    data = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m", "choices": choices}
    data.update(top)
    return WireEvent(data=data)


@pytest.fixture
def testdata() -> Path:
    root = testdata_root()
    if not root.is_dir():
        pytest.skip(f"shared test data not found at {root} (set AGENTKIT_TESTDATA)")
    return root


@pytest.fixture
def kit() -> SimpleNamespace:
    """The helpers above, for test modules (which cannot import each other)."""
    return SimpleNamespace(
        frame_sse=frame_sse,
        frame_json=frame_json,
        model_row=model_row,
        request_for=request_for,
        decode=decode,
        final_message=final_message,
        chunk=chunk,
    )
