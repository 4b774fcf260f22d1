"""stream_batches: stream's events, in the lists they arrive in.

The agent's loop reads a response through ``stream_batches``; whatever the
network's chunking or a decoder failure mid-chunk, it sees exactly the
events ``stream`` yields, in the same order, and a chunk's events arrive
together (one generator hop per chunk, not per event).
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from _runtime_fakes import Chunks, FakeProvider, request, sse, text_stream
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.host.runtime import ProviderRuntime
from agentkit.plugin_api import MessageEnd, StopReason

ENV = {"FAKE_API_KEY": "sk-fake-0123456789abcdef"}


def _runtime(body: bytes, chunk: int) -> ProviderRuntime:
    def handler(req: httpx.Request) -> httpx.Response:
        parts = [body[i : i + chunk] for i in range(0, len(body), chunk)] if chunk else [body]
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Chunks(parts))

    return ProviderRuntime(httpx.MockTransport(handler), env=ENV)


def _read(body: bytes, chunk: int) -> tuple[list[Any], list[list[Any]]]:
    async def main() -> tuple[list[Any], list[list[Any]]]:
        one = [event async for event in _runtime(body, chunk).stream(FakeProvider(), request())]
        lists = [events async for events in _runtime(body, chunk).stream_batches(FakeProvider(), request())]
        return one, lists

    return asyncio.run(main())


def _same(events: list[Any]) -> list[Any]:
    """What a consumer observes of each event (timestamps aside)."""
    out = []
    for event in events:
        if isinstance(event, MessageEnd):
            message = event.message
            out.append(("end", message.stop_reason, message.text, message.error_message))
        else:
            out.append(event)
    return out


BODIES = {
    "complete": text_stream("Hel", "lo", " there", usage={"input": 3, "output": 2}),
    "decoder fails mid-stream": sse({"type": "text", "text": "kept"}, {"type": "boom"}, {"type": "text", "text": "x"}),
    "cut short": sse({"type": "text", "text": "a"}, {"type": "text", "text": "b"}),
}
# What a consumer sees of each body, however it is chunked: the event kinds and the deltas.
SEEN = {
    "complete": ["MessageStart", "BlockStart", "Hel", "lo", " there", "BlockEnd", "MessageEnd"],
    "decoder fails mid-stream": ["MessageStart", "BlockStart", "kept", "BlockEnd", "MessageEnd"],
    "cut short": ["MessageStart", "BlockStart", "a", "b", "BlockEnd", "MessageEnd"],
}


def _kinds(events: list[Any]) -> list[str]:
    return [event.delta if hasattr(event, "delta") else type(event).__name__ for event in events]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(BODIES)), st.integers(0, 40))
def test_stream_batches_yields_exactly_the_events_of_stream_in_order(name: str, chunk: int) -> None:
    one, lists = _read(BODIES[name], chunk)
    assert all(lists), "no empty list is handed over"
    flat = [event for events in lists for event in events]
    assert _same(flat) == _same(one)
    assert _kinds(flat) == SEEN[name]
    assert isinstance(one[-1], MessageEnd)


def test_a_chunk_s_events_arrive_together_and_a_failure_after_the_events_before_it() -> None:
    _, lists = _read(BODIES["complete"], 0)
    assert len(lists) == 1  # one chunk, one list: start, the text block's deltas, the end
    _, lists = _read(BODIES["decoder fails mid-stream"], 0)
    assert len(lists) == 1
    end = lists[0][-1]
    assert end.message.stop_reason is StopReason.ERROR and end.message.text == "kept"
    _, lists = _read(BODIES["complete"], 1)  # a byte at a time: a list only when a chunk completes an event
    assert len(lists) < len(BODIES["complete"])
