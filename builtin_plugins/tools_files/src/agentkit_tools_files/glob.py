"""The glob dialect of find_files and search_files' ``file_glob``.

- ``*`` matches within one path segment, ``?`` one character (never ``/``).
- ``**`` as a whole segment matches zero or more segments: ``**/*.py``,
  ``src/**/test_*.py``, ``build/**``. Elsewhere it acts as ``*``.
- ``[abc]``, ``[a-z]``, and negated ``[!x]`` / ``[^x]`` classes (never ``/``);
  an unclosed ``[`` is a literal.
- ``{a,b}`` braces, nestable, may contain ``/``: ``*.{ts,tsx}``, ``{src,lib}/**``.
- ``\\`` escapes the next character.
- A pattern without ``/`` matches the file name at any depth (``*.py``); a
  pattern with ``/`` matches the path relative to the directory searched
  (a leading ``./`` or ``/`` is dropped).

Both search backends filter with this dialect before any file is opened, so
they agree on which files exist for a query.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentkit.plugin_api import ToolError

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


def _class(pattern: str, start: int) -> tuple[str, int] | None:
    """Translate the class opening at ``start``; None when it is not closed."""
    i = start + 1
    negate = i < len(pattern) and pattern[i] in "!^"
    if negate:
        i += 1
    members: list[str] = []
    first = True
    while i < len(pattern):
        char = pattern[i]
        if char == "]" and not first:
            body = "".join(members)
            regex = f"[^/{body}]" if negate else f"(?!/)[{body}]"
            return regex, i + 1
        if char == "\\" and i + 1 < len(pattern):
            i += 1
            char = pattern[i]
        if i + 2 < len(pattern) and pattern[i + 1] == "-" and pattern[i + 2] != "]":
            high = pattern[i + 2]
            if char <= high:
                members.append(f"{re.escape(char)}-{re.escape(high)}")
            i += 3
        else:
            members.append(re.escape(char))
            i += 1
        first = False
    return None


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            whole_segment = (i == 0 or pattern[i - 1] == "/") and (j == n or pattern[j] == "/")
            if j - i >= 2 and whole_segment:
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
            translated = _class(pattern, i)
            if translated is None:
                out.append(re.escape("["))
                i += 1
            else:
                out.append(translated[0])
                i = translated[1]
        elif char == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class Glob:
    """A compiled glob; :meth:`matches` takes a ``/``-separated relative path."""

    pattern: str
    regex: re.Pattern[str]
    basename_only: bool

    def matches(self, relative_path: str) -> bool:
        subject = relative_path.rsplit("/", 1)[-1] if self.basename_only else relative_path
        return self.regex.fullmatch(subject) is not None


def compile_glob(pattern: str) -> Glob:
    """Compile ``pattern`` in the dialect above.

    :raises ToolError: ``invalid_glob`` for an empty pattern or one with too many alternatives.
    """
    if not pattern.strip():
        raise ToolError("invalid_glob", "The glob is empty; try '*' or '**/*.py'.")
    alternatives = []
    basename_only = True
    for alternative in expand_braces(pattern):
        while alternative.startswith("./"):
            alternative = alternative[2:]
        if "/" in alternative:
            basename_only = False
        alternatives.append(alternative)
    regexes = []
    for alternative in alternatives:
        anchored = alternative.lstrip("/")
        if basename_only or "/" in alternative:
            regexes.append(_translate(anchored))
        else:
            # Mixed braces like {*.py,src/*}: a slash-free alternative still
            # matches the file name at any depth.
            regexes.append("(?:.*/)?" + _translate(anchored))
    return Glob(
        pattern, re.compile("|".join(f"(?:{r})" for r in regexes), re.DOTALL), basename_only
    )
