"""The HTTP client a call hands the SDK: the entry's headers, deadlines, and a cap on what the remote may send."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx


class ResponseTooLarge(Exception):
    """The remote sent more than the entry's ``max_response_bytes`` in one call."""


class _Counted(httpx.AsyncByteStream):
    def __init__(self, stream: Any, budget: list[int], limit: int) -> None:
        self.stream = stream
        self.budget = budget
        self.limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.stream:
            self.budget[0] += len(chunk)
            if self.budget[0] > self.limit:
                raise ResponseTooLarge(f"the remote agent sent more than {self.limit} bytes (max_response_bytes)")
            yield chunk

    async def aclose(self) -> None:
        await self.stream.aclose()


class BoundedTransport(httpx.AsyncBaseTransport):
    """Counts every response byte of one call against ``limit``; past it the read raises :class:`ResponseTooLarge`."""

    def __init__(self, limit: int) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.limit = limit
        self.budget = [0]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        response.stream = _Counted(response.stream, self.budget, self.limit)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def call_client(headers: Mapping[str, str], *, timeout_s: float, connect_timeout_s: float,
                max_response_bytes: int) -> httpx.AsyncClient:
    """An HTTP client for one call: a read may wait up to ``timeout_s`` (a streamed answer's pauses)."""
    return httpx.AsyncClient(headers=dict(headers), transport=BoundedTransport(max_response_bytes),
                             timeout=httpx.Timeout(timeout_s, connect=connect_timeout_s))
