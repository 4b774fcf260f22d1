"""ProviderRuntime.stream: from a codec's wire request to canonical events over httpx.

Every test drives the runtime through ``httpx.MockTransport`` and a fake codec
(``_runtime_fakes``), and asserts what a caller sees: the events, the final
message, the request that reached the transport.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from _runtime_fakes import (
    FakeProvider,
    HeldBody,
    KeylessProvider,
    model,
    ok,
    request,
    sse,
    text_stream,
)

from agentkit.host._stopping.run_stop import AbortEvent
from agentkit.host.runtime import ProviderRuntime
from agentkit.plugin_api import (
    BlockDelta,
    MessageEnd,
    MessageStart,
    StopReason,
)

ENV = {"FAKE_API_KEY": "sk-fake-0123456789abcdef"}


def collect(runtime: ProviderRuntime, provider, req, **kwargs):
    async def main():
        return [event async for event in runtime.stream(provider, req, **kwargs)]

    return asyncio.run(main())


def assert_one_end_last(events) -> None:
    assert isinstance(events[0], MessageStart)
    assert isinstance(events[-1], MessageEnd)
    assert sum(isinstance(e, MessageEnd) for e in events) == 1


def test_a_streamed_response_becomes_canonical_events() -> None:
    seen: list[httpx.Request] = []

    def handler(req: httpx.Request) -> httpx.Response:
        seen.append(req)
        return httpx.Response(
            200, content=text_stream("Hel", "lo", usage={"input": 3, "output": 2})
        )

    runtime = ProviderRuntime(httpx.MockTransport(handler), env=ENV)
    events = collect(runtime, FakeProvider(), request("hi"))
    assert_one_end_last(events)
    assert [e.delta for e in events if isinstance(e, BlockDelta)] == ["Hel", "lo"]
    message = events[-1].message
    assert message.stop_reason is StopReason.STOP
    assert message.text == "Hello"
    assert str(seen[0].url) == "https://fake.example/api/v1/generate"
    assert seen[0].method == "POST"
    assert json.loads(seen[0].content) == {"model": "fake-1", "prompt": "hi"}
    assert seen[0].headers["x-api-key"] == ENV["FAKE_API_KEY"]
    assert seen[0].headers["content-type"] == "application/json"
    assert seen[0].headers["accept"] == "text/event-stream"
    assert seen[0].headers["user-agent"].startswith("agentkit/")


def test_the_first_delta_arrives_before_the_body_ends() -> None:
    body = HeldBody([sse({"type": "text", "text": "first"}), text_stream("second")])

    async def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=body)

    async def main():
        runtime = ProviderRuntime(httpx.MockTransport(handler), env=ENV)
        events = []
        async for event in runtime.stream(FakeProvider(), request()):
            events.append(event)
            if isinstance(event, BlockDelta) and event.delta == "first":
                # The body is still held open: only its first chunk was sent.
                assert body.sent == 1
                body.release.set()
        return events

    events = asyncio.run(main())
    assert [e.delta for e in events if isinstance(e, BlockDelta)] == ["first", "second"]
    assert events[-1].message.stop_reason is StopReason.STOP


@pytest.mark.timeout(20)
def test_done_marker_ends_the_stream_even_if_the_body_stays_open() -> None:
    # After [DONE] nothing is read: the held second chunk is never needed.
    body = HeldBody([sse({"type": "text", "text": "a"}) + b"data: [DONE]\n\n", b"data: {x\n\n"])

    async def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=body)

    runtime = ProviderRuntime(httpx.MockTransport(handler), env=ENV)
    events = collect(runtime, FakeProvider(), request())
    assert_one_end_last(events)
    # The fake decoder reports a stream without its end event; a [DONE] read
    # as JSON would have been a decode error instead.
    assert events[-1].message.error_message == "the stream ended before its end event"
    assert body.closed


@pytest.mark.timeout(20)
def test_reading_stops_at_the_end_of_the_message() -> None:
    body = HeldBody([text_stream("all"), b"never sent"])

    async def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=body)

    events = collect(
        ProviderRuntime(httpx.MockTransport(handler), env=ENV), FakeProvider(), request()
    )
    assert_one_end_last(events)
    assert events[-1].message.stop_reason is StopReason.STOP
    assert body.closed


def test_sse_event_names_reach_the_decoder() -> None:
    provider = FakeProvider()
    body = sse({"type": "text", "text": "x"}, event="delta") + sse({"type": "end"}, event="stop")
    collect(ProviderRuntime(httpx.MockTransport(ok(body)), env=ENV), provider, request())
    assert [e.event for e in provider.decoders[0].seen] == ["delta", "stop"]


def test_ndjson_framing() -> None:
    body = b'{"type": "text", "text": "n"}\n{"type": "end", "stop": "stop"}\n'
    runtime = ProviderRuntime(httpx.MockTransport(ok(body, "application/x-ndjson")), env=ENV)
    events = collect(runtime, FakeProvider("ndjson"), request())
    assert events[-1].message.text == "n"
    assert events[-1].message.stop_reason is StopReason.STOP


def test_json_framing_is_one_event() -> None:
    body = b'{"type": "end", "stop": "length"}'
    runtime = ProviderRuntime(httpx.MockTransport(ok(body, "application/json")), env=ENV)
    events = collect(runtime, FakeProvider("json"), request())
    assert_one_end_last(events)
    assert events[-1].message.stop_reason is StopReason.LENGTH


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (
            400,
            b'{"error": {"type": "invalid_request_error", "message": "max_tokens too big"}}',
            "max_tokens too big",
        ),
        (503, b"upstream unavailable", "upstream unavailable"),
        (429, b'{"message": "slow down"}', "slow down"),
    ],
)
def test_an_error_status_is_an_error_message_not_an_exception(status, body, expected) -> None:
    runtime = ProviderRuntime(
        httpx.MockTransport(lambda req: httpx.Response(status, content=body)), env=ENV
    )
    events = collect(runtime, FakeProvider(), request())
    assert_one_end_last(events)
    message = events[-1].message
    assert message.stop_reason is StopReason.ERROR
    assert expected in message.error_message
    assert str(status) in message.error_message


def test_only_the_start_of_a_huge_error_body_is_read() -> None:
    pulled = []

    class Endless(httpx.AsyncByteStream):
        async def __aiter__(self):
            for _ in range(10_000):
                pulled.append(1)
                yield b"x" * 1024

    runtime = ProviderRuntime(
        httpx.MockTransport(lambda req: httpx.Response(500, stream=Endless())), env=ENV
    )
    events = collect(runtime, FakeProvider(), request())
    assert events[-1].message.stop_reason is StopReason.ERROR
    assert len(pulled) <= 65


def test_a_connection_error_is_an_error_message() -> None:
    def handler(req: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused")

    events = collect(
        ProviderRuntime(httpx.MockTransport(handler), env=ENV), FakeProvider(), request()
    )
    assert_one_end_last(events)
    assert events[-1].message.stop_reason is StopReason.ERROR
    assert "connection refused" in events[-1].message.error_message
    assert "fake.example" in events[-1].message.error_message


def test_a_truncated_stream_keeps_the_partial_text_and_is_an_error() -> None:
    body = sse({"type": "text", "text": "partial"}) + b'data: {"type": "end"'
    events = collect(
        ProviderRuntime(httpx.MockTransport(ok(body)), env=ENV), FakeProvider(), request()
    )
    assert_one_end_last(events)
    message = events[-1].message
    assert message.stop_reason is StopReason.ERROR
    assert message.text == "partial"
    assert "middle of an event" in message.error_message


def test_a_body_that_ends_without_the_end_event_is_an_error() -> None:
    body = sse({"type": "text", "text": "partial"})
    events = collect(
        ProviderRuntime(httpx.MockTransport(ok(body)), env=ENV), FakeProvider(), request()
    )
    assert_one_end_last(events)
    assert events[-1].message.stop_reason is StopReason.ERROR


@pytest.mark.parametrize(
    "bad",
    [
        b'data: {"type": "text", "text": "a", "text": "b"}\n\n',
        b"data: {nope}\n\n",
        b"data: NaN\n\n",
    ],
)
def test_undecodable_data_is_an_error_message(bad: bytes) -> None:
    body = sse({"type": "text", "text": "ok"}) + bad + text_stream("never")
    events = collect(
        ProviderRuntime(httpx.MockTransport(ok(body)), env=ENV), FakeProvider(), request()
    )
    assert_one_end_last(events)
    message = events[-1].message
    assert message.stop_reason is StopReason.ERROR
    assert message.text == "ok"
    assert "byte" in message.error_message


def test_a_decoder_that_raises_ends_the_message_as_an_error() -> None:
    body = sse({"type": "text", "text": "ok"}, {"type": "boom"})
    events = collect(
        ProviderRuntime(httpx.MockTransport(ok(body)), env=ENV), FakeProvider(), request()
    )
    assert_one_end_last(events)
    assert events[-1].message.stop_reason is StopReason.ERROR
    assert "KeyError" in events[-1].message.error_message


# A plain event, and the one an agent's run passes (which calls back when set: no waiting task).
ABORT_EVENTS = pytest.mark.parametrize("make_event", [asyncio.Event, AbortEvent], ids=["event", "run-event"])


@ABORT_EVENTS
def test_abort_mid_stream_closes_the_response_and_ends_aborted(make_event) -> None:
    body = HeldBody([sse({"type": "text", "text": "first"}), text_stream("never")])

    async def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=body)

    async def main():
        abort = make_event()
        runtime = ProviderRuntime(httpx.MockTransport(handler), env=ENV)
        events = []
        async for event in runtime.stream(FakeProvider(), request(), abort=abort):
            events.append(event)
            if isinstance(event, BlockDelta):
                abort.set()  # the body never releases its second chunk
        return events

    events = asyncio.run(main())
    assert_one_end_last(events)
    message = events[-1].message
    assert message.stop_reason is StopReason.ABORTED
    assert message.text == "first"
    assert body.closed


@ABORT_EVENTS
def test_abort_before_sending_sends_nothing(make_event) -> None:
    sent = []
    abort = make_event()
    abort.set()
    runtime = ProviderRuntime(
        httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(200)), env=ENV
    )
    events = collect(runtime, FakeProvider(), request(), abort=abort)
    assert_one_end_last(events)
    assert events[-1].message.stop_reason is StopReason.ABORTED
    assert sent == []


def test_a_missing_credential_names_the_variables_to_set() -> None:
    sent = []
    runtime = ProviderRuntime(
        httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(200)), env={}
    )
    events = collect(runtime, FakeProvider(), request())
    assert_one_end_last(events)
    message = events[-1].message.error_message
    assert "FAKE_AUTH_TOKEN" in message and "FAKE_API_KEY" in message
    assert sent == []


def test_a_provider_without_credential_env_needs_none() -> None:
    seen = []
    runtime = ProviderRuntime(
        httpx.MockTransport(
            lambda r: seen.append(r) or httpx.Response(200, content=text_stream("k"))
        ),
        env={},
    )
    events = collect(runtime, KeylessProvider(), request())
    assert events[-1].message.stop_reason is StopReason.STOP
    assert "authorization" not in seen[0].headers and "x-api-key" not in seen[0].headers


def test_cost_is_computed_from_the_model_prices_when_the_decoder_left_it_zero() -> None:
    priced = model(input_price=3.0, output_price=15.0, cache_read_price=0.3, cache_write_price=3.75)
    usage = {"input": 1000, "output": 2000, "cache_read": 10_000, "cache_write": 4000}
    runtime = ProviderRuntime(httpx.MockTransport(ok(text_stream("x", usage=usage))), env=ENV)
    events = collect(runtime, FakeProvider(), request(model=priced))
    expected = (1000 * 3.0 + 2000 * 15.0 + 10_000 * 0.3 + 4000 * 3.75) / 1e6
    assert events[-1].message.usage.cost == pytest.approx(expected)


def test_a_cost_the_decoder_computed_is_kept() -> None:
    priced = model(input_price=3.0, output_price=15.0)
    usage = {"input": 1000, "output": 2000, "cost": 0.5}
    runtime = ProviderRuntime(httpx.MockTransport(ok(text_stream("x", usage=usage))), env=ENV)
    events = collect(runtime, FakeProvider(), request(model=priced))
    assert events[-1].message.usage.cost == 0.5


def test_complete_returns_the_final_message() -> None:
    runtime = ProviderRuntime(httpx.MockTransport(ok(text_stream("whole"))), env=ENV)
    message = asyncio.run(runtime.complete(FakeProvider(), request()))
    assert message.text == "whole"
    assert message.stop_reason is StopReason.STOP


def test_ndjson_lines_before_a_bad_line_are_kept() -> None:
    body = (
        b'{"type": "text", "text": "n"}\n{"type": "te'
        + b'xt", "text": "m"}\n{bad}\n{"type": "end"}\n'
    )
    runtime = ProviderRuntime(httpx.MockTransport(ok(body, "application/x-ndjson")), env=ENV)
    events = collect(runtime, FakeProvider("ndjson"), request())
    assert events[-1].message.text == "nm"
    assert events[-1].message.stop_reason is StopReason.ERROR


def test_a_json_error_answering_a_streaming_request_keeps_its_message() -> None:
    body = b'{"error": {"type": "overloaded_error", "message": "try later"}}'
    runtime = ProviderRuntime(httpx.MockTransport(ok(body, "application/json")), env=ENV)
    events = collect(runtime, FakeProvider(), request())
    assert_one_end_last(events)
    assert events[-1].message.stop_reason is StopReason.ERROR
    assert "try later" in events[-1].message.error_message


def test_a_json_document_answering_a_streaming_request_reaches_the_decoder() -> None:
    body = b'{"type": "end", "stop": "stop"}'
    runtime = ProviderRuntime(httpx.MockTransport(ok(body, "application/json")), env=ENV)
    events = collect(runtime, FakeProvider(), request())
    assert events[-1].message.stop_reason is StopReason.STOP


@pytest.mark.timeout(20)
def test_a_consumer_that_stops_early_closes_the_response() -> None:
    body = HeldBody([sse({"type": "text", "text": "first"}), text_stream("never")])

    async def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=body)

    async def main():
        runtime = ProviderRuntime(httpx.MockTransport(handler), env=ENV)
        stream = runtime.stream(FakeProvider(), request())
        async for event in stream:
            if isinstance(event, BlockDelta):
                break
        await stream.aclose()

    asyncio.run(main())
    assert body.closed


class SilentDecoderProvider(FakeProvider):
    """A broken codec: its decoder never ends the message and talks after the end."""

    def decoder(self, request):
        decoder = super().decoder(request)
        decoder.finish = lambda: []
        return decoder


def test_a_decoder_that_never_ends_the_message_still_yields_one_end() -> None:
    body = sse({"type": "text", "text": "x"})
    events = collect(
        ProviderRuntime(httpx.MockTransport(ok(body)), env=ENV), SilentDecoderProvider(), request()
    )
    assert_one_end_last(events)
    assert events[-1].message.stop_reason is StopReason.ERROR
    assert "without message_end" in events[-1].message.error_message


def test_a_provider_that_cannot_make_a_decoder_still_yields_one_end() -> None:
    class NoDecoder(FakeProvider):
        def decoder(self, request):
            raise RuntimeError("no decoder today")

    events = collect(ProviderRuntime(httpx.MockTransport(ok(b"")), env=ENV), NoDecoder(), request())
    assert_one_end_last(events)
    assert "no decoder today" in events[-1].message.error_message


def test_an_abort_event_that_is_never_set_changes_nothing() -> None:
    body = text_stream("a", "b", "c")
    runtime = ProviderRuntime(
        httpx.MockTransport(lambda req: httpx.Response(200, stream=ChunkedBody(body, 5))), env=ENV
    )

    async def main():
        return await runtime.complete(FakeProvider(), request(), asyncio.Event())

    message = asyncio.run(main())
    assert message.stop_reason is StopReason.STOP
    assert message.text == "abc"


@pytest.mark.timeout(20)
@ABORT_EVENTS
def test_abort_while_waiting_for_the_response_headers(make_event) -> None:
    async def handler(req: httpx.Request) -> httpx.Response:
        await asyncio.sleep(3600)  # a server that never answers
        raise AssertionError("unreachable")

    async def main():
        abort = make_event()
        runtime = ProviderRuntime(httpx.MockTransport(handler), env=ENV)
        asyncio.get_running_loop().call_later(0.05, abort.set)
        return [e async for e in runtime.stream(FakeProvider(), request(), abort=abort)]

    events = asyncio.run(main())
    assert_one_end_last(events)
    assert events[-1].message.stop_reason is StopReason.ABORTED


def test_a_run_event_is_watched_without_a_task() -> None:
    tasks_while_sending: list[int] = []

    def handler(req: httpx.Request) -> httpx.Response:
        tasks_while_sending.append(len(asyncio.all_tasks()))
        return httpx.Response(200, stream=ChunkedBody(text_stream("a", "b"), 7))

    async def main():
        abort = AbortEvent()
        runtime = ProviderRuntime(httpx.MockTransport(handler), env=ENV)
        return [await runtime.complete(FakeProvider(), request(), abort) for _ in range(3)]

    messages = asyncio.run(main())
    assert [m.text for m in messages] == ["ab"] * 3
    assert tasks_while_sending == [1, 1, 1]  # the caller's task only


class ChunkedBody(httpx.AsyncByteStream):
    def __init__(self, data: bytes, size: int) -> None:
        self.chunks = [data[i : i + size] for i in range(0, len(data), size)]

    async def __aiter__(self):
        for chunk in self.chunks:
            await asyncio.sleep(0)
            yield chunk


def test_an_unknown_framing_is_an_error_message_and_nothing_is_sent() -> None:
    sent = []
    runtime = ProviderRuntime(
        httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(200)), env=ENV
    )
    events = collect(runtime, FakeProvider("xml"), request())
    assert_one_end_last(events)
    assert "'xml'" in events[-1].message.error_message
    assert sent == []


def test_a_transport_defect_is_still_an_error_message() -> None:
    class Broken(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request):
            raise ZeroDivisionError("transport bug")

    events = collect(ProviderRuntime(Broken(), env=ENV), FakeProvider(), request())
    assert_one_end_last(events)
    assert "ZeroDivisionError" in events[-1].message.error_message


def test_a_body_the_codec_already_serialized_is_sent_byte_for_byte() -> None:
    raw = b'{"prompt": "hi", "model": "fake-1",   "z": 1.0}'

    class PreSerialized(FakeProvider):
        def encode(self, request):
            wire = super().encode(request)
            wire.body = raw
            return wire

    seen: list[httpx.Request] = []

    def handler(req: httpx.Request) -> httpx.Response:
        seen.append(req)
        return httpx.Response(200, content=text_stream("x"))

    runtime = ProviderRuntime(httpx.MockTransport(handler), env=ENV)
    asyncio.run(runtime.complete(PreSerialized(), request()))
    assert seen[0].content == raw
