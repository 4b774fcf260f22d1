"""How long a connection's tool list holds: the server's ``ttlMs``, bounded, and list-changed notices.

A modern (2026-07-28) server says in every ``tools/list`` result how long it
stays fresh (``ttlMs``). Once that ran out, the next call to one of the
server's tools lists them again first (``ServerConnection.relist``), so tools
a server added or removed without notifying are seen in the same session.
A listing without ``ttlMs`` (every legacy server; a modern one that leaves it
out) holds until a list-changed notice, as the hint is only read on the
modern era (like the SDK's own cache).

``ttlMs: 0`` (the SDK server's default) means "stale at once"; re-listing
before every call of a hot loop would double its round trips, so a listing
is never read again sooner than :data:`MIN_RELIST_INTERVAL_S` after the last
one, whatever the TTL: at most one ``tools/list`` per second per server from
expiry. A failed re-list keeps the last listing (the spec allows serving
stale entries) and is retried after the same interval.

``cacheScope`` needs nothing more here: the listing is kept per connection,
and a connection is one authorization context (its entry's headers or
environment), so a ``private`` list is never shared and a ``public`` one is
not widened.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from mcp.client.caching import MAX_TTL_MS

MIN_RELIST_INTERVAL_S = 1.0
"""The shortest time between two ``tools/list`` of one server that an expired TTL causes."""


class ToolListing:
    """The names a server listed last, and when that listing expires (on ``clock``, in seconds)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        #: The server's tool names as last listed; ``None`` until a complete listing.
        self.names: frozenset[str] | None = None
        self._expires_at: float | None = None
        #: How many listings were read from the server (each page counts once per listing).
        self.listings = 0

    def record(self, pages: Iterable[Any], *, complete: bool, hints_apply: bool) -> None:
        """Keep a listing read now: its names, and its expiry from the pages' ``ttlMs`` when ``hints_apply``."""
        pages = list(pages)
        self.listings += 1
        self.names = frozenset(tool.name for page in pages for tool in page.tools) if complete else None
        ttls = [page.ttl_ms for page in pages if hints_apply and "ttl_ms" in page.model_fields_set]
        if not ttls:
            self._expires_at = None  # no hint: held until a list-changed notice
            return
        ttl_s = min(max(min(ttls), 0), MAX_TTL_MS) / 1000  # each page has its own TTL: the list lasts as its first
        self._expires_at = self._clock() + max(ttl_s, MIN_RELIST_INTERVAL_S)

    def expired(self) -> bool:
        return self._expires_at is not None and self._clock() >= self._expires_at

    def retry_later(self) -> None:
        """A re-list failed: keep serving this listing, and try again after the minimum interval."""
        self._expires_at = self._clock() + MIN_RELIST_INTERVAL_S

    def invalidate(self) -> None:
        """Expire the listing now (a new connection may reach a server with other tools)."""
        if self.names is not None or self._expires_at is not None:
            self._expires_at = self._clock()

    def lists(self, name: str) -> bool:
        """Whether the last complete listing has ``name`` (``True`` before any: nothing is known to be gone)."""
        return self.names is None or name in self.names
