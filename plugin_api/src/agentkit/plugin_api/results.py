"""Shaping a tool's result: the failure envelope, and one bounded accumulator for every cap.

Import it as ``from agentkit.plugin_api.results import enveloped, Accumulator``
(it is not imported with :mod:`agentkit.plugin_api`). Standard library only.

:func:`enveloped` wraps a handler so that it always returns a
:class:`~agentkit.plugin_api.ToolResult`: a :class:`~agentkit.plugin_api.ToolError`
it raises, and operating-system errors, become ``ToolResult.failure``. Where the
platform cannot open paths relative to directory descriptors without following
links (:func:`agentkit.plugin_api.workspace.descriptors_available` false), every
result says so in its metadata: ``containment="best-effort"``.

:class:`Accumulator` is for a tool that can produce more than the model should
see (file contents, listings, search matches, command output): it keeps the
first pieces up to the caps (the head) and, when asked, a rolling window of the
last pieces (the tail), so memory stays near twice the cap however much flows
through. What was dropped is counted, so a truncation notice can say exactly
how to see the rest. :class:`Limits` names one tool's caps, and :func:`size_option`
reads a cap the embedder sets in a tool option.

:class:`Spool` is for a body too long to hold at all (a command's megabytes of
output): written as it streams, in memory and then in a temporary file, and
returned in a :class:`SpooledResult`, it is kept whole by the host as an
artifact of the session, and the model gets its head and tail with the
artifact's id (see ``docs/artifacts.md``).
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any

from ._dataclass import dataclass
from ._spool import DEFAULT_SPOOL_CAP, DEFAULT_SPOOL_MEMORY, Spool, SpooledResult
from ._tools import ToolContext, ToolError, ToolResult
from .workspace import descriptors_available

__all__ = [
    "DEFAULT_SPOOL_CAP",
    "DEFAULT_SPOOL_MEMORY",
    "Accumulator",
    "Handler",
    "Limits",
    "Spool",
    "SpooledResult",
    "clip_line",
    "enveloped",
    "size_option",
]

#: A tool handler, as :class:`~agentkit.plugin_api.Tool` calls it.
Handler = Callable[[dict[str, Any], ToolContext], ToolResult]


def enveloped(handler: Handler) -> Handler:
    """Wrap a handler so that it always returns a :class:`~agentkit.plugin_api.ToolResult`."""

    @functools.wraps(handler)
    def call(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        result = _call(arguments, context)
        if not descriptors_available():
            result.metadata["containment"] = "best-effort"
        return result

    def _call(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        try:
            return handler(arguments, context)
        except ToolError as exc:
            return ToolResult.failure(exc.error, exc.detail)
        except FileNotFoundError as exc:
            return ToolResult.failure("not_found", f"{exc.filename or 'the path'} does not exist.")
        except IsADirectoryError as exc:
            return ToolResult.failure(
                "is_a_directory", f"{exc.filename} is a directory; use list_files to see inside it."
            )
        except PermissionError as exc:
            return ToolResult.failure("permission_denied", f"{exc.filename}: permission denied.")
        except OSError as exc:
            return ToolResult.failure("io_error", f"{exc.filename or ''}: {exc.strerror or exc}")

    return call


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
        """An accumulator with the item and byte caps of ``limits``."""
        return cls(limits.items, limits.bytes, keep_tail)

    @property
    def full(self) -> bool:
        """Whether the head is full (``truncated_by`` says which cap filled it)."""
        return self.truncated_by is not None

    @property
    def truncated(self) -> bool:
        """Whether some piece offered was kept in neither the head nor the tail."""
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


def size_option(options: Mapping[str, Any], name: str, default: int) -> int:
    """The tool option ``name``, a positive number of bytes (``default`` when it is not set).

    :raises ToolError: ``invalid_option`` for a value that is not a positive integer,
        naming the option and where the embedder sets it.
    """
    value = options.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ToolError(
            "invalid_option",
            f"The tool option {name} is {value!r}; set it to a positive number of bytes "
            "(in AgentConfig.tool_options).",
        )
    return value
