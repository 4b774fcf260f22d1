"""The request deadline is a total: nothing a server sends can extend it.

A server that sends a keep-alive comment every few milliseconds never trips a
read timeout; only a total deadline ends that request. Deadlines here are
small and configured; the assertions are on what the caller sees, with only a
generous bound on time (so that a hang fails instead of blocking the suite).
"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from _runtime_fakes import FakeProvider, request, sse

from agentkit.host.runtime import ProviderRuntime, RetryPolicy
from agentkit.host.runtime.limits import DEFAULT_REQUEST_TIMEOUT
from agentkit.plugin_api import BlockDelta, MessageEnd, StopReason

ENV = {"FAKE_API_KEY": "sk-fake-0123456789abcdef"}


class KeepAlive(httpx.AsyncByteStream):
    """Some text, then ``: ping`` comments forever."""

    def __init__(self, every: float = 0.01) -> None:
        self.every = every
        self.pings = 0

    async def __aiter__(self):
        yield sse({"type": "text", "text": "partial"})
        while True:  # the first ping follows the text at once: no clock decides whether one was sent
            self.pings += 1
            yield b": ping\n\n"
            await asyncio.sleep(self.every)


def collect(runtime: ProviderRuntime) -> list:
    async def main():
        return [event async for event in runtime.stream(FakeProvider(), request())]

    return asyncio.run(main())


@pytest.mark.timeout(30)
def test_keep_alive_comments_do_not_extend_the_deadline() -> None:
    body = KeepAlive()
    runtime = ProviderRuntime(
        httpx.MockTransport(lambda req: httpx.Response(200, stream=body)), env=ENV, request_timeout=0.3
    )
    started = time.monotonic()
    events = collect(runtime)
    assert time.monotonic() - started < 20
    assert body.pings > 0, "the server did keep the stream alive"
    message = events[-1].message
    assert message.stop_reason is StopReason.ERROR
    assert "0.3 s" in message.error_message and "request_timeout" in message.error_message
    assert [e.delta for e in events if isinstance(e, BlockDelta)] == ["partial"]
    assert message.text == "partial", "what arrived before the deadline is kept"


@pytest.mark.timeout(30)
def test_a_server_that_never_answers_is_cut_at_the_deadline() -> None:
    async def handler(req: httpx.Request) -> httpx.Response:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")  # pragma: no cover

    runtime = ProviderRuntime(httpx.MockTransport(handler), env=ENV, request_timeout=0.2)
    events = collect(runtime)
    assert isinstance(events[-1], MessageEnd)
    assert events[-1].message.stop_reason is StopReason.ERROR
    assert "request_timeout" in events[-1].message.error_message


@pytest.mark.timeout(30)
def test_the_deadline_covers_the_waits_between_retries() -> None:
    sent = []

    def handler(req: httpx.Request) -> httpx.Response:
        sent.append(req)
        return httpx.Response(503, headers={"retry-after": "30"}, json={"error": {"message": "busy"}})

    runtime = ProviderRuntime(
        httpx.MockTransport(handler),
        env=ENV,
        request_timeout=0.2,
        retry=RetryPolicy(max_retries=5, max_server_delay=60),
    )
    events = collect(runtime)
    assert len(sent) == 1
    assert "request_timeout" in events[-1].message.error_message


def test_the_default_deadline_is_documented_and_none_disables_it() -> None:
    assert ProviderRuntime().request_timeout == DEFAULT_REQUEST_TIMEOUT
    assert ProviderRuntime(request_timeout=None).request_timeout is None
    with pytest.raises(ValueError, match="request_timeout"):
        ProviderRuntime(request_timeout=0)


def test_a_fast_response_is_unaffected_by_a_deadline() -> None:
    body = sse({"type": "text", "text": "hi"}, {"type": "end", "stop": "stop"})
    runtime = ProviderRuntime(
        httpx.MockTransport(lambda req: httpx.Response(200, content=body)), env=ENV, request_timeout=30
    )
    events = collect(runtime)
    assert events[-1].message.stop_reason is StopReason.STOP
