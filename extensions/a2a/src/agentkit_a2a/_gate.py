"""Who may call the server: the API key, the ``Host`` and the ``Origin``, checked before the SDK sees a request.

The rule is ``agentkit mcp serve``'s: a server on a loopback address may run
without a key (``--no-auth``, said loudly), any other address needs one
(``AGENTKIT_A2A_API_KEY``, at least 16 characters), sent as ``Authorization:
Bearer KEY`` or ``X-API-Key: KEY`` and compared in constant time. The public
Agent Card is served to anyone who reaches the server (discovery is what it is
for); every other request needs the key. A browser page may not call the
server: a request whose ``Origin`` is not a loopback origin is refused (403),
and on a loopback address a ``Host`` that is not a loopback name too (a DNS
rebinding page). A request body is read up to :data:`MAX_BODY_BYTES` (413 past it), and a body that
stops coming for :data:`BODY_TIMEOUT` seconds ends its request, so a slow client cannot hold a connection.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from typing import Any
from urllib.parse import urlsplit

from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH

#: The addresses a server may serve without a key, and the names a loopback ``Host`` may carry.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
#: The shortest API key accepted: 16 characters (about 96 bits as a random token).
MIN_API_KEY_CHARS = 16
#: The largest request body read (a message's text rarely passes a few KB; files are not taken).
MAX_BODY_BYTES = 4 * 1024 * 1024
#: Seconds a request body may go without a byte arriving (as ``agentkit mcp serve``'s).
BODY_TIMEOUT = 20.0

ASGIApp = Any


def check_key_rule(host: str, api_key: str | None, *, no_auth: bool, env: str) -> None:
    """Refuse a server the rule does not allow, naming the fix.

    :raises ValueError: no key off loopback, ``no_auth`` off loopback, or a key too short.
    """
    if no_auth and api_key is None:
        if host not in LOOPBACK_HOSTS:
            raise ValueError(f"--no-auth is refused on {host}: it is for loopback addresses only "
                             f"({', '.join(sorted(LOOPBACK_HOSTS))}); set {env} instead")
        return
    if api_key is None:
        raise ValueError(f"serving A2A needs an API key: set {env} to a long random value (clients send it as "
                         "'Authorization: Bearer KEY'), or pass --no-auth on a loopback address")
    if len(api_key) < MIN_API_KEY_CHARS:  # a short key falls to guessing over a fast local connection
        raise ValueError(f"the API key in {env} has {len(api_key)} characters: use at least {MIN_API_KEY_CHARS} "
                         "random ones (for example: python -c 'import secrets; print(secrets.token_urlsafe(32))')")


class Gate:
    """The checks of the module docstring in front of the SDK's app.

    :param api_key: the key every request but the card's must present; ``None`` serves without one.
    :param loopback: the server is bound to a loopback address (``Host`` is checked too).
    """

    def __init__(self, app: ASGIApp, *, api_key: str | None, loopback: bool,
                 max_body_bytes: int = MAX_BODY_BYTES, body_timeout: float | None = None) -> None:
        self.app = app
        self.body_timeout = BODY_TIMEOUT if body_timeout is None else body_timeout
        self._key = api_key.encode("utf-8") if api_key is not None else None
        self.loopback = loopback
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.decode("latin-1").lower(): value.decode("latin-1")
                   for name, value in scope.get("headers", [])}
        origin = headers.get("origin")
        if origin is not None and _hostname(origin) not in LOOPBACK_HOSTS:
            await _refuse(send, 403, "forbidden: a browser page of another origin may not call this agent")
            return
        if self.loopback and _hostname("//" + headers.get("host", "")) not in LOOPBACK_HOSTS:
            await _refuse(send, 403, "forbidden: this agent answers only to loopback host names")
            return
        is_card = scope.get("method") == "GET" and scope.get("path") == AGENT_CARD_WELL_KNOWN_PATH
        if self._key is not None and not is_card and not self._has_key(headers):
            await _refuse(send, 401, "unauthorized: send the API key as 'Authorization: Bearer KEY'",
                          [(b"www-authenticate", b"Bearer")])
            return
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self.max_body_bytes:
            await _refuse(send, 413, f"the request body is over {self.max_body_bytes} bytes")
            return
        await self.app(scope, self._bounded(receive), send)

    def _has_key(self, headers: dict[str, str]) -> bool:
        assert self._key is not None
        authorization = headers.get("authorization", "")
        scheme, _, token = authorization.partition(" ")
        given = token.strip() if scheme.lower() == "bearer" else headers.get("x-api-key", "")
        return hmac.compare_digest(given.encode("utf-8", "replace"), self._key)

    def _bounded(self, receive: Any) -> Any:
        """``receive`` that ends the request once its body passes the limit (a body sent without a length)
        or stalls past the body timeout."""
        seen, whole = 0, False
        limit, timeout = self.max_body_bytes, self.body_timeout

        async def bounded() -> Any:
            nonlocal seen, whole
            if whole:  # once the body is in, receive() waits for the client to leave (a stream): no deadline
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), timeout)
            except TimeoutError:
                return {"type": "http.disconnect"}
            if message.get("type") == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    return {"type": "http.disconnect"}
                whole = not message.get("more_body", False)
            return message

        return bounded


def _hostname(origin: str) -> str | None:
    try:
        return urlsplit(origin).hostname
    except ValueError:
        return None


async def _refuse(send: Any, status: int, reason: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"error": reason}).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *(extra or [])]})
    await send({"type": "http.response.body", "body": body})
