"""One bounded accumulator for every cap: a head, an optional rolling tail, byte and item limits.

Every tool that can produce more than the model should see (file contents,
listings, search matches, command output) feeds its pieces through
:class:`Accumulator`. It keeps the first pieces up to the caps (the head) and,
when asked, a rolling window of the last pieces (the tail), so memory stays
near twice the cap however much flows through. What was dropped is counted,
so the truncation marker can say exactly how to see the rest.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

__all__ = [
    "FIND_LIMITS",
    "LIST_LIMITS",
    "LONG_LINE_WORKAROUND",
    "READ_LIMITS",
    "SEARCH_LIMITS",
    "Accumulator",
    "Limits",
    "clip_line",
]


@dataclass(frozen=True, slots=True)
class Limits:
    """The caps of one tool.

    :param items: most pieces (lines, entries, matches) kept.
    :param bytes: most UTF-8 bytes kept, counting one separator per piece.
    :param line_chars: longest single piece shown before it is clipped (0: no clip).
    """

    items: int
    bytes: int = 50 * 1024
    line_chars: int = 0


READ_LIMITS = Limits(items=2000)
SEARCH_LIMITS = Limits(items=100, line_chars=500)
FIND_LIMITS = Limits(items=1000)
LIST_LIMITS = Limits(items=500)

#: What read_file suggests for a line too long to show: print just that line, capped.
LONG_LINE_WORKAROUND = "sed -n '{line}p' {path} | head -c 51200"


def _size(piece: str) -> int:
    return len(piece.encode("utf-8", "surrogatepass")) + 1


@dataclass
class Accumulator:
    """Keeps a bounded head (and optionally a bounded tail) of a stream of text pieces.

    :param max_items: how many pieces the head may hold.
    :param max_bytes: how many bytes the head may hold.
    :param keep_tail: also keep a rolling tail of up to ``max_items``/``max_bytes``
        (for output whose end matters most, like a command's).

    ``add`` returns false once the head is full and no tail is kept: the caller
    can stop producing, the rest would be dropped anyway (it still counts what
    it skips through :meth:`skip` if it wants exact totals).
    """

    max_items: int
    max_bytes: int
    keep_tail: bool = False
    head: list[str] = field(default_factory=list)
    tail: deque[str] = field(default_factory=deque)
    head_bytes: int = 0
    tail_bytes: int = 0
    seen: int = 0
    truncated_by: str | None = None

    @classmethod
    def for_limits(cls, limits: Limits, *, keep_tail: bool = False) -> Accumulator:
        return cls(limits.items, limits.bytes, keep_tail)

    @property
    def full(self) -> bool:
        return self.truncated_by is not None

    @property
    def truncated(self) -> bool:
        return self.seen > len(self.head) + len(self.tail)

    def add(self, piece: str) -> bool:
        """Offer one piece; returns whether the caller should keep producing."""
        self.seen += 1
        size = _size(piece)
        if not self.full:
            if len(self.head) >= self.max_items:
                self.truncated_by = "items"
            elif self.head_bytes + size > self.max_bytes:
                self.truncated_by = "bytes"
            else:
                self.head.append(piece)
                self.head_bytes += size
                return True
        if not self.keep_tail:
            return False
        self.tail.append(piece)
        self.tail_bytes += size
        while self.tail and (len(self.tail) > self.max_items or self.tail_bytes > self.max_bytes):
            self.tail_bytes -= _size(self.tail.popleft())
        return True

    def skip(self, count: int = 1) -> None:
        """Count pieces the caller chose not to produce after :meth:`add` said stop."""
        self.seen += count


def clip_line(text: str, max_chars: int) -> tuple[str, bool]:
    """Clip one line to ``max_chars`` characters; returns the text and whether it was clipped."""
    if max_chars and len(text) > max_chars:
        return text[:max_chars], True
    return text, False
