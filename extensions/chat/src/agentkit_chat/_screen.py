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
from collections.abc import Mapping
from typing import TextIO

__all__ = ["DEFAULT_THEME", "THEMES", "Screen", "wants_plain"]

#: Select Graphic Rendition parameters for each role, per theme; ``plain`` writes none.
THEMES: dict[str, dict[str, str]] = {
    "dark": {"prompt": "1;36", "thinking": "2;3", "tool": "36", "ok": "32", "error": "31",
             "usage": "2", "note": "33", "user": "1"},
    "light": {"prompt": "1;34", "thinking": "2;3", "tool": "34", "ok": "32", "error": "31",
              "usage": "2", "note": "35", "user": "1"},
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


class Screen:
    """Writes the chat's output: styled per the theme's roles, or plain.

    ``plain`` also picks ASCII markers, so that plain output reads the same in a
    log file as on a terminal without colour.
    """

    def __init__(self, stream: TextIO, theme: str = DEFAULT_THEME) -> None:
        self.stream = stream
        self.theme = theme
        self.at_line_start = True

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
        self.stream.write(self.style(text, role))
        self.stream.flush()
        self.at_line_start = text.endswith("\n")

    def line(self, text: str, role: str | None = None) -> None:
        """Write ``text`` on a line of its own."""
        self.end_line()
        self.write(text + "\n", role)

    def end_line(self) -> None:
        """End a line left open by streamed text."""
        if not self.at_line_start:
            self.write("\n")
