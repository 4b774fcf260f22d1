"""The terminal the chat writes to: themes, plain output, and its size.

Everything the model or a tool produced passes through the host's
:func:`~agentkit.host.cli.support.visible` (or ``visible_line``) before it
reaches the terminal: a control character is shown as its Unicode control
picture (ESC as ``␛``), a C1 control or a bidirectional override as
``<U+XXXX>``, so an escape sequence in a tool result is seen, never executed.
The chat's own styling is the only escape sequence it writes, and only on a
terminal that wants colour.
"""

from __future__ import annotations

import os
import shutil
import unicodedata
from collections.abc import Mapping
from typing import TextIO

__all__ = ["DEFAULT_THEME", "THEMES", "Screen", "cells", "wants_plain"]

#: Select Graphic Rendition parameters for each role, per theme; ``plain`` writes none.
THEMES: dict[str, dict[str, str]] = {
    "dark": {"prompt": "1;36", "thinking": "2;3", "tool": "36", "ok": "32", "error": "31",
             "usage": "2", "note": "33", "user": "1", "status": "2;36",
             # An answer's Markdown (_markdown.py).
             "heading1": "1;4", "heading": "1", "strong": "1", "emphasis": "3", "strike": "9", "link": "4",
             "code": "33", "quote": "2"},
    "light": {"prompt": "1;34", "thinking": "2;3", "tool": "34", "ok": "32", "error": "31",
              "usage": "2", "note": "35", "user": "1", "status": "2;34",
              "heading1": "1;4", "heading": "1", "strong": "1", "emphasis": "3", "strike": "9", "link": "4",
              "code": "35", "quote": "2"},
    "plain": {},
}
DEFAULT_THEME = "dark"

def wants_plain(stream: TextIO, environ: Mapping[str, str] | None = None, *, plain: bool = False) -> bool:
    """Whether to write without styling: ``--plain``, ``NO_COLOR`` set (no-color.org), or not a terminal."""
    env = os.environ if environ is None else environ
    if plain or env.get("NO_COLOR"):
        return True
    try:
        return not stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream: no terminal to colour
        return True


def cells(text: str) -> int:
    """Terminal cells ``text`` takes (no escape sequence in it): wide characters two, combining marks none."""
    return sum(0 if unicodedata.combining(char) else 2 if unicodedata.east_asian_width(char) in "WF" else 1
               for char in text)


#: Back to the start of the line and erase it: how the status line goes.
_ERASE_LINE = "\r\x1b[2K"


class Screen:
    """Writes the chat's output: styled per the theme's roles, or plain.

    ``plain`` also picks ASCII markers, so that plain output reads the same in a
    log file as on a terminal without colour.

    On a terminal with a theme, two things are drawn to be taken back: the
    status line (:meth:`status`), which anything written first erases, and a
    draft (:meth:`draft`): an answer's open block as written, erased by
    :meth:`erase_draft` to be written again rendered. Neither stays in the
    scrollback.
    """

    def __init__(self, stream: TextIO, theme: str = DEFAULT_THEME) -> None:
        self.stream = stream
        self.theme = theme
        self.at_line_start = True
        self._status_shown = False
        self._draft = ""

    @property
    def plain(self) -> bool:
        return self.theme == "plain"

    def size(self) -> tuple[int, int] | None:
        """The terminal's columns and rows; ``None`` when the output is no terminal (nothing scrolls away)."""
        try:
            if not self.stream.isatty():
                return None
        except (AttributeError, ValueError):  # a closed or odd stream: no terminal
            return None
        columns, rows = shutil.get_terminal_size()
        return max(columns, 20), max(rows, 5)

    def marker(self, fancy: str, ascii_: str) -> str:
        return ascii_ if self.plain else fancy

    def style(self, text: str, role: str | None) -> str:
        code = THEMES[self.theme].get(role or "")
        return f"\x1b[{code}m{text}\x1b[0m" if code and text else text

    def write(self, text: str, role: str | None = None) -> None:
        """Write ``text`` as it is (the caller made it visible) in ``role``'s style."""
        if not text:
            return
        self._put(self.style(text, role))
        self.at_line_start = text.endswith("\n")

    def line(self, text: str, role: str | None = None) -> None:
        """Write ``text`` on a line of its own."""
        self.end_line()
        self.write(text + "\n", role)

    def end_line(self) -> None:
        """End a line left open by streamed text."""
        if not self.at_line_start:
            self.write("\n")

    # -- what is drawn to be taken back -------------------------------------------------

    def status(self, text: str | None) -> None:
        """Show ``text`` on the status line (the empty line the cursor is on), or take it away (``None``).

        Only on a terminal with a theme, and only at the start of a line: never over streamed text.
        """
        if text is None or self.plain or not self.at_line_start or self._draft:
            if self._status_shown:
                self._put("")
            return
        size = self.size()
        if size is None:
            return
        cut = text if cells(text) < size[0] else text[: max(size[0] - 2, 1)]  # one line, never wrapped
        self.stream.write(_ERASE_LINE + self.style(cut, "status"))
        self.stream.flush()
        self._status_shown = True

    def draft(self, text: str) -> None:
        """Write ``text`` (made visible, unstyled) to be erased by :meth:`erase_draft`."""
        if text:
            self._put(text)
            self._draft += text
            self.at_line_start = text.endswith("\n")

    def draft_rows(self) -> int:
        """Screen lines the draft takes, from the start of its first line to the cursor."""
        size = self.size()
        columns = size[0] if size is not None else 80
        return sum(max(1, -(-cells(line.expandtabs(8)) // columns)) for line in self._draft.split("\n"))

    def erase_draft(self) -> None:
        """Take the draft off the screen: the cursor goes back to where it began."""
        if not self._draft:
            return
        rows = self.draft_rows()
        self._draft = ""
        self._put("\r" + (f"\x1b[{rows - 1}A" if rows > 1 else "") + "\x1b[J")
        self.at_line_start = True

    def _put(self, text: str) -> None:
        if self._status_shown:  # whatever comes is written where the status was
            text = _ERASE_LINE + text
            self._status_shown = False
        self.stream.write(text)
        self.stream.flush()
