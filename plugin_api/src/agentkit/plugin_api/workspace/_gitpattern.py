"""One gitignore line, or one glob, to a regular expression, following git's wildmatch (WM_PATHNAME).

:func:`wildmatch` is the one translation of a wildmatch pattern; gitignore lines
(:func:`parse_line`) and the glob dialect (:mod:`._glob`) both use it.

The rules (gitignore(5), checked against git itself by the test suite):
trailing unescaped spaces are trimmed; ``#`` starts a comment; ``!`` negates;
a trailing ``/`` restricts to directories; a pattern with a ``/`` before its
end is anchored to its file's directory, otherwise it matches a name at any
depth; ``**`` as a whole segment spans directories; ``[...]`` classes with
ranges, ``!``/``^`` negation and ``[:alpha:]`` names; ``\\`` escapes. A
malformed pattern (unclosed class, trailing backslash) matches nothing, as
in git.

Like git, matching is on bytes: a rule file need not be UTF-8, ``?`` and a
class match one byte, and ``ignore_case`` (``core.ignoreCase``) folds ASCII
letters only. The translation works on the line decoded as Latin-1 (one
character per byte) and compiles the result back to a bytes expression.
"""

from __future__ import annotations

import os
import re

from .._dataclass import dataclass

__all__ = ["MalformedPattern", "Pattern", "parse_line", "parse_lines", "trim_trailing_spaces", "wildmatch"]

_POSIX = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": " \\t\\n\\r\\f\\v",
    "upper": "A-Z",
    "xdigit": "0-9a-fA-F",
}


class MalformedPattern(ValueError):
    """The pattern is malformed (an unclosed class, a trailing backslash, an unknown
    ``[:name:]``): git's wildmatch returns WM_ABORT_ALL, nothing matches."""




@dataclass(frozen=True, slots=True)
class Pattern:
    """One parsed rule.

    :param negated: a ``!`` rule (re-includes).
    :param dir_only: had a trailing ``/``.
    :param basename: no ``/`` in the pattern: matched against the entry's name.
    :param regex: compiled, matched with ``fullmatch``; None if the pattern can never match.
    """

    source: str
    negated: bool
    dir_only: bool
    basename: bool
    regex: re.Pattern[bytes] | None

    def matches(self, relative: str | bytes, name: str | bytes, is_dir: bool) -> bool:
        """Whether the rule matches; str arguments are file names as ``os`` gives them."""
        if self.regex is None or (self.dir_only and not is_dir):
            return False
        subject = name if self.basename else relative
        return self.regex.fullmatch(os.fsencode(subject)) is not None


def trim_trailing_spaces(line: str) -> str:
    """Drop trailing spaces unless escaped by a backslash (git's trim_trailing_spaces)."""
    last_space = None
    i = 0
    while i < len(line):
        char = line[i]
        if char == " ":
            if last_space is None:
                last_space = i
        elif char == "\\":
            i += 1
            if i >= len(line):
                return line
            last_space = None
        else:
            last_space = None
        i += 1
    return line[:last_space] if last_space is not None else line


def _bracket(pattern: str, start: int) -> tuple[str, int]:
    i = start + 1
    n = len(pattern)
    if i < n and pattern[i] in "!^":
        negated = True
        i += 1
    else:
        negated = False
    members: list[str] = []
    previous: str | None = None
    first = True
    while True:
        if i >= n:
            raise MalformedPattern
        char = pattern[i]
        if char == "]" and not first:
            break
        first = False
        if char == "\\":
            i += 1
            if i >= n:
                raise MalformedPattern
            char = pattern[i]
            members.append(re.escape(char))
            previous = char
        elif char == "-" and previous is not None and i + 1 < n and pattern[i + 1] != "]":
            i += 1
            high = pattern[i]
            if high == "\\":
                i += 1
                if i >= n:
                    raise MalformedPattern
                high = pattern[i]
            if previous <= high:
                members.append(f"{re.escape(previous)}-{re.escape(high)}")
            previous = None
        elif char == "[" and i + 1 < n and pattern[i + 1] == ":":
            close = pattern.find("]", i + 2)
            if close == -1:
                raise MalformedPattern
            if pattern[close - 1] != ":" or close - 1 < i + 2:
                # Not "[:name:]": the "[" is an ordinary member.
                members.append(re.escape("["))
                previous = "["
            else:
                name = pattern[i + 2 : close - 1]
                if name not in _POSIX:
                    raise MalformedPattern
                members.append(_POSIX[name])
                previous = None
                i = close
        else:
            members.append(re.escape(char))
            previous = char
        i += 1
    body = "".join(members)
    # With WM_PATHNAME a bracket never matches "/".
    return (f"[^/{body}]" if negated else f"(?!/)[{body}]"), i + 1


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            at_boundary = (i == 0 or pattern[i - 1] == "/") and (j == n or pattern[j] == "/")
            if j - i >= 2 and at_boundary:
                if j == n:
                    out.append(".*")
                    i = j
                else:
                    out.append("(?:.*/)?")
                    i = j + 1
            else:
                out.append("[^/]*")
                i = j
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            regex, i = _bracket(pattern, i)
            out.append(regex)
        elif char == "\\":
            if i + 1 >= n:
                raise MalformedPattern
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def wildmatch(pattern: str | bytes, ignore_case: bool = False) -> re.Pattern[bytes]:
    """Compile a wildmatch pattern (WM_PATHNAME) to a bytes expression for ``fullmatch``.

    Matching is on bytes, as git's: ``?`` and a class match one byte.

    :raises MalformedPattern: git would match nothing with it.
    """
    text = _as_bytes(pattern).decode("latin-1")
    flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
    return re.compile(_translate(text).encode("latin-1"), flags)


def _as_bytes(text: str | bytes) -> bytes:
    return text if isinstance(text, bytes) else os.fsencode(text)


def parse_line(line: str | bytes, ignore_case: bool = False) -> Pattern | None:
    """Parse one line (without its newline); None for blanks and comments.

    :param ignore_case: fold ASCII case, as git does with ``core.ignoreCase``.
    """
    # One character per byte, so the translation below works byte by byte.
    line = _as_bytes(line).decode("latin-1")
    if line.endswith("\r"):
        line = line[:-1]
    if not line or line.startswith("#"):
        return None
    line = trim_trailing_spaces(line)
    source = os.fsdecode(line.encode("latin-1"))
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    dir_only = line.endswith("/")
    if dir_only:
        line = line[:-1]
    if not line:
        return None
    basename = "/" not in line
    if line.startswith("/"):
        line = line[1:]
    try:
        regex: re.Pattern[bytes] | None = wildmatch(line.encode("latin-1"), ignore_case)
    except MalformedPattern:
        regex = None
    return Pattern(source, negated, dir_only, basename, regex)


def parse_lines(text: str | bytes, ignore_case: bool = False) -> list[Pattern]:
    """Parse a whole ignore file (a leading BOM is skipped, as git does)."""
    data = _as_bytes(text)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    patterns = []
    for line in data.split(b"\n"):
        pattern = parse_line(line, ignore_case)
        if pattern is not None:
            patterns.append(pattern)
    return patterns
