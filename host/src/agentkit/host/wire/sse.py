"""Incremental server-sent events decoder, after the WHATWG parsing rules.

Bytes go in as they arrive (:meth:`SSEDecoder.feed`), complete events come
out. The rules that matter, from the HTML standard's "event stream
interpretation":

* lines end with CRLF, LF or CR, and a CRLF may be split across two chunks;
* one UTF-8 byte order mark at the very start of the stream is dropped;
* a line starting with ``:`` is a comment; ``field: value`` loses one space
  after the colon; a line without a colon is a field with an empty value;
* ``data`` lines accumulate, joined by LF; a blank line dispatches the event,
  unless no ``data`` line came (then it only resets the event name);
* ``id`` (without NUL) sets the last event id, which persists across events;
  ``retry`` is kept only when it is all ASCII digits;
* an event the stream ended in the middle of is discarded, never dispatched.

The decoder is bounded: a line longer than ``max_line_bytes`` or an event
whose data grows past ``max_event_bytes`` raises :class:`FrameTooLarge`, and
the decoder then refuses further input, because its framing is lost.

Every complete event before a bad frame is delivered, however the bytes were
chunked: when one chunk completes events and then hits a bad frame,
:meth:`SSEDecoder.feed` returns those events, keeps the error in
:attr:`SSEDecoder.error`, and raises it at the next call.
"""

from __future__ import annotations

from typing import Any

from agentkit.plugin_api._dataclass import dataclass

from .errors import FrameTooLarge, TruncatedStream, WireError

__all__ = ["DEFAULT_MAX_EVENT_BYTES", "DEFAULT_MAX_LINE_BYTES", "SSEDecoder", "SSEFields", "SSEMessage"]

DEFAULT_MAX_LINE_BYTES = 1024 * 1024
DEFAULT_MAX_EVENT_BYTES = 8 * 1024 * 1024

_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class SSEMessage:
    """One dispatched event.

    :param event: the ``event`` field, or ``None`` when the event had none
        (a browser would call it ``message``).
    :param data: the ``data`` lines joined by LF.
    :param id: the last event id seen on the stream so far, or ``None``.
    :param retry: the ``retry`` field of this event in milliseconds, or ``None``.
    """

    event: str | None
    data: str
    id: str | None = None
    retry: int | None = None


# An SSEMessage made from its fields by its slots' own setters: a third cheaper than its frozen __init__.
_SLOTS: dict[str, Any] = dict(vars(SSEMessage))
_new_message = object.__new__
_set_event = _SLOTS["event"].__set__
_set_data = _SLOTS["data"].__set__
_set_id = _SLOTS["id"].__set__
_set_retry = _SLOTS["retry"].__set__

#: One dispatched event as :meth:`SSEDecoder.feed_fields` gives it: the fields of its
#: :class:`SSEMessage`, in their order (``event``, ``data``, ``id``, ``retry``).
SSEFields = tuple[str | None, str, str | None, int | None]


class SSEDecoder:
    """Cut a byte stream into :class:`SSEMessage` events, incrementally.

    :param max_line_bytes: the longest line buffered, terminator excluded.
    :param max_event_bytes: the largest data of one event.
    """

    def __init__(
        self,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    ) -> None:
        self.max_line_bytes = max_line_bytes
        self.max_event_bytes = max_event_bytes
        self._partial = bytearray()  # the unterminated tail of the input, when it grew over several reads
        self._tail: bytes = b""  # the unterminated tail of the input, when the last read ended a line
        self._at_start = True  # a BOM may still arrive
        self._skip_lf = False  # the last chunk ended in CR: a leading LF completes a CRLF
        self._broken: str | None = None
        self._pending_error: WireError | None = None
        # The event being built.
        self._data: list[str] = []
        self._data_bytes = 0
        self._event: str | None = None
        self._retry: int | None = None
        self._pending = False  # a field line arrived since the last dispatch
        self._last_id: str | None = None

    @property
    def last_event_id(self) -> str | None:
        """The last ``id`` the stream set (what a reconnection would send)."""
        return self._last_id

    @property
    def error(self) -> WireError | None:
        """The error found after the events the last :meth:`feed` returned, not yet raised."""
        return self._pending_error

    def _raise_pending(self) -> None:
        error, self._pending_error = self._pending_error, None
        if error is not None:
            raise error
        if self._broken is not None:
            raise FrameTooLarge(f"the SSE decoder stopped after an earlier error: {self._broken}")

    def feed(self, chunk: bytes) -> list[SSEMessage]:
        """Decode more bytes; returns the events they completed, in order.

        :raises FrameTooLarge: a line or an event went past its bound (if
            events came before it in this chunk, they are returned and the
            error is raised by the next call instead).
        """
        # feed_fields written out (a call less per network read, which is often a few dozen bytes).
        if self._pending_error is not None or self._broken is not None:
            self._raise_pending()
        out: list[Any] = []
        try:
            self._feed(chunk, out, True)
        except WireError as exc:
            if not out:
                raise
            self._pending_error = exc
        return out

    def feed_fields(self, chunk: bytes) -> list[SSEFields]:
        """:meth:`feed`, each event given as the tuple of its fields rather than an :class:`SSEMessage`.

        For a reader that turns every event into an object of its own (the
        host's framing makes a ``WireEvent`` of each): an event costs no
        message object in between. Same events, same order, same errors.
        """
        if self._pending_error is not None or self._broken is not None:
            self._raise_pending()
        out: list[SSEFields] = []
        try:
            self._feed(chunk, out)
        except WireError as exc:
            if not out:
                raise
            self._pending_error = exc
        return out

    def _start(self, chunk: bytes) -> bytes | None:
        """``chunk`` without a leading byte order mark or the LF of a CRLF split across chunks; ``None``
        while the first bytes may still be a byte order mark."""
        if self._at_start:
            head = bytes(self._partial) + bytes(chunk)
            if len(head) < len(_BOM) and _BOM.startswith(head):
                self._partial = bytearray(head)
                return None
            self._at_start = False
            self._partial = bytearray()
            chunk = head[len(_BOM) :] if head.startswith(_BOM) else head
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        return chunk

    def _feed(self, chunk: bytes, out: list[Any], messages: bool = False) -> None:
        """Decode ``chunk``, adding each event it completes to ``out``: an :class:`SSEMessage` if ``messages``,
        else the tuple of its fields."""
        # Called once per network read, often of a few dozen bytes (bench_sse's 64-byte chunks): the
        # per-call work is a few membership tests, and the unterminated tail is kept as the bytes object
        # split gave, joined to the next read by one concatenation.
        if not chunk:
            return
        if self._at_start or self._skip_lf:
            started = self._start(chunk)
            if started is None:
                return
            chunk = started
        if b"\n" not in chunk and b"\r" not in chunk:
            partial = self._partial  # a line arriving in many reads grows here, not by copies of bytes
            if self._tail:
                partial += self._tail
                self._tail = b""
            partial += chunk
            if len(partial) > self.max_line_bytes:
                self._fail(f"an SSE line is longer than {self.max_line_bytes} bytes and has not ended")
            return
        if b"\r" in chunk:
            # Normalize every line end to LF. A CR at the very end may be the
            # first half of a CRLF whose LF comes with the next chunk.
            if chunk.endswith(b"\r"):
                self._skip_lf = True
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        # What came before holds no line end: joined first, the chunk's first line is whole.
        if self._tail:
            chunk = self._tail + chunk
        elif self._partial:
            partial = self._partial
            partial += chunk
            chunk = bytes(partial)
            partial.clear()
        lines = chunk.split(b"\n")
        tail = lines.pop()
        max_line = self.max_line_bytes
        # The per-line work is inlined, against a _line method: bench_sse's corpus in per-event chunks
        # -30 bytecodes/event (10% of the decoder's), bench_loop sse sync -200 bytecodes/turn (0.8%).
        for line in lines:
            if not line:
                if self._pending:
                    if self._data and messages:
                        # What SSEMessage's frozen __init__ does, without its four object.__setattr__ calls.
                        message = _new_message(SSEMessage)
                        _set_event(message, self._event)
                        _set_data(message, "\n".join(self._data))
                        _set_id(message, self._last_id)
                        _set_retry(message, self._retry)
                        out.append(message)
                    elif self._data:
                        out.append((self._event, "\n".join(self._data), self._last_id, self._retry))
                    self._data = []
                    self._data_bytes = 0
                    self._event = self._retry = None
                    self._pending = False
                continue
            if len(line) > max_line:
                self._fail(f"an SSE line of {len(line)} bytes is longer than {max_line}")
            if line.startswith(b"data: "):  # nearly every line: its field known without a split
                value = line[6:]
            elif line.startswith(b"event: "):  # and most of the others
                try:  # strict UTF-8 first: cheaper to call than the "replace" handler, which only a bad byte needs
                    self._event = line[7:].decode()
                except UnicodeDecodeError:
                    self._event = line[7:].decode("utf-8", "replace")
                self._pending = True
                continue
            elif line[0] == 0x3A:  # ":" comment
                continue
            else:
                name, colon, value = line.partition(b":")
                if colon and value[:1] == b" ":
                    value = value[1:]
                if name != b"data":
                    self._pending = True
                    if name == b"event":
                        self._event = value.decode("utf-8", "replace")
                    elif name == b"id":
                        if b"\0" not in value:
                            self._last_id = value.decode("utf-8", "replace")
                    elif name == b"retry" and value.isdigit():
                        self._retry = int(value)
                    continue
            self._pending = True
            self._data_bytes += len(value) + 1
            if self._data_bytes > self.max_event_bytes:
                self._fail(f"an SSE event's data is larger than {self.max_event_bytes} bytes")
            try:
                self._data.append(value.decode())
            except UnicodeDecodeError:
                self._data.append(value.decode("utf-8", "replace"))
        # The unterminated tail is checked last, so the events before it are kept.
        if len(tail) > max_line:
            self._fail(f"an SSE line is longer than {max_line} bytes and has not ended")
        self._tail = tail

    def close(self) -> list[SSEMessage]:
        """End of the stream.

        :returns: nothing more (an event needs its blank line to be dispatched).
        :raises TruncatedStream: the stream ended in the middle of an event;
            that event was discarded.
        :raises FrameTooLarge: the error kept by the last :meth:`feed`.
        """
        error, self._pending_error = self._pending_error, None
        if error is not None:
            raise error
        if self._broken is not None:
            return []  # the error was raised already
        truncated = bool(self._partial) and not (self._at_start and _BOM.startswith(self._partial))
        truncated = truncated or bool(self._tail) or self._pending
        self._partial = bytearray()
        self._tail = b""
        self._reset_event()
        if truncated:
            raise TruncatedStream(
                "the SSE stream ended in the middle of an event (no blank line after it); "
                "the partial event was discarded"
            )
        return []

    def _fail(self, reason: str) -> None:
        # Nothing is read after this: feed() and close() only report it.
        self._broken = reason
        raise FrameTooLarge(reason + "; raise the decoder's bound if the peer is trusted")

    def _reset_event(self) -> None:
        self._data = []
        self._data_bytes = 0
        self._event = None
        self._retry = None
        self._pending = False
