"""A JSON parser with an explicit stack, for when the C scanner would recurse too deep.

The standard C scanner recurses once per nesting level and counts against the
interpreter's recursion limit: 250 levels decoded by a caller already 900
frames deep raise ``RecursionError``. :func:`decode` parses the same grammar
with a list as its stack, so neither the input's depth nor the caller's can
exhaust anything. It is slower than the C scanner and only used when that one
gives up. Strings go through the standard (C) ``scanstring``; the strictness
rules are the caller's: the hooks for pairs, floats and constants are passed in.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# typeshed omits json.decoder.scanstring, exported by the stdlib since 2.6.
from json.decoder import JSONDecodeError, scanstring  # type: ignore[attr-defined]  # see above
from typing import Any, cast

__all__ = ["HookFailed", "decode"]

_WS = re.compile(r"[ \t\n\r]*")
# The pattern matches the empty string too, so a match always comes back.
_skip = cast(Callable[[str, int], "re.Match[str]"], _WS.match)
_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = (("true", True), ("false", False), ("null", None))
_CONSTANTS = ("NaN", "Infinity", "-Infinity")


class HookFailed(Exception):
    """The pairs hook raised ``error`` for an object; ``key_offsets`` are where its keys start."""

    def __init__(self, error: Exception, key_offsets: list[int]) -> None:
        # No message: it never leaves the decoder, which reads these two fields.
        self.error = error
        self.key_offsets = key_offsets


def decode(
    text: str,
    *,
    pairs_hook: Callable[[list[tuple[str, Any]]], Any],
    parse_float: Callable[[str], Any],
    parse_constant: Callable[[str], Any],
) -> Any:
    """Decode one JSON text without recursion; errors as the standard decoder raises them.

    :raises HookFailed: ``pairs_hook`` raised; carries the object's offset.
    """
    skip = _skip
    end = len(text)
    # Each frame: [pairs or items, is_object, pending key, key offsets].
    stack: list[list[Any]] = []
    pos = skip(text, 0).end()
    while True:
        # One value at pos; a container that is not empty opens a frame and loops.
        char = text[pos : pos + 1]
        if char == "{":
            pos = skip(text, pos + 1).end()
            if text.startswith("}", pos):
                value, pos = pairs_hook([]), pos + 1
            else:
                offsets = [pos]
                key, pos = _key(text, pos)
                stack.append([[], True, key, offsets])
                continue
        elif char == "[":
            pos = skip(text, pos + 1).end()
            if text.startswith("]", pos):
                value, pos = [], pos + 1
            else:
                stack.append([[], False, None, None])
                continue
        elif char == '"':
            value, pos = scanstring(text, pos + 1)
        else:
            value, pos = _scalar(text, pos, parse_float, parse_constant)
        # Hand the value to its container, closing every container that ends here.
        while True:
            pos = skip(text, pos).end()
            if not stack:
                if pos != end:
                    raise JSONDecodeError("Extra data", text, pos)
                return value
            frame = stack[-1]
            if frame[1]:
                frame[0].append((frame[2], value))
            else:
                frame[0].append(value)
            char = text[pos : pos + 1]
            if char == ",":
                pos = skip(text, pos + 1).end()
                if frame[1]:
                    frame[3].append(pos)
                    frame[2], pos = _key(text, pos)
                break
            if char == ("}" if frame[1] else "]"):
                stack.pop()
                if frame[1]:
                    try:
                        value = pairs_hook(frame[0])
                    except Exception as exc:
                        raise HookFailed(exc, frame[3]) from None
                else:
                    value = frame[0]
                pos += 1
                continue
            raise JSONDecodeError("Expecting ',' delimiter", text, pos)


def _key(text: str, pos: int) -> tuple[str, int]:
    if not text.startswith('"', pos):
        raise JSONDecodeError("Expecting property name enclosed in double quotes", text, pos)
    key, pos = scanstring(text, pos + 1)  # strict by default: no raw control characters
    pos = _skip(text, pos).end()
    if not text.startswith(":", pos):
        raise JSONDecodeError("Expecting ':' delimiter", text, pos)
    return key, _skip(text, pos + 1).end()


def _scalar(
    text: str, pos: int, parse_float: Callable[[str], Any], parse_constant: Callable[[str], Any]
) -> tuple[Any, int]:
    for literal, value in _LITERALS:
        if text.startswith(literal, pos):
            return value, pos + len(literal)
    for constant in _CONSTANTS:
        if text.startswith(constant, pos):
            return parse_constant(constant), pos + len(constant)
    match = _NUMBER.match(text, pos)
    if match is None:
        raise JSONDecodeError("Expecting value", text, pos)
    integer, fraction, exponent = match.groups()
    if fraction or exponent:
        return parse_float(integer + (fraction or "") + (exponent or "")), match.end()
    return int(integer), match.end()

