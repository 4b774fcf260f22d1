"""An answer streamed onto a terminal as Markdown: each finished block rendered, the open one shown as written.

Text arrives in pieces. A block is finished at a blank line, or before a code
fence; a code block's lines are finished one by one (they are written as they
are). The block still open is shown as it was written, so that the answer is
read while it streams, and is erased and written again, rendered, once it is
finished. Erasing needs the lines it takes on the screen, so an open block
that would outgrow the screen is rendered in pieces rather than left half
erased.
"""

from __future__ import annotations

import re

from agentkit.host.cli.support import visible

from ._markdown import render
from ._screen import THEMES, Screen

__all__ = ["MarkdownAnswer"]

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
#: Screen lines left free below an open block: the block is rendered before it grows past them.
_SPARE_ROWS = 3


class MarkdownAnswer:
    """One text block of an answer, rendered as it streams onto ``screen`` (a terminal with a theme)."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self.codes = THEMES[screen.theme]
        self.pending = ""  # the text of the open block, shown as written
        self.fence: str | None = None  # the opening fence's marker while inside a code block

    def feed(self, delta: str) -> None:
        """Take the next piece of text."""
        self.pending += delta
        if self._finish_blocks():
            self.screen.erase_draft()
            self._write_draft()
        else:
            self.screen.draft(visible(delta))
        size = self.screen.size()
        if size is not None and self.screen.draft_rows() > size[1] - _SPARE_ROWS and "\n" in self.pending:
            # Too tall to erase whole: render the lines that are complete, as a block of their own.
            cut = self.pending.rindex("\n") + 1
            self.screen.erase_draft()
            self._emit(self.pending[:cut])
            self.pending = self.pending[cut:]
            self._write_draft()

    def finish(self) -> None:
        """The block ended (or the response did): what is left is final."""
        self.screen.erase_draft()
        if self.fence is not None:
            for line in self.pending.split("\n"):
                if line:
                    self.screen.write(self._code_line(line) + "\n")
        else:
            self._emit(self.pending)
        self.pending, self.fence = "", None

    # -- finishing blocks ----------------------------------------------------------------

    def _finish_blocks(self) -> bool:
        """Render what the text received so far finishes; whether anything was."""
        finished = False
        while "\n" in self.pending:
            if self.fence is not None:
                line, _, rest = self.pending.partition("\n")
                if not finished:
                    self.screen.erase_draft()
                finished = True
                if line.strip().startswith(self.fence) and not line.strip().strip(self.fence[0]):
                    self.screen.write(self.screen.style(visible(line.strip()), "quote") + "\n")
                    self.fence = None
                else:
                    self.screen.write(self._code_line(line) + "\n")
                self.pending = rest
                continue
            cut = self._block_end()
            if cut is None:
                break
            block, opener, self.pending = cut
            if not finished:
                self.screen.erase_draft()
            finished = True
            self._emit(block)
            if opener is not None:
                self.screen.write(self.screen.style(visible(opener.strip()), "quote") + "\n")
                match = _FENCE.match(opener)
                assert match is not None
                self.fence = match.group(1)
            else:
                self.screen.write("\n")  # the blank line that ended the block
        return finished

    def _block_end(self) -> tuple[str, str | None, str] | None:
        """The first finished block of ``pending``: its text, the fence that opens after it, what follows."""
        offset = 0
        while True:
            end = self.pending.find("\n", offset)
            if end < 0:
                return None
            line = self.pending[offset:end]
            if not line.strip():
                return self.pending[:offset], None, self.pending[end + 1:]
            if _FENCE.match(line):
                return self.pending[:offset], line, self.pending[end + 1:]
            offset = end + 1

    def _emit(self, block: str) -> None:
        if block.strip():
            self.screen.write("\n".join(render(block, self.codes)) + "\n")

    def _code_line(self, line: str) -> str:
        return self.screen.style(visible(line), "code")

    def _write_draft(self) -> None:
        if self.pending:
            self.screen.draft(visible(self.pending))

