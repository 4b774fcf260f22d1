"""What several server tests share: a client of ``serve_http`` on a free loopback port."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anyio
import pytest

#: The API key the HTTP tests serve with.
KEY = "k" * 32


@pytest.fixture
def http_client() -> Callable[..., AbstractAsyncContextManager[Any]]:
    """``async with http_client(server, mode=..., **callbacks) as client``: ``server`` served over
    streamable HTTP on a free port, and an authorised SDK client of it; both end with the block."""

    @asynccontextmanager
    async def connected(server: Any, *, mode: str, **client_options: Any) -> AsyncIterator[Any]:
        import httpx2
        from agentkit_mcp_server import serve_http
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        bound: list[str] = []
        listening = anyio.Event()

        def ready(url: str) -> None:
            bound.append(url)
            listening.set()

        async with anyio.create_task_group() as group:
            group.start_soon(lambda: serve_http(server, port=0, api_key=KEY, on_ready=ready))
            with anyio.fail_after(60):
                await listening.wait()
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}) as http, \
                    Client(streamable_http_client(bound[0], http_client=http), mode=mode,
                           **client_options) as client:
                yield client
            group.cancel_scope.cancel()

    return connected
