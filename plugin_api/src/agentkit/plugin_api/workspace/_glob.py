"""The glob dialect of find_files and search_files' ``file_glob``: git's wildmatch, plus braces.

Each alternative is matched by git's wildmatch with WM_PATHNAME (the one
translation, :func:`._gitpattern.wildmatch`, that gitignore rules use too), on
the path's bytes, as ``git --glob-pathspecs ls-files`` does (the test suite
checks it against git):

- ``*`` matches within one path segment, ``?`` one byte (never ``/``).
- ``**`` as a whole segment matches zero or more segments: ``**/*.py``,
  ``src/**/test_*.py``, ``build/**``. Elsewhere it acts as ``*``.
- ``[abc]``, ``[a-z]``, negated ``[!x]`` / ``[^x]``, POSIX ``[[:digit:]]``
  (ASCII) and escaped members ``[\\]]``, ``[\\1-\\3]`` (never ``/``).
- ``\\`` escapes the next character.
- A glob git cannot read (an unclosed ``[``, a trailing ``\\``) matches only the
  path spelled exactly so, as in git.
- ``{a,b}`` braces, nestable, may contain ``/``: ``*.{ts,tsx}``, ``{src,lib}/**``
  (not git's: expanded first, each alternative then matched as above).
- A pattern without ``/`` is read as ``**/<pattern>``: a file name at any depth
  (``*.py``); a pattern with ``/`` matches the path relative to the directory
  searched (a leading ``./`` or ``/`` anchors it there and is dropped).

Both search backends filter with this dialect before any file is opened, so
they agree on which files exist for a query.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from dataclasses import field

from .._dataclass import dataclass
from .._tools import ToolError
from ._gitpattern import MalformedPattern, wildmatch
from ._globwalk import enter_test, file_test

__all__ = ["Glob", "compile_glob", "expand_braces"]

MAX_ALTERNATIVES = 256


def _split_top_level(body: str) -> list[str] | None:
    parts, depth, current, i = [], 0, [], 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            current.append(body[i : i + 2])
            i += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            i += 1
            continue
        current.append(char)
        i += 1
    parts.append("".join(current))
    return parts if len(parts) > 1 else None


def _matching_brace(pattern: str, start: int) -> int:
    depth, i = 0, start
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def expand_braces(pattern: str) -> list[str]:
    """Expand ``{a,b}`` alternatives (nested too); a brace without a comma stays literal."""
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
            continue
        if pattern[i] == "{":
            end = _matching_brace(pattern, i)
            if end == -1:
                break
            alternatives = _split_top_level(pattern[i + 1 : end])
            if alternatives is None:
                i = end + 1
                continue
            prefix, suffix = pattern[:i], pattern[end + 1 :]
            expanded: list[str] = []
            for alternative in alternatives:
                expanded.extend(expand_braces(prefix + alternative + suffix))
                if len(expanded) > MAX_ALTERNATIVES:
                    raise ToolError(
                        "invalid_glob",
                        f"{pattern!r} expands to more than {MAX_ALTERNATIVES} alternatives; "
                        "use fewer braces.",
                    )
            return expanded
        i += 1
    return [pattern]


@dataclass(frozen=True)
class _Alternative:
    spelled: bytes
    regex: re.Pattern[bytes] | None
    anywhere: bool  # no "/": read as "**/<glob>", a name at any depth


@dataclass(frozen=True)
class Glob:
    """A compiled glob; :meth:`matches` takes a ``/``-separated relative path."""

    pattern: str
    alternatives: tuple[_Alternative, ...]
    # What the alternatives say, gathered once: a walk asks about every file.
    _paths: frozenset[bytes] = field(init=False, repr=False, compare=False)
    _names: frozenset[bytes] = field(init=False, repr=False, compare=False)
    _regexes: tuple[Callable[[bytes], re.Match[bytes] | None], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        spelled = self.alternatives
        object.__setattr__(self, "_paths", frozenset(a.spelled for a in spelled if not a.anywhere))
        object.__setattr__(self, "_names", frozenset(a.spelled for a in spelled if a.anywhere))
        object.__setattr__(self, "_regexes", tuple(a.regex.fullmatch for a in spelled if a.regex is not None))

    def matches(self, relative_path: str) -> bool:
        """Whether one alternative matches: by its regex, or spelled exactly like the path (the
        name, for one without ``/``), as git matches a pathspec before any wildcard (so a
        glob it cannot read still finds the file of that name)."""
        path = relative_path.encode(_FS_ENCODING, _FS_ERRORS)  # os.fsencode, without its checks per file
        if path in self._paths or (self._names and path.rpartition(b"/")[2] in self._names):
            return True
        for fullmatch in self._regexes:  # noqa: SIM110 - any() over a generator costs a frame per file
            if fullmatch(path) is not None:
                return True
        return False

    def walk_tests(self) -> tuple[Callable[[str, str], bool], Callable[[str], bool] | None]:
        """The glob as a walk asks it: per file without building its path, per directory
        whether to enter it at all.

        :returns: ``(file_test, enter)``. ``file_test(directory, name)`` is
            ``matches(directory + name)``, with ``directory`` relative to the
            directory searched, ``""`` or ending in ``/``. ``enter(directory)``
            (no trailing ``/``) is false only where no path below ``directory``
            can match; None when every directory may hold a match.
        """
        return file_test(self.alternatives), enter_test(self.alternatives)


_FS_ENCODING, _FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()


def _alternative(text: str, anywhere: bool) -> _Alternative:
    spelled = os.fsencode(text)
    try:
        regex: re.Pattern[bytes] | None = wildmatch(b"**/" + spelled if anywhere else spelled)
    except MalformedPattern:
        regex = None
    return _Alternative(spelled, regex, anywhere)


def compile_glob(pattern: str) -> Glob:
    """Compile ``pattern`` in the dialect above.

    :raises ToolError: ``invalid_glob`` for an empty pattern or one with too many alternatives.
    """
    if not pattern.strip():
        raise ToolError("invalid_glob", "The glob is empty; try '*' or '**/*.py'.")
    alternatives = []
    for alternative in expand_braces(pattern):
        # "./name" and "/name" name the top of the directory searched, not any depth.
        anywhere = "/" not in alternative
        while alternative.startswith("./"):
            alternative = alternative[2:]
        alternatives.append(_alternative(alternative.lstrip("/"), anywhere))
    return Glob(pattern, tuple(alternatives))
