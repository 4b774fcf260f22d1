"""Helpers for testing a provider codec without a network, as the host drives it.

A provider author's tests, and this repository's, cut recorded or hand-built
response bytes into wire events with the host's own framer, feed them to a
decoder and look at the message it ends with::

    from agentkit.conformance.codec import decode, final_message, frame

    events = decode(MyProvider(), frame(recorded_bytes, "sse"), request)
    message = final_message(events)
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from agentkit.host.runtime.framing import make_framer
from agentkit.host.wire import loads
from agentkit.plugin_api import (
    AssistantMessage,
    MessageEnd,
    Provider,
    ProviderEvent,
    ProviderRequest,
    WireEvent,
)

__all__ = ["decode", "final_message", "frame", "frame_json"]


def frame(raw: bytes, framing: str = "sse") -> list[WireEvent]:
    """Cut a response body into wire events exactly as the host does.

    The host's framer for ``framing`` (``sse``, ``ndjson`` or ``json``) with its
    strict JSON decoder: ``data: [DONE]`` ends an SSE stream, an event without
    data is skipped, a malformed frame raises.
    """
    framer = make_framer(framing)
    events = framer.feed(raw)
    if framer.error is not None:
        raise framer.error
    if not framer.done:
        events += framer.close()
    return events


def frame_json(body: Any) -> list[WireEvent]:
    """A whole (non-streamed) body as the host hands it to a decoder: one wire event."""
    raw = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode("utf-8")
    return [WireEvent(loads(raw))]


def decode(
    provider: Provider,
    events: Iterable[WireEvent],
    request: ProviderRequest,
    *,
    finish: bool = True,
) -> list[ProviderEvent]:
    """Feed ``events`` to a fresh decoder for ``request``, then ``finish`` it (unless told not to)."""
    decoder = provider.decoder(request)
    out: list[ProviderEvent] = []
    for event in events:
        out += decoder.feed(event)
    if finish:
        out += decoder.finish()
    return out


def final_message(events: list[ProviderEvent]) -> AssistantMessage:
    """The one message a response ended with; fails unless ``message_end`` came once, last."""
    ends = [event for event in events if isinstance(event, MessageEnd)]
    assert len(ends) == 1, f"expected exactly one message_end, got {len(ends)}"
    assert events[-1] is ends[0], "message_end must be the last event"
    return ends[0].message
