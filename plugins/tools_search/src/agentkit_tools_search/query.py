"""One search, as both backends receive it, and the contract their answers follow.

The file set is decided here, once, by the ignore engine and our glob dialect
(symbolic links are not followed, so a link cannot lead a search out of the
workspace). A backend only scans the files it is given, in the order given,
and answers with :class:`Outcome`. Both backends stop after the first file
that takes the match count past what the page needs, keeping one match past it
(which says there are more), so ``files_searched`` and truncation agree
between them.

Binary means "contains a NUL byte anywhere"; a binary file never shows a match
but counts as searched (it was, for its NUL): ``files_searched`` counts every
file scanned, which ripgrep reports without printing anything about the binary
ones. The pattern is read in one dialect, ripgrep's, on both
backends (:mod:`.dialect`), over the files' bytes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agentkit.plugin_api.workspace import Glob, IgnoreEngine, WalkedFiles

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "FileList",
    "Match",
    "Outcome",
    "Query",
    "collect_files",
    "read_listed",
    "smart_case_ignores",
]

#: The largest file searched, unless the embedder's ``max_file_bytes`` tool option says otherwise:
#: the native backend holds a file whole (its bytes, its text, its lines) while it scans it.
DEFAULT_MAX_FILE_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Query:
    """What to search for and where.

    :param pattern: the regular expression, in ripgrep's dialect (:mod:`.dialect`).
    :param ignore_case: decided once, by the caller (smart case by default).
    :param context_lines: lines of context before and after each match.
    :param root: the workspace root; ``files`` are relative to it.
    :param files: the files to scan, in order (a :class:`FileList` walks them as they
        are needed, so a search that stops early has not walked the whole tree).
    :param needed: how many matches the requested page needs; a backend stops
        after the file that takes the count past it, with ``needed + 1`` matches.
    :param max_file_bytes: a file larger than this is not searched (the walk
        leaves it out; one that grew since is left unread and reported in
        :attr:`Outcome.oversize`).
    """

    pattern: str
    ignore_case: bool
    context_lines: int
    root: Path
    files: Iterable[str]
    needed: int
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES


@dataclass(frozen=True, slots=True)
class Match:
    """One matching line, with raw (unclipped) text and its context lines."""

    file: str
    line: int
    text: str
    before: tuple[str, ...]
    after: tuple[str, ...]


@dataclass(slots=True)
class Outcome:
    """What a backend found: matches in file then line order, and the files scanned."""

    matches: list[Match] = field(default_factory=list)
    files_searched: int = 0
    backend: str = ""
    #: Files left unread because they had grown past ``Query.max_file_bytes``: path and size.
    oversize: list[tuple[str, int]] = field(default_factory=list)
    #: Text files the native backend matched with the expression exact for every character, for
    #: they hold more than ASCII (the others take the faster one, see :mod:`.native`).
    unicode_files: int = 0


_ESCAPE = re.compile(r"\\.")


def smart_case_ignores(pattern: str) -> bool:
    """Smart case: ignore case unless the pattern has an uppercase letter outside escapes."""
    return not any(char.isupper() for char in _ESCAPE.sub("", pattern))


def walk_files(
    engine: IgnoreEngine,
    start: str,
    glob: Glob | None,
    max_size: int | None = None,
    oversize: list[tuple[str, int]] | None = None,
) -> Iterator[str]:
    """The files a search scans below ``start`` (relative to the root; "" for the root), lazily.

    With ``max_size``, a larger file is left out (ripgrep, given a path, would read it to its
    end whatever its size) and appended to ``oversize`` with its size.
    """
    # Regular files only: links are not followed; FIFOs and devices would block a read. The
    # glob itself, not its matches(): the walk then asks it by name and skips what it excludes.
    if max_size is None:
        return engine.files(start, glob)
    told = None if oversize is None else lambda path, size: oversize.append((path, size))
    return engine.files(start, glob, max_size=max_size, oversize=told)


class TooLarge(Exception):
    """A listed file has grown past the size limit since the walk."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


def read_listed(files: WalkedFiles, relative: str, limit: int) -> bytes | None:
    """The bytes of a listed file, never more than ``limit``; None if it is gone or swapped.

    :raises TooLarge: the file holds more than ``limit`` bytes (it is not read then).
    """
    fd = files.open(relative)
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(fd).st_size
        if size > limit:
            raise TooLarge(size)
        # As many bytes as the file holds and one more, which tells whether it grew since: a read of
        # the limit itself would allocate the limit (32 MiB) for every file (bench_search: 2x slower).
        data = handle.read(size + 1)
        if len(data) > size:
            data += handle.read(limit + 1 - len(data))  # it grew: read on, never past the limit
    if len(data) > limit:
        raise TooLarge(len(data))
    return data


def collect_files(engine: IgnoreEngine, start: str, glob: Glob | None) -> list[str]:
    """The files a search scans below ``start``, all of them."""
    return list(walk_files(engine, start, glob))


class FileList:
    """Files walked as a backend asks for them, kept so that a second backend can read them again.

    The walk runs in this process while ripgrep scans the previous chunk in its own.
    """

    def __init__(self, source: Iterable[str]) -> None:
        self._source = iter(source)
        self._seen: list[str] = []

    def __iter__(self) -> Iterator[str]:
        seen = self._seen
        index = 0
        while True:
            while index < len(seen):  # what another reader walked
                yield seen[index]
                index += 1
            for item in self._source:
                seen.append(item)
                index += 1
                yield item
                if index != len(seen):
                    break  # another reader walked on meanwhile: catch up first
            else:
                return

    @property
    def listed(self) -> int:
        """How many files the walk has produced so far."""
        return len(self._seen)


def line_text(raw: str) -> str:
    """A line as shown: without its terminator (LF or CRLF)."""
    return raw[:-1] if raw.endswith("\r") else raw
