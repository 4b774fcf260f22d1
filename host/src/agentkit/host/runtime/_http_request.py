"""The httpx request of each exchange, built as ``AsyncClient.build_request`` builds it, for less.

``build_request`` merges the client's headers with the request's, parses the
URL again, and lets ``httpx.Request`` add ``Host`` and ``Content-Length``
through ``setdefault``, which raises and catches a ``KeyError`` for each: about
a tenth of a turn's cost against an in-process transport. A provider sends the
same headers to the same URL on every turn, so :class:`RequestFactory` keeps
the merged headers (``Host`` first, where httpx puts it) per client header set,
request header set and URL, and adds only ``Content-Length`` per request. The
request is the same one: method, URL, headers and their order, body, timeout
extension. :meth:`RequestFactory.auth` spares ``AsyncClient.send`` parsing the
URL's user and password again on every request when it has none and the
client no auth of its own. Whatever ``build_request`` would merge that the shortcut does not
(the client's cookies or query parameters, a relative URL, headers that set
``Host`` or the body's length themselves) goes through ``build_request``.
"""

from __future__ import annotations

from typing import Any

import httpx

__all__ = ["RequestFactory"]

#: The auth ``AsyncClient.send`` picks for a client without auth and a URL without user or password.
_NO_AUTH = httpx.Auth()

#: The URLs and header sets kept (a session talks to a handful).
_MAX_KEPT = 64

#: Headers the shortcut writes itself; a request that sets one is built by httpx.
_AUTOMATIC = frozenset({"host", "content-length", "transfer-encoding"})

_HeadersKey = tuple[tuple[tuple[bytes, bytes], ...], tuple[tuple[str, str], ...], str]


class RequestFactory:
    """Builds each ``httpx.Request``; one per runtime."""

    def __init__(self) -> None:
        self._urls: dict[str, httpx.URL] = {}  # each URL parsed once, not on every request
        self._plain: set[str] = set()  # the URLs kept whose userinfo is empty
        # None: a header set the shortcut leaves to build_request.
        self._headers: dict[_HeadersKey, httpx.Headers | None] = {}

    def build(
        self, client: httpx.AsyncClient, method: str, url: str, headers: dict[str, str], body: bytes
    ) -> httpx.Request:
        """The request ``client.build_request(method, url, headers=headers, content=body or None)`` makes."""
        parsed = self._urls.get(url)
        if parsed is None:
            if len(self._urls) >= _MAX_KEPT:
                self._urls.clear()
                self._plain.clear()
            parsed = self._urls[url] = httpx.URL(url)
            if parsed.is_absolute_url and not parsed.userinfo:  # a relative one takes the client's base URL's
                self._plain.add(url)
        merged = None
        if body and not client.cookies and not client.params:
            merged = self._merged(client, parsed, url, headers)
        if merged is None:
            return client.build_request(method, parsed, headers=headers, content=body or None)
        request = httpx.Request(
            method,
            parsed,
            headers=merged,
            # A stream, not content: content would add Host and Content-Length through setdefault.
            stream=httpx.ByteStream(body),
            extensions={"timeout": client.timeout.as_dict()},
        )
        request.headers["Content-Length"] = str(len(body))
        request.read()  # as httpx does for content given as bytes: request.content is there at once
        return request

    def auth(self, client: httpx.AsyncClient, url: str) -> Any:  # an httpx.Auth, or httpx.USE_CLIENT_DEFAULT
        """The ``auth`` to give ``client.send`` for a request to ``url`` built by :meth:`build`.

        The one ``send`` would pick itself (no auth) when the client has none and
        ``url`` carries no user or password; otherwise the client's default.
        """
        if client.auth is None and url in self._plain:
            return _NO_AUTH
        return httpx.USE_CLIENT_DEFAULT

    def _merged(
        self, client: httpx.AsyncClient, parsed: httpx.URL, url: str, headers: dict[str, str]
    ) -> httpx.Headers | None:
        """The client's headers updated with ``headers``, after ``Host``; ``None``: not the shortcut's."""
        key = (tuple(client.headers.raw), tuple(headers.items()), url)
        if key in self._headers:
            return self._headers[key]
        if len(self._headers) >= _MAX_KEPT:
            self._headers.clear()
        merged = httpx.Headers(client.headers)
        merged.update(headers)
        kept = None
        if parsed.is_absolute_url and parsed.host and not _AUTOMATIC.intersection(map(str.lower, merged)):
            kept = httpx.Headers([(b"Host", parsed.netloc), *merged.raw])
        self._headers[key] = kept
        return kept
