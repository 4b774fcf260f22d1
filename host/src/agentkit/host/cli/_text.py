"""Text from a model, a tool or a file, made safe to print on a terminal."""

from __future__ import annotations

# C0 and C1 control characters (an escape sequence could move the cursor, retitle the window or
# hide text), and DEL; newlines and tabs stay.
_CONTROLS = {code: None for code in (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)) if code not in (0x09, 0x0A)}


def printable(text: str) -> str:
    """``text`` without control characters (newline and tab kept), and without lone surrogates."""
    return text.translate(_CONTROLS).encode("utf-8", "replace").decode("utf-8")
