"""MCP over streamable HTTP: the SDK's endpoint behind the server's own gate.

The gate is an ASGI middleware that runs before the SDK sees a byte of the
request, in this order: a browser's CORS preflight for an origin the operator
allowed (answered without the key, which a preflight never carries; see
:mod:`._cors`), the API key (401 without it, compared in constant
time), the ``Origin`` (403 unless it is a loopback origin or one the operator
allowed, compared by scheme, host and port, not by prefix), then the body,
read up to the size limit (413 past it, never held whole) within the body
timeout (408 when it stalls) and scanned for nesting depth (400 with
``-32600``) before anything parses it; a request whose id is not a string or
an integer is answered 400 with ``-32600`` too, where the SDK would drop it. Both eras are
served on the one endpoint: the SDK serves each request in the era its
headers and envelope name, with a session for a legacy client.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import anyio

from ._cors import is_preflight, preflight_headers, with_cors
from ._frames import depth_exceeds, has_bad_id
from ._limits import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_FRAME_BYTES,
    LOOPBACK_HOSTS,
)

log = logging.getLogger("agentkit_mcp_server")

MCP_PATH = "/mcp"

ASGIApp = Any


class Gate:
    """The API key, ``Origin`` and body checks in front of an ASGI app; see the module docstring.

    :param app: the SDK's app.
    :param api_key: the key every request must present (``Authorization: Bearer KEY``
        or ``X-API-Key: KEY``); ``None`` only for an explicit ``--no-auth``.
    :param allowed_origins: origins allowed besides loopback ones (which need a port), as
        ``scheme://host[:port]``; a port of ``*`` allows any explicit port, none only the
        origin without one. Browser pages of these origins are served CORS.
    :param body_timeout: seconds the body may go without a byte arriving (then 408).
    """

    def __init__(self, app: ASGIApp, *, api_key: str | None, allowed_origins: Iterable[str] = (),
                 max_body_bytes: int = DEFAULT_MAX_FRAME_BYTES, max_depth: int = DEFAULT_MAX_DEPTH,
                 body_timeout: float = DEFAULT_BODY_TIMEOUT) -> None:
        self.app = app
        self.body_timeout = body_timeout
        self._key = api_key.encode("utf-8") if api_key is not None else None
        self.allowed = [_origin_parts(origin) for origin in allowed_origins]
        self.max_body_bytes = max_body_bytes
        self.max_depth = max_depth

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.decode("latin-1").lower(): value for name, value in scope.get("headers", [])}
        origin = headers.get("origin")
        cors = origin is not None and self._cors_allowed(origin.decode("latin-1"))
        if is_preflight(scope, headers):  # a browser asking first: it never sends the key with this
            if cors:
                await _respond_empty(send, 204, preflight_headers(origin or b"", headers))
            else:
                await _respond(send, 403, {"error": "forbidden: a browser page of this Origin may not call the server "
                                                    "(agentkit mcp serve --allow-origin ORIGIN)"})
            return
        if cors:
            send = with_cors(send, origin or b"")
        if not self._authorized(headers):
            await _respond(send, 401, {"error": "unauthorized: send the server's API key as 'Authorization: Bearer KEY'"},
                           extra=[(b"www-authenticate", b'Bearer realm="agentkit-mcp"')])
            return
        if origin is not None and not self._origin_allowed(origin.decode("latin-1")):
            await _respond(send, 403, {"error": "forbidden: this Origin is not allowed (agentkit mcp serve --allow-origin)"})
            return
        if scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        declared = headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_body_bytes):
            await _respond(send, 413, _rpc_error(f"the request body is larger than {self.max_body_bytes} bytes"))
            return
        body, more = bytearray(), True
        while more:
            message = None
            with anyio.move_on_after(self.body_timeout):
                message = await receive()
            if message is None:  # a body that stops coming holds its connection: free it
                log.warning("answered 408 to requests whose body stalled %g s (--body-timeout)", self.body_timeout)
                await _respond(send, 408, _rpc_error(f"the request body stalled for {self.body_timeout:g} s "
                                                     "(--body-timeout); send the whole body at once"),
                               extra=[(b"connection", b"close")])
                return
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_body_bytes:
                await _respond(send, 413, _rpc_error(f"the request body is larger than {self.max_body_bytes} bytes"))
                return
        if depth_exceeds(body, self.max_depth):
            await _respond(send, 400, _rpc_error(f"the message nests deeper than {self.max_depth} levels"))
            return
        if _has_bad_id(body):  # the SDK takes such a request for a notification and answers 202, never the request
            await _respond(send, 400, _rpc_error("Invalid Request: an id is a string or an integer"))
            return
        await self.app(scope, _replay(bytes(body), receive), send)

    def _authorized(self, headers: dict[str, bytes]) -> bool:
        if self._key is None:
            return True
        presented = headers.get("x-api-key")
        authorization = headers.get("authorization", b"")
        if presented is None and authorization[:7].lower() == b"bearer ":
            presented = authorization[7:].strip()
        return presented is not None and hmac.compare_digest(presented, self._key)

    def _origin_allowed(self, origin: str) -> bool:
        """A loopback origin with a port (the SDK's ``http://localhost:*``), or one the operator allowed."""
        try:
            scheme, host, port = _origin_parts(origin)
        except ValueError:
            return False
        if scheme in ("http", "https") and host in LOOPBACK_HOSTS and port:
            return True
        return self._configured(scheme, host, port)

    def _cors_allowed(self, origin: str) -> bool:
        """Only an origin the operator allowed is served CORS, never one allowed for being loopback."""
        try:
            return self._configured(*_origin_parts(origin))
        except ValueError:
            return False

    def _configured(self, scheme: str, host: str, port: str) -> bool:
        # As the SDK matches: an entry without a port allows the origin without one, ``:*`` any explicit port.
        return any(scheme == a_scheme and host == a_host and (a_port == port or (a_port == "*" and port != ""))
                   for a_scheme, a_host, a_port in self.allowed)


def _origin_parts(origin: str) -> tuple[str, str, str]:
    """``(scheme, host, port)`` of an origin; ``ValueError`` for anything that is not one."""
    parts = urlsplit(origin.strip())
    if not parts.scheme or not parts.netloc or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"not an origin: {origin!r}")
    if "@" in parts.netloc or parts.netloc.endswith(":"):  # an empty port is no port, and no origin
        raise ValueError(f"not an origin: {origin!r}")
    host = (parts.hostname or "").lower()
    netloc = parts.netloc.lower()
    if netloc.endswith(":*"):
        return parts.scheme.lower(), host, "*"
    port = parts.port  # raises ValueError for a port that is not a number
    return parts.scheme.lower(), host, str(port) if port is not None else ""


def _rpc_error(message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}


async def _respond(send: Any, status: int, body: dict[str, Any], extra: list[tuple[bytes, bytes]] | None = None) -> None:
    payload = json.dumps(body).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()), *(extra or [])]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


async def _respond_empty(send: Any, status: int, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-length", b"0"), *headers]})
    await send({"type": "http.response.body", "body": b""})


def _has_bad_id(body: bytes | bytearray) -> bool:
    try:
        return has_bad_id(json.loads(body))
    except (ValueError, RecursionError):  # not JSON: the SDK answers that with its parse error
        return False


def _replay(body: bytes, receive: Any) -> Any:
    """A ``receive`` that hands the app the body already read, then the client's later messages."""
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
