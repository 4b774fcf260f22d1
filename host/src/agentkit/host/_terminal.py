"""Untrusted text made safe to print on a terminal: every control is shown, none is interpreted.

What a model, a tool, a plugin's metadata, a skill file or a session log holds
reaches a terminal only through :func:`visible` (a multi-line body) or
:func:`visible_line` (a single-line field). A terminal acts on control
characters: an escape sequence can move the cursor, erase a line, retitle the
window or hide text; a carriage return overwrites what a line said; a
bidirectional override makes ``rm -rf x`` read as something else. Each is
replaced by a visible stand-in (docs/decisions/0028):

- C0 controls and DEL: their Unicode control pictures (ESC as ``␛``, CR as ``␍``);
- C1 controls, bidirectional formatting characters and the line and paragraph
  separators: ``<U+XXXX>``;
- a lone surrogate (which no terminal can be sent): ``?``.

:func:`visible` keeps newlines and tabs (a body reads as lines);
:func:`visible_line` shows them too (``␊``, ``␉``), so that one field is one line.
"""

from __future__ import annotations

__all__ = ["BIDI_CONTROLS", "visible", "visible_line"]

#: The bidirectional formatting characters (Unicode's Bidi_Control property): embeddings and overrides
#: (U+202A-202E), isolates (U+2066-2069), and the marks (U+200E, U+200F, U+061C).
BIDI_CONTROLS = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))

_LINE: dict[int, str] = {code: chr(0x2400 + code) for code in range(0x20)}  # ␀ … ␟
_LINE[0x7F] = "\u2421"  # ␡
_LINE.update({code: f"<U+{code:04X}>" for code in (*range(0x80, 0xA0), *BIDI_CONTROLS, 0x2028, 0x2029)})
_BODY = {code: picture for code, picture in _LINE.items() if code not in (0x09, 0x0A)}


def visible(text: str) -> str:
    """``text`` for a multi-line surface: every control but newline and tab shown as a visible stand-in."""
    return text.translate(_BODY).encode("utf-8", "replace").decode("utf-8")


def visible_line(text: str) -> str:
    """``text`` for a single-line field (a name, a title, a summary): newline and tab shown as well."""
    return text.translate(_LINE).encode("utf-8", "replace").decode("utf-8")
