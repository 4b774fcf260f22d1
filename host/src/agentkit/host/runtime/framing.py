"""Cutting a response body into the :class:`WireEvent` values a decoder reads.

One framer per response, chosen by :attr:`WireRequest.framing`:

* ``sse``: server-sent events; each event's data is one strict JSON text,
  given with the event's name. ``data: [DONE]`` (the OpenAI family's end
  marker) ends the stream; an event with empty data carries nothing to decode
  and is skipped.
* ``ndjson``: one strict JSON text per line.
* ``json``: the whole body is one JSON text (a non-streaming response),
  bounded like any other.

An SSE body is sniffed first: one whose first significant byte opens a JSON
object or array is not an event stream, whatever its content type says (a
gateway's JSON error with a 200 status, labelled ``text/event-stream``), and
is read as one JSON document, so the vendor's message survives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentkit.plugin_api import WireEvent
from agentkit.plugin_api.errors import ProviderError

from ..wire.errors import FrameTooLarge, WireError
from ..wire.json import DEFAULT_MAX_BYTES, loads
from .errors import error_detail

if TYPE_CHECKING:  # the stream decoders load with the first response of their framing
    from ..wire.sse import SSEFields

__all__ = ["Framer", "make_framer"]


class Framer:
    """Bytes in, wire events out; ``done`` turns true at an end-of-stream marker.

    When one chunk holds good events and then a bad one, ``feed`` returns the
    good ones and keeps the error in ``error``: the caller passes on what
    arrived intact before reporting the failure.
    """

    done: bool = False
    error: WireError | None = None

    def feed(self, chunk: bytes) -> list[WireEvent]:  # pragma: no cover - interface
        raise NotImplementedError

    def close(self) -> list[WireEvent]:  # pragma: no cover - interface
        raise NotImplementedError


class SSEFramer(Framer):
    def __init__(self) -> None:
        from ..wire.sse import SSEDecoder

        self._sse = SSEDecoder()
        self.done = False

    def _events(self, messages: list[SSEFields]) -> list[WireEvent]:
        events: list[WireEvent] = []
        for name, data, _, _ in messages:
            if self.done:
                break
            if data == "[DONE]":
                self.done = True
                break
            if not data:
                continue
            try:
                events.append(WireEvent(loads(data), name))
            except WireError as exc:
                self.error = exc
                self.done = True
                break
        return events

    def feed(self, chunk: bytes) -> list[WireEvent]:
        events = self._events(self._sse.feed_fields(chunk))
        if self._sse.error is not None and not self.done:
            self.error, self.done = self._sse.error, True
        return events

    def close(self) -> list[WireEvent]:
        return self._events([(m.event, m.data, m.id, m.retry) for m in self._sse.close()])


class NDJSONFramer(Framer):
    def __init__(self) -> None:
        from ..wire.ndjson import NDJSONDecoder

        self._ndjson = NDJSONDecoder()
        self.done = False

    def feed(self, chunk: bytes) -> list[WireEvent]:
        events = [WireEvent(value) for value in self._ndjson.feed(chunk)]
        if self._ndjson.error is not None:
            self.error, self.done = self._ndjson.error, True
        return events

    def close(self) -> list[WireEvent]:
        return [WireEvent(value) for value in self._ndjson.close()]


class JSONFramer(Framer):
    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self._parts: list[bytes] = []
        self._size = 0
        self._max = max_bytes
        self.done = False

    def feed(self, chunk: bytes) -> list[WireEvent]:
        self._size += len(chunk)
        if self._size > self._max:
            raise FrameTooLarge(f"the JSON response is larger than {self._max} bytes")
        self._parts.append(chunk)
        return []

    def close(self) -> list[WireEvent]:
        body, self._parts = b"".join(self._parts), []
        data = loads(body, max_bytes=self._max)
        if isinstance(data, dict) and isinstance(data.get("error"), dict | str):
            # An error document where a response was expected (a 200 from a
            # gateway): report its message rather than hand it to the codec.
            raise ProviderError(f"the server answered with an error: {error_detail(body)}")
        return [WireEvent(data)]


_BOM = b"\xef\xbb\xbf"
_BLANK = b" \t\r\n"


class SniffingFramer(Framer):
    """An SSE framer that turns into a JSON one if the body turns out to be a JSON document."""

    def __init__(self) -> None:
        self._head = b""
        self._inner: Framer | None = None

    # The base's plain fields are for the framers that set them; this one answers for
    # its inner framer, and callers only ever read either.
    @property
    def done(self) -> bool:  # type: ignore[override]  # read-only over a writable field
        return self._inner is not None and self._inner.done

    @property
    def error(self) -> WireError | None:  # type: ignore[override]  # as ``done`` above
        return self._inner.error if self._inner is not None else None

    def feed(self, chunk: bytes) -> list[WireEvent]:
        if self._inner is not None:
            return self._inner.feed(chunk)
        self._head += chunk
        significant = self._head.lstrip(_BLANK)
        if significant.startswith(_BOM):
            significant = significant[len(_BOM) :].lstrip(_BLANK)
        elif _BOM.startswith(significant) and significant:
            return []  # perhaps the start of a byte order mark
        if not significant:
            if len(self._head) > 64 * 1024:
                self._inner = SSEFramer()  # only blank lines so far: an event stream's keep-alive
                return self._inner.feed(self._take())
            return []
        if significant[:1] in (b"{", b"["):
            self._inner = JSONFramer()
            self._head = significant
        else:
            self._inner = SSEFramer()
        return self._inner.feed(self._take())

    def _take(self) -> bytes:
        head, self._head = self._head, b""
        return head

    def close(self) -> list[WireEvent]:
        if self._inner is None:
            self._inner = SSEFramer()
            events = self._inner.feed(self._take())
            return events + self._inner.close()
        return self._inner.close()


def make_framer(framing: str) -> Framer:
    """The framer for ``framing`` (``sse``, ``ndjson`` or ``json``)."""
    if framing == "sse":
        return SniffingFramer()
    if framing == "ndjson":
        return NDJSONFramer()
    if framing == "json":
        return JSONFramer()
    raise ValueError(f"unknown framing {framing!r}: a provider must use 'sse', 'ndjson' or 'json'")
