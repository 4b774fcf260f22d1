"""One response's memory stays within its documented bound, whatever the server streams.

The server here is a generator: it offers 1 GB, built lazily from one reused
chunk, so the test costs only what the runtime actually reads. The bound
checked is the one ``agentkit.host.runtime.limits`` documents: twice the
response's limits (the parts and the joined final message) plus the framing
buffers (16 MiB).
"""

from __future__ import annotations

import asyncio
import json
import tracemalloc

import httpx
import pytest
from _runtime_fakes import FakeProvider, model, request

from agentkit.host.runtime import ProviderRuntime
from agentkit.host.runtime.limits import FRAMING_BYTES, ResponseLimits
from agentkit.plugin_api import StopReason

GIGABYTE = 1024**3
ENV = {"FAKE_API_KEY": "sk-fake-0123456789abcdef"}


class Offered(httpx.AsyncByteStream):
    """``total`` bytes made of one chunk repeated; counts what the client pulled."""

    def __init__(self, head: bytes, chunk: bytes, total: int) -> None:
        self.head = head
        self.chunk = chunk
        self.total = total
        self.pulled = 0

    async def __aiter__(self):
        yield self.head
        while self.pulled < self.total:
            self.pulled += len(self.chunk)
            yield self.chunk


def measure(body: Offered, req) -> tuple[list, int]:
    runtime = ProviderRuntime(httpx.MockTransport(lambda r: httpx.Response(200, stream=body)), env=ENV)

    async def main():
        return [event async for event in runtime.stream(FakeProvider(), req)]

    tracemalloc.start()
    try:
        events = asyncio.run(main())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return events, peak


def bound(limits: ResponseLimits) -> int:
    return 2 * (limits.text_bytes + limits.thinking_bytes + limits.argument_bytes) + FRAMING_BYTES


@pytest.mark.timeout(120)
def test_a_gigabyte_of_valid_deltas_ends_at_the_limit_within_the_memory_bound() -> None:
    delta = b"data: " + json.dumps({"type": "text", "text": "x" * 65_000}).encode() + b"\n\n"
    body = Offered(b"", delta, GIGABYTE)
    req = request(model=model(max_output=128_000))
    events, peak = measure(body, req)
    limits = ResponseLimits().resolve(req.model)
    message = events[-1].message
    assert message.stop_reason is StopReason.ERROR
    assert "limit" in message.error_message and "text" in message.error_message
    assert body.pulled < limits.text_bytes + 4 * len(delta), "reading stopped at the limit"
    assert peak < bound(limits), f"peak {peak / 2**20:.1f} MiB"


@pytest.mark.timeout(120)
def test_a_gigabyte_of_keep_alive_traffic_is_read_in_constant_memory() -> None:
    # Valid SSE the decoder ignores (long comments): all of it is read, none kept.
    comment = b": " + b"k" * (512 * 1024) + b"\n"
    head = b'data: {"type": "text", "text": "still here"}\n\n'
    body = Offered(head, comment, GIGABYTE)
    events, peak = measure(body, request())
    assert body.pulled >= GIGABYTE
    assert events[-1].message.stop_reason is StopReason.ERROR  # the stream ended without its end event
    assert events[-1].message.text == "still here"
    assert peak < FRAMING_BYTES, f"peak {peak / 2**20:.1f} MiB"
