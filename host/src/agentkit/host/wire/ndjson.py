"""Incremental newline-delimited JSON decoder (one JSON text per line).

Used for wires that stream NDJSON instead of SSE (Ollama's native API).
Each complete line is decoded with the strict :func:`~agentkit.host.wire.json.loads`;
blank lines are skipped; a CR before the LF is whitespace to JSON and needs no
special case. Lines are bounded by ``max_line_bytes``; a stream that ends
without the LF of its last line is reported as :class:`TruncatedStream`,
because a cut-off JSON text can still parse (``12`` of ``123``).

Every value before a bad line is delivered, however the bytes were chunked:
when one chunk completes lines and then meets a bad one, :meth:`feed` returns
the values before it, keeps the error in :attr:`NDJSONDecoder.error`, and
raises it at the next call. After a bad line the decoder takes no more input.
"""

from __future__ import annotations

from typing import Any

from .errors import FrameTooLarge, TruncatedStream, WireError
from .json import DEFAULT_MAX_DEPTH, loads

__all__ = ["DEFAULT_MAX_LINE_BYTES", "NDJSONDecoder"]

DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024


class NDJSONDecoder:
    """Cut a byte stream into JSON values, one per line, incrementally.

    :param max_line_bytes: the longest line buffered, LF excluded.
    :param max_depth: the deepest nesting accepted in one value.
    """

    def __init__(
        self, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, max_depth: int = DEFAULT_MAX_DEPTH
    ) -> None:
        self.max_line_bytes = max_line_bytes
        self.max_depth = max_depth
        self._partial = bytearray()
        self._broken: str | None = None
        self._pending_error: WireError | None = None

    @property
    def error(self) -> WireError | None:
        """The error found after the values the last :meth:`feed` returned, not yet raised."""
        return self._pending_error

    def feed(self, chunk: bytes) -> list[Any]:
        """Decode more bytes; returns the values of the lines they completed.

        If values came before a bad line in this chunk, they are returned and
        the error is raised by the next call instead.

        :raises FrameTooLarge: a line went past ``max_line_bytes``.
        :raises WireDecodeError: a line is not one strict JSON text.
        """
        error, self._pending_error = self._pending_error, None
        if error is not None:
            raise error
        if self._broken is not None:
            raise FrameTooLarge(
                f"the NDJSON decoder stopped after an earlier error: {self._broken}"
            )
        values: list[Any] = []
        try:
            self._feed(chunk, values)
        except WireError as exc:
            self._broken = str(exc)
            self._partial = bytearray()
            if not values:
                raise
            self._pending_error = exc
        return values

    def _feed(self, chunk: bytes, values: list[Any]) -> None:
        if b"\n" not in chunk:
            self._partial += chunk
            if len(self._partial) > self.max_line_bytes:
                self._fail(
                    f"an NDJSON line is longer than {self.max_line_bytes} bytes and has not ended"
                )
            return
        lines = chunk.split(b"\n")
        if self._partial:
            lines[0] = bytes(self._partial) + lines[0]
        tail = lines.pop()
        for line in lines:
            if len(line) > self.max_line_bytes:
                self._fail(
                    f"an NDJSON line of {len(line)} bytes is longer than {self.max_line_bytes}"
                )
            if line.strip(b" \t\r"):
                values.append(loads(line, max_bytes=self.max_line_bytes, max_depth=self.max_depth))
        # The unterminated tail is checked last, so the values before it are kept.
        self._partial = bytearray(tail)
        if len(self._partial) > self.max_line_bytes:
            self._fail(
                f"an NDJSON line is longer than {self.max_line_bytes} bytes and has not ended"
            )

    def close(self) -> list[Any]:
        """End of the stream.

        :raises TruncatedStream: the last line has no LF; it was discarded.
        :raises WireError: the error kept by the last :meth:`feed`.
        """
        error, self._pending_error = self._pending_error, None
        if error is not None:
            raise error
        partial, self._partial = self._partial, bytearray()
        if partial.strip(b" \t\r"):
            raise TruncatedStream(
                f"the NDJSON stream ended in the middle of a line ({len(partial)} bytes "
                "without a newline); the partial line was discarded"
            )
        return []

    def _fail(self, reason: str) -> None:
        # feed() then stops the decoder and drops the partial line, as for any WireError.
        raise FrameTooLarge(reason + "; raise the decoder's bound if the peer is trusted")
