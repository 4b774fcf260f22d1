"""Shared helpers: real material, framed the way the host frames it, and a decode driver."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from agentkit_provider_anthropic import AnthropicMessages

from agentkit.conformance import codec
from agentkit.host.wire.json import loads
from agentkit.host.wire.sse import SSEDecoder
from agentkit.plugin_api import (
    ModelInfo,
    ProviderEvent,
    ProviderRequest,
    UserMessage,
    WireEvent,
)


def frame_sse(raw: bytes) -> list[WireEvent]:
    """Cut raw SSE bytes into wire events as the host does: SSE framing, strict JSON.

    A stream on the wire ends its last event with a blank line. Some stored
    fixtures were saved without it; the host (after the WHATWG rules) discards
    an unterminated final event, so the blank line is restored here.
    """
    if not raw.endswith((b"\n\n", b"\r\n\r\n")):
        raw += b"\n\n"
    decoder = SSEDecoder()
    messages = decoder.feed(raw)
    messages += decoder.close()
    return [WireEvent(data=loads(message.data), event=message.event) for message in messages]


def model_row(model_id: str = "claude-sonnet-5-5") -> ModelInfo:
    for row in AnthropicMessages().catalog():
        if row.id == model_id:
            return row
    raise LookupError(model_id)


def request_for(**fields: Any) -> ProviderRequest:
    fields.setdefault("model", model_row())
    fields.setdefault("messages", [UserMessage.text("hi")])
    return ProviderRequest(**fields)


def decode(events: list[WireEvent], *, finish: bool = True) -> list[ProviderEvent]:
    """Feed every wire event to a fresh decoder, then ``finish`` it."""
    decoder = AnthropicMessages().decoder(request_for())
    out: list[ProviderEvent] = []
    for event in events:
        out += decoder.feed(event)
    if finish:
        out += decoder.finish()
    return out


final_message = codec.final_message


@pytest.fixture(scope="session")
def kit() -> SimpleNamespace:
    """The helpers above, for test modules (which cannot import each other)."""
    return SimpleNamespace(
        frame_sse=frame_sse,
        model_row=model_row,
        request_for=request_for,
        decode=decode,
        final_message=final_message,
    )
