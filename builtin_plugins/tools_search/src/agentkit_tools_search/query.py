"""One search, as both backends receive it, and the contract their answers follow.

The file set is decided here, once, by the ignore engine and our glob dialect
(symbolic links are not followed, so a link cannot lead a search out of the
workspace). A backend only scans the files it is given, in the order given,
and answers with :class:`Outcome`. Both backends stop after the first file
that takes the match count past what the page needs, so ``files_searched`` and
truncation agree between them.

Binary means "contains a NUL byte anywhere"; binary files are skipped and not
counted as searched. The pattern is read in one dialect, ripgrep's, on both
backends (:mod:`.dialect`), over the files' bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from agentkit_tools_files.glob import Glob
from agentkit_tools_files.ignore import IgnoreEngine

__all__ = ["Match", "Outcome", "Query", "collect_files", "smart_case_ignores"]


@dataclass(frozen=True, slots=True)
class Query:
    """What to search for and where.

    :param pattern: the regular expression, in ripgrep's dialect (:mod:`.dialect`).
    :param ignore_case: decided once, by the caller (smart case by default).
    :param context_lines: lines of context before and after each match.
    :param root: the workspace root; ``files`` are relative to it.
    :param files: the files to scan, in order.
    :param needed: how many matches the requested page needs; a backend stops
        after the file that takes the count past it.
    """

    pattern: str
    ignore_case: bool
    context_lines: int
    root: Path
    files: list[str]
    needed: int


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
    """What a backend found: matches in file then line order, and text files scanned."""

    matches: list[Match] = field(default_factory=list)
    files_searched: int = 0
    backend: str = ""


_ESCAPE = re.compile(r"\\.")


def smart_case_ignores(pattern: str) -> bool:
    """Smart case: ignore case unless the pattern has an uppercase letter outside escapes."""
    return not any(char.isupper() for char in _ESCAPE.sub("", pattern))


def collect_files(engine: IgnoreEngine, start: str, glob: Glob | None) -> list[str]:
    """The files a search scans below ``start`` (relative to the root; "" for the root)."""
    cut = len(start) + 1 if start else 0
    files = []
    for entry in engine.walk(start, include_dirs=False):
        if not entry.is_file:
            continue  # links are not followed; FIFOs and devices would block a read
        if glob is not None and not glob.matches(entry.path[cut:]):
            continue
        files.append(entry.path)
    return files


def line_text(raw: str) -> str:
    """A line as shown: without its terminator (LF or CRLF)."""
    return raw[:-1] if raw.endswith("\r") else raw
