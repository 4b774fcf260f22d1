"""A tiny provider codec over a trivial JSON event format, for runtime tests.

Wire format: the request body is ``{"model": ..., "prompt": ...}``; the
response is a stream of ``{"type": "text", "text": ...}`` events and one
``{"type": "end", "stop": ..., "usage": {...}}``. It exists so the runtime is
tested without depending on any real codec.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any, ClassVar

import httpx

from agentkit.plugin_api import (
    Credential,
    MessageAssembler,
    ModelInfo,
    ProviderEvent,
    ProviderRequest,
    StopReason,
    TextBlock,
    UserMessage,
    WireEvent,
    WireRequest,
)


class Chunks(httpx.AsyncByteStream):
    """A response body that arrives in the given pieces."""

    def __init__(self, parts: list[bytes]) -> None:
        self.parts = parts

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for part in self.parts:
            yield part


class FakeDecoder:
    def __init__(self, model: ModelInfo) -> None:
        self.assembler = MessageAssembler(provider=model.vendor, api="fake", model=model.id)
        self.block: int | None = None
        self.seen: list[WireEvent] = []

    def feed(self, event: WireEvent) -> list[ProviderEvent]:
        self.seen.append(event)
        data = event.data
        if data.get("type") == "text":
            events: list[ProviderEvent] = []
            if self.block is None:
                self.block, events = self.assembler.start_block("text")
            return events + self.assembler.delta(self.block, data["text"])
        if data.get("type") == "end":
            usage = data.get("usage", {})
            self.assembler.usage.input = usage.get("input", 0)
            self.assembler.usage.output = usage.get("output", 0)
            self.assembler.usage.cache_read = usage.get("cache_read", 0)
            self.assembler.usage.cache_write = usage.get("cache_write", 0)
            self.assembler.usage.cost = usage.get("cost", 0.0)
            return self.assembler.finish(StopReason(data.get("stop", "stop")), data.get("stop"))
        if data.get("type") == "boom":
            raise KeyError("boom")
        return self.assembler.start()

    def finish(self) -> list[ProviderEvent]:
        if self.assembler.ended:
            return []
        return self.assembler.fail(StopReason.ERROR, "the stream ended before its end event")

    def fail(self, stop_reason: StopReason, error_message: str) -> list[ProviderEvent]:
        return self.assembler.fail(stop_reason, error_message)


class FakeProvider:
    api: ClassVar[str] = "fake"
    credential_env: ClassVar[tuple[tuple[str, str], ...]] = (
        ("FAKE_AUTH_TOKEN", "bearer"),
        ("FAKE_API_KEY", "api_key"),
    )

    def __init__(self, framing: str = "sse", path: str = "/v1/generate") -> None:
        self.framing = framing
        self.path = path
        self.decoders: list[FakeDecoder] = []

    def auth_headers(self, credential: Credential) -> dict[str, str]:
        if credential.kind == "api_key":
            return {"x-api-key": credential.value}
        return {"Authorization": f"Bearer {credential.value}"}

    def catalog(self) -> list[ModelInfo]:
        return [model()]

    def encode(self, request: ProviderRequest) -> WireRequest:
        prompt = request.messages[-1].content[0].text
        return WireRequest(
            self.path,
            {"model": request.model.id, "prompt": prompt},
            headers={"x-fake-version": "1"},
            framing=self.framing,
        )

    def decoder(self, request: ProviderRequest) -> FakeDecoder:
        decoder = FakeDecoder(request.model)
        self.decoders.append(decoder)
        return decoder


class KeylessProvider(FakeProvider):
    credential_env: ClassVar[tuple[tuple[str, str], ...]] = ()


def model(**fields: Any) -> ModelInfo:
    values: dict[str, Any] = {
        "vendor": "fakevendor",
        "id": "fake-1",
        "api": "fake",
        "base_url": "https://fake.example/api/",
        "context_window": 1000,
        "max_output": 100,
    }
    values.update(fields)
    return ModelInfo(**values)


def request(prompt: str = "hi", **fields: Any) -> ProviderRequest:
    return ProviderRequest(
        model=fields.pop("model", None) or model(), messages=[UserMessage.text(prompt)], **fields
    )


def sse(*events: dict[str, Any], event: str | None = None) -> bytes:
    out = b""
    for item in events:
        if event:
            out += f"event: {event}\n".encode()
        out += b"data: " + json.dumps(item).encode() + b"\n\n"
    return out


def text_stream(*texts: str, usage: dict[str, Any] | None = None) -> bytes:
    return sse(
        *[{"type": "text", "text": t} for t in texts],
        {"type": "end", "stop": "stop", "usage": usage or {}},
    )


class HeldBody(httpx.AsyncByteStream):
    """A response body whose chunks are released one at a time by the test."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks
        self.release = asyncio.Event()
        self.sent = 0
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            if self.sent >= 1:
                await self.release.wait()
                self.release.clear()
            self.sent += 1
            yield chunk

    async def aclose(self) -> None:
        self.closed = True


def ok(
    body: bytes, content_type: str = "text/event-stream"
) -> Callable[[httpx.Request], httpx.Response]:
    def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": content_type}, content=body)

    return handler


def text_of(events: list[ProviderEvent]) -> str:
    return "".join(
        block.text for block in events[-1].message.content if isinstance(block, TextBlock)
    )
