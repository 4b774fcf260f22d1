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


def _quick_then_hanging() -> httpx.MockTransport:
    """The first request answers at once; every later one never answers."""
    answered = []

    async def handler(req: httpx.Request) -> httpx.Response:
        if not answered:
            answered.append(req)
            return httpx.Response(200, content=sse({"type": "text", "text": "hi"}, {"type": "end", "stop": "stop"}))
        await asyncio.Event().wait()
        raise AssertionError("unreachable")  # pragma: no cover

    return httpx.MockTransport(handler)


def _ends(runtime: ProviderRuntime, timeouts: list[float]) -> list:
    """The last event of one request per timeout, all inside one session of ``runtime``."""

    async def main():
        ends = []
        async with runtime.session():
            for timeout in timeouts:
                runtime.request_timeout = timeout
                ends.append([event async for event in runtime.stream(FakeProvider(), request())][-1])
        return ends

    return asyncio.run(main())


@pytest.mark.timeout(30)
def test_a_later_request_of_a_session_is_cut_at_its_own_deadline() -> None:
    # The first request's deadline comes while the second waits, before the second's: the shared
    # timer it armed must arm again for the second's. (Only the second is asserted on: however slow
    # a loaded machine makes the first, the second still ends at its deadline, and only there.)
    runtime = ProviderRuntime(_quick_then_hanging(), env=ENV)
    _, second = _ends(runtime, [0.5, 1.0])
    assert second.message.stop_reason is StopReason.ERROR
    assert "request_timeout" in second.message.error_message


@pytest.mark.timeout(30)
def test_a_shorter_deadline_after_a_long_one_still_fires_on_time() -> None:
    # The first request's deadline is an hour away; the second's must not wait for it.
    runtime = ProviderRuntime(_quick_then_hanging(), env=ENV)
    first, second = _ends(runtime, [3600, 0.2])
    assert first.message.stop_reason is StopReason.STOP
    assert "0.2 s" in second.message.error_message and "request_timeout" in second.message.error_message


class _TimerLedger(asyncio.SelectorEventLoop):
    """An event loop that keeps a ledger of every timer armed on it, and of which of them ran.

    A timer left armed is invisible from outside until it fires; the ledger
    shows it through the loop's public interface: armed, neither run nor cancelled.
    """

    def __init__(self) -> None:
        super().__init__()
        self._ledger: list[tuple[asyncio.TimerHandle, list[bool]]] = []

    def call_at(self, when, callback, *args, context=None):  # type: ignore[override]
        ran: list[bool] = []

        def run(*args):
            ran.append(True)
            return callback(*args)

        handle = super().call_at(when, run, *args, context=context)
        self._ledger.append((handle, ran))
        return handle

    def armed(self) -> list[asyncio.TimerHandle]:
        """The timers still waiting to fire."""
        return [handle for handle, ran in self._ledger if not ran and not handle.cancelled()]


def _with_ledger(main) -> object:
    """Run ``main(loop)`` on a :class:`_TimerLedger` and return what it returns."""
    with asyncio.Runner(loop_factory=_TimerLedger) as runner:
        return runner.run(main(runner.get_loop()))


@pytest.mark.timeout(30)
def test_a_cancelled_request_leaves_no_timer_behind() -> None:
    entered = asyncio.Event()

    async def handler(req: httpx.Request) -> httpx.Response:
        entered.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")  # pragma: no cover

    runtime = ProviderRuntime(httpx.MockTransport(handler), env=ENV, request_timeout=3600)

    async def main(loop: _TimerLedger):
        async def run() -> None:
            async with runtime.session():
                async for _ in runtime.stream(FakeProvider(), request()):
                    pass

        task = asyncio.ensure_future(run())
        await entered.wait()
        assert loop.armed(), "the deadline is armed while the request waits"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return loop.armed()

    assert _with_ledger(main) == []


@pytest.mark.timeout(30)
def test_a_finished_session_leaves_no_timer_behind() -> None:
    body = sse({"type": "text", "text": "hi"}, {"type": "end", "stop": "stop"})
    runtime = ProviderRuntime(
        httpx.MockTransport(lambda req: httpx.Response(200, content=body)), env=ENV, request_timeout=3600
    )

    async def main(loop: _TimerLedger):
        async with runtime.session():
            for _ in range(3):
                assert [e async for e in runtime.stream(FakeProvider(), request())][-1].message.text == "hi"
        return loop.armed()

    assert _with_ledger(main) == []


class _EndsThenStalls(httpx.AsyncByteStream):
    """A whole message, then a declared rest that never comes."""

    async def __aiter__(self):
        yield sse({"type": "text", "text": "hi"}, {"type": "end", "stop": "stop"})
        await asyncio.Event().wait()
        yield b""  # pragma: no cover


def _stalled_rest() -> httpx.MockTransport:
    def handler(req: httpx.Request) -> httpx.Response:
        body = sse({"type": "text", "text": "hi"}, {"type": "end", "stop": "stop"})
        # The declared length promises a short rest (worth reading to keep the connection).
        headers = {"content-type": "text/event-stream", "content-length": str(len(body) + 16)}
        return httpx.Response(200, headers=headers, stream=_EndsThenStalls())

    return httpx.MockTransport(handler)


@pytest.mark.timeout(30)
def test_a_rest_that_stalls_after_the_message_costs_the_connection_not_the_request() -> None:
    # The request deadline is an hour away: only the short wait for the rest can end this.
    runtime = ProviderRuntime(_stalled_rest(), env=ENV, request_timeout=3600)

    async def main():
        async with runtime.session():
            return [[e async for e in runtime.stream(FakeProvider(), request())][-1] for _ in range(2)]

    ends = asyncio.run(main())
    assert [end.message.stop_reason for end in ends] == [StopReason.STOP, StopReason.STOP]
    assert [end.message.text for end in ends] == ["hi", "hi"]


@pytest.mark.timeout(30)
def test_a_session_whose_rests_stalled_leaves_no_timer_behind() -> None:
    runtime = ProviderRuntime(_stalled_rest(), env=ENV, request_timeout=3600)

    async def main(loop: _TimerLedger):
        async with runtime.session():
            async for _ in runtime.stream(FakeProvider(), request()):
                pass
        return loop.armed()

    assert _with_ledger(main) == []
