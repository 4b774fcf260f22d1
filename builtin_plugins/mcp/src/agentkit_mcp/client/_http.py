"""The streamable HTTP transport with the entry's headers (an API key, a bearer token).

The SDK's transport takes a ready HTTP client for headers; this builds it with
the SDK's own factory, so the timeouts and redirect rules stay the SDK's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


@asynccontextmanager
async def http_transport(url: str, headers: Mapping[str, str]) -> AsyncIterator[Any]:
    """Streams to ``url``, every request carrying ``headers``."""
    http_client = create_mcp_http_client(headers=dict(headers))
    async with http_client, streamable_http_client(url, http_client=http_client) as streams:
        yield streams
