"""The HTTP server's connections, held to a deadline for their headers and to a cap on their number.

uvicorn gives a request's headers no deadline and opens as many connections as
clients ask for (its ``limit_concurrency`` answers 503 only once headers have
arrived), so connections that never finish their headers hold their slots and
file descriptors for ever, and a flood of them starves every other client.
:class:`GuardedConnection` is the connection class uvicorn is handed instead of
its own: its h11 protocol, plus

- a deadline for each request's headers, from the opening of the connection or
  the end of the previous response (408, then closed);
- a cap on connections: at the cap the connection that has waited longest for
  its request's headers is closed to make room (nginx reuses its idle
  connections the same way when ``worker_connections`` run out), and when every
  connection is being served the new one gets 503 with ``Retry-After``;
- log lines about such trouble rate-limited (:class:`RateLimitFilter`), and
  ``accept()`` failing for want of file descriptors reported in one line.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from ._limits import FILE_DESCRIPTOR_RESERVE, LOG_INTERVAL, HttpLimits

log = logging.getLogger("agentkit_mcp_server")

#: Seconds a connection refused or timed out is kept after its answer, reading and dropping what the client
#: still sends: closing with unread input would reset the connection and lose the answer on the way.
LINGER = 1.0
#: Log lines let through in one interval, all kinds together.
_LINES_PER_INTERVAL = 20
_FD_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


def _answer(status: str, message: str, *extra: str) -> bytes:
    body = json.dumps({"error": message}).encode()
    head = [f"HTTP/1.1 {status}", "content-type: application/json", f"content-length: {len(body)}",
            "connection: close", *extra]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


class ConnectionGuard:
    """The connections of one server: which are open, and which wait for a request's headers, oldest first."""

    def __init__(self, limits: HttpLimits, max_connections: int | None = None) -> None:
        self.limits = limits
        self.max_connections = max_connections if max_connections is not None else limits.max_connections
        self.open: set[GuardedConnection] = set()
        self.waiting: OrderedDict[GuardedConnection, None] = OrderedDict()

    def admit(self, connection: GuardedConnection) -> bool:
        """Count a new connection in, closing the longest-waiting one at the cap; ``False``: refuse it."""
        if len(self.open) >= self.max_connections:
            if not self.waiting:
                log.warning("refused connections with 503: all %d are being served (--max-connections)",
                            self.max_connections)
                return False
            oldest, _ = self.waiting.popitem(last=False)
            self.open.discard(oldest)
            oldest.drop()
            log.warning("at the cap of %d connections (--max-connections): closed the ones waiting longest "
                        "for their request's headers", self.max_connections)
        self.open.add(connection)
        return True

    def wait_for_request(self, connection: GuardedConnection) -> None:
        self.waiting[connection] = None
        self.waiting.move_to_end(connection)

    def request_started(self, connection: GuardedConnection) -> None:
        self.waiting.pop(connection, None)

    def forget(self, connection: GuardedConnection) -> None:
        self.open.discard(connection)
        self.waiting.pop(connection, None)


class GuardedConnection(H11Protocol):
    """uvicorn's h11 connection, with its headers' deadline and its place under the cap; see the module."""

    def __init__(self, *args: Any, guard: ConnectionGuard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard
        self._deadline: asyncio.TimerHandle | None = None
        #: The request answered last (``None``: none yet): another one in ``self.cycle`` has started.
        self._answered: object | None = None
        self._admitted = False
        self._finished = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not self.guard.admit(self):
            self._finish(_answer("503 Service Unavailable", "the server has all the connections it serves at "
                                 "once; retry shortly", "retry-after: 1"))
            return
        self._admitted = True
        self._wait_for_request()

    def data_received(self, data: bytes) -> None:
        if self._finished:  # answered and closing: what still comes is read and dropped
            return
        super().data_received(data)
        if self._deadline is not None and self.cycle is not self._answered:  # a request's headers are in
            self._request_started()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._admitted and not self.transport.is_closing():
            self._wait_for_request()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadline()
        self.guard.forget(self)
        super().connection_lost(exc)

    def drop(self) -> None:
        """Close the connection now: it waited for a request while others needed its slot."""
        self._cancel_deadline()
        self.transport.close()

    def _wait_for_request(self) -> None:
        self._cancel_deadline()
        self._answered = self.cycle
        self.guard.wait_for_request(self)
        self._deadline = self.loop.call_later(self.guard.limits.header_timeout, self._headers_too_slow)

    def _request_started(self) -> None:
        self._cancel_deadline()
        self.guard.request_started(self)

    def _headers_too_slow(self) -> None:
        self._deadline = None
        if self.cycle is not self._answered:  # a request came in without more data arriving (pipelined)
            self._request_started()
            return
        self.guard.forget(self)
        timeout = self.guard.limits.header_timeout
        log.warning("closed connections that sent no complete request headers within %g s (--header-timeout)",
                    timeout)
        self._finish(_answer("408 Request Timeout", f"the request headers did not arrive within {timeout:g} s"))

    def _finish(self, answer: bytes) -> None:
        """Send ``answer``, end our side, and close once the client closes its side or :data:`LINGER` passed."""
        self._finished = True
        if self.transport.is_closing():
            return
        self.transport.write(answer)
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER, self.transport.close)

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None


def connection_factory(guard: ConnectionGuard) -> Callable[..., GuardedConnection]:
    """What uvicorn's ``http`` setting takes: it makes each connection with uvicorn's own arguments."""

    def make(*args: Any, **kwargs: Any) -> GuardedConnection:
        return GuardedConnection(*args, guard=guard, **kwargs)

    return make


def connection_cap(wanted: int) -> int:
    """``wanted``, lowered to leave :data:`FILE_DESCRIPTOR_RESERVE` of the process's open-file limit free."""
    try:
        import resource
    except ImportError:  # no such limit to read (Windows)
        return wanted
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - FILE_DESCRIPTOR_RESERVE))


class RateLimitFilter(logging.Filter):
    """Lets through one record per message template in each ``interval``, and at most a few of all kinds.

    The next record of a template after some were left out says how many.
    """

    def __init__(self, interval: float = LOG_INTERVAL, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.interval = interval
        self._clock = clock
        self._last: dict[tuple[str, str], float] = {}
        self._skipped: dict[tuple[str, str], int] = {}
        self._window = (-interval, 0)  # when the current interval began, and the records let through in it

    def filter(self, record: logging.LogRecord) -> bool:
        now = self._clock()
        key = (record.name, str(record.msg)[:200])
        started, passed = self._window
        if now - started >= self.interval:
            started, passed = now, 0
        last = self._last.get(key)
        if (last is not None and now - last < self.interval) or passed >= _LINES_PER_INTERVAL:
            self._skipped[key] = self._skipped.get(key, 0) + 1
            self._window = (started, passed)
            return False
        self._window = (started, passed + 1)
        self._last[key] = now
        skipped = self._skipped.pop(key, 0)
        if skipped:
            record.msg = f"{record.msg} (and {skipped} more like it, not logged)"
        return True


def quiet_accept_errors(previous: Callable[[asyncio.AbstractEventLoop, dict[str, Any]], object] | None) -> Callable[
        [asyncio.AbstractEventLoop, dict[str, Any]], None]:
    """A loop exception handler that reports ``accept()`` failing for want of file descriptors in one line.

    asyncio logs that failure with its traceback once for every connection in
    the listen backlog, each second it retries: thousands of lines a second.
    Anything else goes to ``previous`` (or the loop's default handler).
    """

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in _FD_ERRNOS and "accept" in str(context.get("message", "")):
            log.warning("cannot accept connections: %s (the open-file limit, ulimit -n); asyncio retries each "
                        "second", exc.strerror or exc)
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    return handle
