"""Vendor faults from a real loopback server, through the real runtime and real wire codecs.

Each fault is what a vendor, a gateway or the network does in the wild: an
error status with the vendor's body, ``Retry-After``, a stream cut short, a
stall, keep-alive comments forever, a content type that lies, invalid JSON, a
stream past the response's limits, a connection reset, a duplicated tool-call
id. Each runs against the Anthropic Messages and the OpenAI Chat Completions
wires (the installed provider plugins, found by entry point), and must end
with exactly one ``message_end`` whose error says what happened: never a
hang, never an exception. Every server loop is bounded in count and in time,
and the runtime runs with a small request deadline and one retry (so that
the retry path meets every fault too). Keep-alive traffic forever, which
needs nothing of a wire's format, also runs against every other installed wire.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Awaitable, Callable

import pytest
from _loopback import LoopbackServer, Request, head, reset, response

from agentkit.host import PluginHost
from agentkit.host.runtime import ProviderRuntime, ResponseLimits, RetryPolicy
from agentkit.plugin_api import MessageEnd, MessageStart, ProviderRequest, StopReason, UserMessage

DEADLINE = 2.0
#: The deadline of the faults that end only by it (a stall, keep-alive forever): what they assert holds at any
#: deadline, and each waits it out in full. The others keep the generous one, which a loaded machine never meets.
STALL_DEADLINE = 0.5
ENV = {"ANTHROPIC_API_KEY": "sk-ant-fault-0123456789", "OPENAI_API_KEY": "sk-fault-0123456789",
       "GEMINI_API_KEY": "AIza-fault-0123456789"}
HOST = PluginHost.discover()


def sse(event: str | None, data: dict | str) -> bytes:
    text = data if isinstance(data, str) else json.dumps(data)
    return (f"event: {event}\n" if event else "").encode() + f"data: {text}\n\n".encode()


class Anthropic:
    api = "anthropic-messages"

    @staticmethod
    def start() -> bytes:
        message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [],
                   "stop_reason": None, "usage": {"input_tokens": 3, "output_tokens": 1}}
        return sse("message_start", {"type": "message_start", "message": message}) + sse(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        )

    @staticmethod
    def delta(text: str) -> bytes:
        return sse("content_block_delta",
                   {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}})

    @staticmethod
    def end() -> bytes:
        return (
            sse("content_block_stop", {"type": "content_block_stop", "index": 0})
            + sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                                    "usage": {"output_tokens": 2}})
            + sse("message_stop", {"type": "message_stop"})
        )

    @staticmethod
    def two_calls_one_id() -> bytes:
        out = b""
        for index in (0, 1):
            out += sse("content_block_start", {"type": "content_block_start", "index": index,
                                               "content_block": {"type": "tool_use", "id": "toolu_same",
                                                                 "name": "rm", "input": {}}})
            out += sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                               "delta": {"type": "input_json_delta", "partial_json": "{}"}})
            out += sse("content_block_stop", {"type": "content_block_stop", "index": index})
        message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [],
                   "stop_reason": None, "usage": {"input_tokens": 3, "output_tokens": 1}}
        return (sse("message_start", {"type": "message_start", "message": message}) + out
                + sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
                                        "usage": {"output_tokens": 2}})
                + sse("message_stop", {"type": "message_stop"}))

    @staticmethod
    def error_body(message: str) -> bytes:
        return json.dumps({"type": "error", "error": {"type": "overloaded_error", "message": message}}).encode()


class OpenAIChat:
    api = "openai-completions"

    @staticmethod
    def _chunk(delta: dict, finish: str | None = None) -> bytes:
        return sse(None, {"id": "c1", "object": "chat.completion.chunk", "model": "m",
                          "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    @classmethod
    def start(cls) -> bytes:
        return cls._chunk({"role": "assistant", "content": ""})

    @classmethod
    def delta(cls, text: str) -> bytes:
        return cls._chunk({"content": text})

    @classmethod
    def end(cls) -> bytes:
        return cls._chunk({}, "stop") + b"data: [DONE]\n\n"

    @classmethod
    def two_calls_one_id(cls) -> bytes:
        calls = [{"index": i, "id": "call_same", "type": "function", "function": {"name": "rm", "arguments": "{}"}}
                 for i in (0, 1)]
        return cls._chunk({"role": "assistant", "tool_calls": calls}) + cls._chunk({}, "tool_calls") + b"data: [DONE]\n\n"

    @staticmethod
    def error_body(message: str) -> bytes:
        return json.dumps({"error": {"type": "server_error", "message": message, "code": None}}).encode()


WIRES = [Anthropic, OpenAIChat]
STREAM = {"content-type": "text/event-stream", "connection": "close"}


async def bounded_sleep(seconds: float) -> None:
    await asyncio.sleep(min(seconds, 30))


Fault = Callable[[type, Request, asyncio.StreamWriter], Awaitable[None]]


def fault_status(status: int, **headers: str) -> Fault:
    async def serve(wire, req, writer):
        writer.write(response(status, wire.error_body(f"vendor says {status}"), **headers))

    return serve


async def fault_truncated_length(wire, req, writer):
    body = wire.start() + wire.delta("partial")
    writer.write(head(200, {"content-type": "text/event-stream", "content-length": str(len(body) + 5000)}) + body)
    await writer.drain()
    writer.close()


async def fault_truncated_close(wire, req, writer):
    writer.write(head(200, STREAM) + wire.start() + wire.delta("partial") + b'data: {"type": "con')
    await writer.drain()
    writer.close()


async def fault_stall_after_headers(wire, req, writer):
    writer.write(head(200, STREAM) + wire.start())
    await writer.drain()
    await bounded_sleep(30)


async def fault_stall_before_headers(wire, req, writer):
    await bounded_sleep(30)


async def fault_keep_alive_only(wire, req, writer):
    writer.write(head(200, STREAM) + wire.start())
    for _ in range(600):  # at most 30 s of pings
        writer.write(b": ping\n\n")
        await writer.drain()
        await asyncio.sleep(0.05)


async def fault_lying_content_type(wire, req, writer):
    body = wire.error_body("vendor says overloaded")
    writer.write(head(200, {"content-type": "text/event-stream", "content-length": str(len(body))}) + body)


async def fault_invalid_json(wire, req, writer):
    writer.write(head(200, STREAM) + wire.start() + wire.delta("before") + b"data: {not json\n\n" + wire.end())


async def fault_oversize(wire, req, writer):
    writer.write(head(200, STREAM) + wire.start())
    piece = wire.delta("y" * 4000)
    for _ in range(5000):  # 20 MB at most
        writer.write(piece)
        await writer.drain()


async def fault_reset_before_response(wire, req, writer):
    reset(writer)


async def fault_reset_mid_stream(wire, req, writer):
    writer.write(head(200, STREAM) + wire.start() + wire.delta("partial"))
    await writer.drain()
    await asyncio.sleep(0.05)
    reset(writer)


async def fault_empty_reply(wire, req, writer):
    writer.close()


async def fault_duplicate_tool_call_id(wire, req, writer):
    writer.write(head(200, STREAM) + wire.two_calls_one_id())


async def fault_error_event_mid_stream(wire, req, writer):
    if wire is Anthropic:
        event = sse("error", {"type": "error", "error": {"type": "overloaded_error", "message": "vendor says overloaded"}})
    else:
        event = sse(None, {"error": {"message": "vendor says overloaded", "type": "server_error"}})
    writer.write(head(200, STREAM) + wire.start() + wire.delta("partial") + event)


# fault -> words the final error message must contain (any one of each tuple).
FAULTS: dict[str, tuple[Fault, tuple[tuple[str, ...], ...]]] = {
    "400 with vendor body": (fault_status(400), (("400",), ("vendor says 400",))),
    "401 with vendor body": (fault_status(401), (("401",), ("vendor says 401",))),
    "429 retry-after too long": (fault_status(429, retry_after="3600"), (("429",), ("3600",))),
    "500 with vendor body": (fault_status(500), (("500",), ("vendor says 500",))),
    "529 overloaded": (fault_status(529), (("529",), ("vendor says 529",))),
    "truncated (content-length)": (fault_truncated_length, (("broke", "ended", "incomplete", "Incomplete"),)),
    "truncated (closed mid-event)": (fault_truncated_close, (("ended", "truncated", "middle"),)),
    "stall after headers": (fault_stall_after_headers, (("request_timeout",),)),
    "stall before headers": (fault_stall_before_headers, (("request_timeout",),)),
    "keep-alive only": (fault_keep_alive_only, (("request_timeout",),)),
    "lying content type": (fault_lying_content_type, (("vendor says overloaded",),)),
    "invalid json": (fault_invalid_json, (("invalid JSON",),)),
    "oversize stream": (fault_oversize, (("limit",), ("response_limits",))),
    "reset before response": (fault_reset_before_response, (("reach", "broke", "connection"),)),
    "reset mid-stream": (fault_reset_mid_stream, (("broke", "ended", "connection"),)),
    "empty reply": (fault_empty_reply, (("reach", "broke", "connection", "disconnected"),)),
    "duplicate tool-call id": (fault_duplicate_tool_call_id, (("twice",), ("same",))),
    "error event mid-stream": (fault_error_event_mid_stream, (("vendor says overloaded",),)),
}
#: The faults that end only at the request deadline.
STALLS = {"stall after headers", "stall before headers", "keep-alive only"}


def play(wire, serve: Fault, *, retry: RetryPolicy | None = None,
         deadline: float = DEADLINE) -> tuple[list, LoopbackServer]:
    async def handler(req, writer):
        await serve(wire, req, writer)

    provider = HOST.providers[wire.api]
    with LoopbackServer(handler) as server:
        model = dataclasses.replace(provider.catalog()[0], base_url=server.url)
        runtime = ProviderRuntime(
            env=ENV,
            request_timeout=deadline,
            retry=retry,
            response_limits=ResponseLimits(text_bytes=100_000),
        )
        request = ProviderRequest(model=model, messages=[UserMessage.text("hi")], max_tokens=100)

        async def main():
            return [event async for event in runtime.stream(provider, request)]

        events = asyncio.run(main())
    return events, server


@pytest.mark.timeout(60)
@pytest.mark.parametrize("wire", WIRES, ids=lambda w: w.api)
def test_a_well_formed_stream_through_the_loopback_server(wire) -> None:
    async def serve(wire, req, writer):
        writer.write(head(200, STREAM) + wire.start() + wire.delta("Hel") + wire.delta("lo") + wire.end())

    events, server = play(wire, serve)
    message = events[-1].message
    assert message.stop_reason is StopReason.STOP, message.error_message
    assert message.text == "Hello"
    assert len(server.requests) == 1


@pytest.mark.timeout(60)
@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("wire", WIRES, ids=lambda w: w.api)
def test_each_vendor_fault_ends_in_one_clear_error(wire, fault) -> None:
    serve, expected = FAULTS[fault]
    events, _ = play(wire, serve, retry=RetryPolicy(max_retries=1, initial_backoff=0.01),
                     deadline=STALL_DEADLINE if fault in STALLS else DEADLINE)
    assert isinstance(events[0], MessageStart)
    assert isinstance(events[-1], MessageEnd)
    assert sum(isinstance(e, MessageEnd) for e in events) == 1
    message = events[-1].message
    assert message.stop_reason is StopReason.ERROR
    for words in expected:
        assert any(word in message.error_message for word in words), (fault, message.error_message)
    assert not message.tool_calls or len({c.id for c in message.tool_calls}) == len(message.tool_calls)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("wire", WIRES, ids=lambda w: w.api)
def test_retry_after_is_honoured_then_the_answer_arrives(wire) -> None:
    calls = []

    async def serve(wire, req, writer):
        calls.append(req)
        if len(calls) == 1:
            writer.write(response(429, wire.error_body("slow down"), retry_after_ms="50"))
        else:
            writer.write(head(200, STREAM) + wire.start() + wire.delta("ok") + wire.end())

    events, server = play(wire, serve, retry=RetryPolicy(max_retries=2))
    assert events[-1].message.stop_reason is StopReason.STOP
    assert events[-1].message.text == "ok"
    assert len(server.requests) == 2


class _Wire:
    """Any installed wire, for faults that need nothing of its format."""

    def __init__(self, api: str) -> None:
        self.api = api


#: Each wire's keep-alive: a comment on SSE, an empty line on NDJSON (Ollama).
OTHER_WIRES = sorted(set(HOST.providers) - {"faux"} - {wire.api for wire in WIRES})


@pytest.mark.timeout(60)
@pytest.mark.parametrize("api", OTHER_WIRES)
def test_keep_alive_traffic_never_extends_the_request_deadline_on_any_wire(api: str) -> None:
    ndjson = api == "ollama-chat"

    async def serve(wire, req, writer):
        writer.write(head(200, {"content-type": "application/x-ndjson" if ndjson else "text/event-stream",
                                "connection": "close"}))
        for _ in range(600):  # at most 30 s of keep-alive
            writer.write(b"\n" if ndjson else b": ping\n\n")
            await writer.drain()
            await asyncio.sleep(0.05)

    events, _ = play(_Wire(api), serve, deadline=STALL_DEADLINE)
    assert sum(isinstance(e, MessageEnd) for e in events) == 1
    message = events[-1].message
    assert message.stop_reason is StopReason.ERROR
    assert "request_timeout" in message.error_message, message.error_message
