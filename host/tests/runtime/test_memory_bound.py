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


# -- every kind of content, through a real wire --------------------------------------------
#
# The Anthropic wire (the installed plugin) carries thinking and argument deltas
# as well as text, and lets a server open as many blocks as it likes. Each kind
# must end the response at its limit. Empty blocks and one-character deltas
# carry almost no bytes but still cost memory each: they count too.

SMALL = ResponseLimits(text_bytes=256 * 1024, thinking_bytes=256 * 1024, argument_bytes=256 * 1024)


def _sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def _start(index: int, block: dict) -> bytes:
    return _sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": block})


def _delta(index: int, delta: dict) -> bytes:
    return _sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})


class Flood(httpx.AsyncByteStream):
    """An Anthropic stream that opens with ``head`` and then repeats ``piece(n)`` up to ``total`` bytes."""

    def __init__(self, head: bytes, piece, total: int) -> None:
        self.head, self.piece, self.total, self.pulled = head, piece, total, 0

    async def __aiter__(self):
        message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [],
                   "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
        yield _sse("message_start", {"type": "message_start", "message": message}) + self.head
        n = 0
        while self.pulled < self.total:
            chunk = self.piece(n)
            n += 1
            self.pulled += len(chunk)
            yield chunk


def _empty_blocks(n: int) -> bytes:
    return b"".join(_start(n * 100 + i, {"type": "text", "text": ""})
                    + _sse("content_block_stop", {"type": "content_block_stop", "index": n * 100 + i})
                    for i in range(100))


FLOODS = {
    "thinking": (_start(0, {"type": "thinking", "thinking": ""}),
                 lambda n: _delta(0, {"type": "thinking_delta", "thinking": "t" * 60_000}), "thinking"),
    "arguments": (_start(0, {"type": "tool_use", "id": "toolu_1", "name": "x", "input": {}}),
                  lambda n: _delta(0, {"type": "input_json_delta", "partial_json": " " * 60_000}), "arguments"),
    "one_character_thinking": (_start(0, {"type": "thinking", "thinking": ""}),
                               lambda n: _delta(0, {"type": "thinking_delta", "thinking": "t"}) * 100, "thinking"),
    "empty_blocks": (b"", _empty_blocks, "text"),
}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", list(FLOODS))
def test_every_kind_of_content_ends_at_its_limit_within_the_memory_bound(kind: str) -> None:
    from agentkit.host import PluginHost
    from agentkit.plugin_api import ProviderRequest, UserMessage

    host = PluginHost.discover()
    provider = host.providers["anthropic-messages"]
    wire_model = next(row for row in host.models.values() if row.api == "anthropic-messages")
    head, piece, what = FLOODS[kind]
    body = Flood(head, piece, 256 * 2**20)
    runtime = ProviderRuntime(httpx.MockTransport(lambda r: httpx.Response(200, stream=body)), response_limits=SMALL,
                              env={"ANTHROPIC_API_KEY": "sk-ant-flood-0123456789"})

    async def main():
        req = ProviderRequest(model=wire_model, messages=[UserMessage.text("go")])
        return [event async for event in runtime.stream(provider, req)]

    tracemalloc.start()
    try:
        events = asyncio.run(main())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = events[-1].message
    assert message.stop_reason is StopReason.ERROR
    assert "limit" in message.error_message and what in message.error_message, message.error_message
    assert body.pulled < 64 * 2**20, "reading stopped at the limit"
    assert peak < bound(SMALL), f"peak {peak / 2**20:.1f} MiB"
