"""The streamable HTTP transport with the entry's headers, and the era probe kept honest.

The SDK's transport takes a ready HTTP client for headers; this builds it with
the SDK's own factory, so the timeouts and redirect rules stay the SDK's.

One thing is added. The SDK turns any HTTP error status without a JSON-RPC
body into a JSON-RPC error, and ``mode="auto"`` falls back to ``initialize``
on any JSON-RPC error: so a ``503`` or a ``401`` answering ``server/discover``
would make a modern server a legacy one for the whole connection. Those
statuses say nothing about the era (the issue: transport errors are never era
evidence), so a response hook fails the probe with :class:`ProbeNotAnswered`,
which the SDK propagates like a network error instead of falling back. A
``400``, ``404`` or ``405`` stays era evidence: that is how legacy servers
answer a method they do not know.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.inbound import MCP_METHOD_HEADER

#: Statuses that mean "not now" or "not you", whatever the server's era; every 5xx too.
NOT_ERA_EVIDENCE = frozenset({401, 403, 407, 408, 429})
_PROBE = "server/discover"


class ProbeNotAnswered(Exception):
    """The era probe met an HTTP failure that says nothing about the server's era."""


async def _refuse_failed_probe(response: Any) -> None:
    status = response.status_code
    if response.request.headers.get(MCP_METHOD_HEADER) == _PROBE and (status in NOT_ERA_EVIDENCE or status >= 500):
        raise ProbeNotAnswered(f"the server answered the era probe ({_PROBE}) with HTTP {status}, which says "
                               "nothing about its era; not falling back to initialize")


@asynccontextmanager
async def http_transport(url: str, headers: Mapping[str, str]) -> AsyncIterator[Any]:
    """Streams to ``url``, every request carrying ``headers``."""
    http_client = create_mcp_http_client(headers=dict(headers))
    http_client.event_hooks["response"] = [*http_client.event_hooks["response"], _refuse_failed_probe]
    async with http_client, streamable_http_client(url, http_client=http_client) as streams:
        yield streams
