"""CORS for the origins the operator allowed (``--allow-origin``), so that a web page there can be a client.

A browser asks first (a preflight: ``OPTIONS`` with ``Access-Control-Request-Method``,
never carrying the API key), then sends the request with the key; it shows the page
an answer only when the answer names the page's origin. So a preflight from an
allowed origin is answered here, before the key is checked, and every answer to a
request from one (a refusal too, so the page can say why) names it and lets the
page read ``Mcp-Session-Id``. Origins allowed only because they are loopback get no
CORS: a browser page is served CORS only when the operator named its origin.
What is answered follows Starlette's ``CORSMiddleware``, which the SDK's
documentation recommends for browser clients (its ``expose_headers=["Mcp-Session-Id"]``).
"""

from __future__ import annotations

from typing import Any

#: What a browser client may send, beyond the CORS-safelisted headers.
ALLOW_HEADERS = ("authorization", "x-api-key", "content-type", "accept", "last-event-id",
                 "mcp-session-id", "mcp-protocol-version", "mcp-method", "mcp-name")
ALLOW_METHODS = "GET, POST, DELETE, OPTIONS"
#: What a page may read of an answer: the session a legacy client must send back.
EXPOSE_HEADERS = "mcp-session-id, mcp-protocol-version"
#: Seconds a browser may keep a preflight's answer (Starlette's default).
MAX_AGE = "600"


def is_preflight(scope: dict[str, Any], headers: dict[str, bytes]) -> bool:
    """Whether the request is a CORS preflight: ``OPTIONS`` with an ``Origin`` and the method it asks for."""
    return scope.get("method") == "OPTIONS" and "origin" in headers and "access-control-request-method" in headers


def preflight_headers(origin: bytes, headers: dict[str, bytes]) -> list[tuple[bytes, bytes]]:
    """The answer to an allowed origin's preflight. Headers it asks for beyond ours are allowed when they are MCP's own
    (``Mcp-*``, such as the 2026-07-28 ``Mcp-Param-*``); the browser refuses the request for any other."""
    asked = {name.strip().lower() for name in headers.get("access-control-request-headers", b"").decode("latin-1").split(",")}
    allowed = [*ALLOW_HEADERS, *sorted(name for name in asked if name.startswith("mcp-") and name not in ALLOW_HEADERS)]
    return [(b"access-control-allow-origin", origin), (b"access-control-allow-methods", ALLOW_METHODS.encode()),
            (b"access-control-allow-headers", ", ".join(allowed).encode("latin-1")),
            (b"access-control-max-age", MAX_AGE.encode()), (b"vary", b"Origin")]


def with_cors(send: Any, origin: bytes) -> Any:
    """A ``send`` that adds the CORS headers for ``origin`` to the answer."""

    async def cors_send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            headers = [(name, value) for name, value in message.get("headers", [])
                       if name.lower() not in (b"access-control-allow-origin", b"access-control-expose-headers")]
            headers += [(b"access-control-allow-origin", origin),
                        (b"access-control-expose-headers", EXPOSE_HEADERS.encode()), (b"vary", b"Origin")]
            message = {**message, "headers": headers}
        await send(message)

    return cors_send
