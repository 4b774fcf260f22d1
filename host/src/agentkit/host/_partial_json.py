"""The value of JSON text cut short: what an ``output_partial`` event shows while the output streams.

One pass over the text finds where it stands (inside a string, which
containers are open, and the last point where every value before it was
whole); the text is then closed at the first of these that parses: the text
itself (a number or a string value cut short is shown as far as it came), or
the text up to that last whole point. A key without its value yet, or a
literal cut short (``tru``), is left out rather than guessed.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["partial_value"]

_NOTHING = object()


def partial_value(text: str) -> Any:
    """The value ``text`` holds so far, or :data:`NOTHING` when no value can be read yet."""
    closers: list[str] = []
    in_string = escaped = is_key = expect_key = False
    safe, safe_closers = 0, ""
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                if not is_key:
                    safe, safe_closers = index + 1, "".join(reversed(closers))
            continue
        if char == '"':
            in_string, is_key = True, expect_key
        elif char in "{[":
            closers.append("}" if char == "{" else "]")
            expect_key = char == "{"
            safe, safe_closers = index + 1, "".join(reversed(closers))
        elif char in "}]":
            if closers:
                closers.pop()
            expect_key = False
            safe, safe_closers = index + 1, "".join(reversed(closers))
        elif char == ",":
            safe, safe_closers = index, "".join(reversed(closers))  # the element before the comma is whole
            expect_key = bool(closers) and closers[-1] == "}"
        elif char == ":":
            expect_key = False
    closing = "".join(reversed(closers))
    candidates = [text + '"' + closing] if in_string and not is_key else []
    candidates += [text + closing, text[:safe] + safe_closers]
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    return NOTHING


#: What :func:`partial_value` returns when the text holds no value yet.
NOTHING = _NOTHING
