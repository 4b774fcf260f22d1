"""The value of JSON text cut short: what an ``output_partial`` event shows while the output streams.

One pass over the text finds where it stands (inside a string, which
containers are open, and the last point where every value before it was
whole); the text is then closed at the first of these that parses: the text
itself (a number or a string value cut short is shown as far as it came), or
the text up to that last whole point. A key without its value yet, or a
literal cut short (``tru``), is left out rather than guessed.

:class:`PartialJson` makes that pass as the pieces arrive, each character
once, so reading where a stream stands never re-reads what came before; only
decoding the value reads the whole text, and its caller decides how often.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["NOTHING", "PartialJson", "partial_value"]

_NOTHING = object()


class PartialJson:
    """JSON text arriving in pieces: :meth:`feed` each piece, :meth:`value` reads the value so far."""

    def __init__(self) -> None:
        self._pieces: list[str] = []
        self.length = 0
        self._closers: list[str] = []
        self._in_string = self._escaped = self._is_key = self._expect_key = False
        # Where every value before was whole. The open containers there are the open containers now:
        # only a bracket changes them, and each bracket moves this point.
        self._safe = 0

    def feed(self, piece: str) -> None:
        """Read one more piece of the text."""
        closers = self._closers
        in_string, escaped, is_key, expect_key, safe = (self._in_string, self._escaped, self._is_key,
                                                        self._expect_key, self._safe)
        for index, char in enumerate(piece, start=self.length):
            if in_string:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    in_string = False
                    if not is_key:
                        safe = index + 1
                continue
            if char == '"':
                in_string, is_key = True, expect_key
            elif char in "{[":
                closers.append("}" if char == "{" else "]")
                expect_key = char == "{"
                safe = index + 1
            elif char in "}]":
                if closers:
                    closers.pop()
                expect_key = False
                safe = index + 1
            elif char == ",":
                safe = index  # the element before the comma is whole
                expect_key = bool(closers) and closers[-1] == "}"
            elif char == ":":
                expect_key = False
        self._in_string, self._escaped, self._is_key, self._expect_key, self._safe = (in_string, escaped, is_key,
                                                                                       expect_key, safe)
        self._pieces.append(piece)
        self.length += len(piece)

    def value(self) -> Any:
        """The value the text holds so far, or :data:`NOTHING` when no value can be read yet."""
        text = "".join(self._pieces)
        self._pieces = [text]
        closing = "".join(reversed(self._closers))
        candidates = [text + '"' + closing] if self._in_string and not self._is_key else []
        candidates += [text + closing, text[:self._safe] + closing]
        for candidate in candidates:
            try:
                return json.loads(candidate)
            except ValueError:
                continue
        return NOTHING


def partial_value(text: str) -> Any:
    """The value ``text`` holds so far, or :data:`NOTHING` when no value can be read yet."""
    reader = PartialJson()
    reader.feed(text)
    return reader.value()


#: What :func:`partial_value` returns when the text holds no value yet.
NOTHING = _NOTHING
