"""A body whose content type lies still yields the vendor's message.

Gateways answer a streaming request with a JSON error document and a 200
status, labelled ``text/event-stream``. Read as SSE it is one unterminated
line, a "truncated stream", and the vendor's message would be lost.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from _runtime_fakes import Chunks, FakeProvider, request

from agentkit.host.runtime import ProviderRuntime
from agentkit.plugin_api import StopReason

ENV = {"FAKE_API_KEY": "sk-fake-0123456789abcdef"}
ERROR = b'{"error": {"type": "overloaded_error", "message": "Overloaded, try again soon"}}'


def final(body: bytes, content_type: str = "text/event-stream", status: int = 200, chunk: int = 0):
    def handler(req: httpx.Request) -> httpx.Response:
        if chunk:
            parts = [body[i : i + chunk] for i in range(0, len(body), chunk)]
            return httpx.Response(status, headers={"content-type": content_type}, stream=Chunks(parts))
        return httpx.Response(status, headers={"content-type": content_type}, content=body)

    async def main():
        runtime = ProviderRuntime(httpx.MockTransport(handler), env=ENV)
        return [event async for event in runtime.stream(FakeProvider(), request())]

    return asyncio.run(main())[-1].message


@pytest.mark.parametrize("chunk", [0, 1, 7])
@pytest.mark.parametrize("prefix", [b"", b"\n", b"  \r\n", b"\xef\xbb\xbf"])
def test_a_json_error_labelled_event_stream_keeps_the_vendor_message(prefix: bytes, chunk: int) -> None:
    message = final(prefix + ERROR, chunk=chunk)
    assert message.stop_reason is StopReason.ERROR
    assert "Overloaded, try again soon" in message.error_message


@pytest.mark.parametrize("content_type", ["text/plain", "text/html", "application/octet-stream", ""])
def test_a_json_error_under_any_label_keeps_the_vendor_message(content_type: str) -> None:
    message = final(ERROR, content_type=content_type)
    assert "Overloaded, try again soon" in message.error_message


def test_a_json_document_labelled_event_stream_reaches_the_decoder() -> None:
    message = final(b'{"type": "end", "stop": "length"}')
    assert message.stop_reason is StopReason.LENGTH


def test_an_error_status_labelled_event_stream_keeps_the_vendor_message() -> None:
    message = final(ERROR, status=529)
    assert "529" in message.error_message and "Overloaded, try again soon" in message.error_message


def test_a_real_event_stream_is_still_read_as_one() -> None:
    body = b'data: {"type": "text", "text": "hi"}\n\ndata: {"type": "end", "stop": "stop"}\n\n'
    message = final(body)
    assert message.stop_reason is StopReason.STOP and message.text == "hi"
