"""A reader for the front matter of ``SKILL.md``: the ``key: value`` subset of YAML skills use.

Why not a YAML library: the host's runtime dependencies are kept few (see
docs/decisions/0008-skill-front-matter-without-yaml.md), and skill front
matter uses a small subset. What is read:

- ``key: value`` lines; a value may be bare, ``"double-quoted"`` (with ``\\"``
  and ``\\\\`` escapes) or ``'single-quoted'`` (``''`` for a quote);
- ``true`` / ``false`` as booleans; ``[a, b]`` as a list of strings;
- one level of nesting: ``key:`` with nothing after it, then lines indented
  under it (``metadata:`` maps);
- blank lines and ``#`` comment lines.

Anything else (block scalars ``|`` / ``>``, ``- item`` lists, deeper nesting,
anchors) is refused with the line number, never guessed at.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["FrontMatterError", "split_front_matter"]

_KEY = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*:(?:\s+(.*)|\s*)$")


class FrontMatterError(ValueError):
    """The front matter is not in the subset this reader accepts; the message names the line."""


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter of ``text`` as a dict, and the body after it.

    :raises FrontMatterError: no front matter, or a line outside the subset.
    """
    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").strip() != "---":
        raise FrontMatterError("does not start with a '---' front matter line")
    for end in range(1, len(lines)):
        if lines[end].rstrip("\r\n").strip() == "---":
            break
    else:
        raise FrontMatterError("the front matter has no closing '---' line")
    data = _parse([line.rstrip("\r\n") for line in lines[1:end]], first_line=2)
    return data, "".join(lines[end + 1:])


def _parse(lines: list[str], first_line: int) -> dict[str, Any]:
    data: dict[str, Any] = {}
    nested: dict[str, Any] | None = None
    for number, line in enumerate(lines, start=first_line):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indented = line[0] in " \t"
        match = _KEY.match(line.strip())
        if match is None:
            raise FrontMatterError(f"line {number}: expected 'key: value', got {line.strip()!r}")
        key, raw = match.group(1), match.group(2)
        if indented:
            if nested is None:
                raise FrontMatterError(f"line {number}: indented, but not under a 'key:' line")
            target = nested
        else:
            nested = None
            target = data
        if key in target:
            raise FrontMatterError(f"line {number}: {key!r} is given twice")
        if raw is None or not raw.strip():
            if indented:
                raise FrontMatterError(f"line {number}: only one level of nesting is read")
            nested = target[key] = {}
            continue
        target[key] = _value(raw.strip(), number)
    return data


def _value(raw: str, number: int) -> Any:
    if raw[0] in "|>":
        raise FrontMatterError(f"line {number}: block scalars ('|', '>') are not read; write the value on one line")
    if raw[0] in "&*!":
        raise FrontMatterError(f"line {number}: anchors, aliases and tags are not read")
    if raw[0] == '"':
        return _double_quoted(raw, number)
    if raw[0] == "'":
        if len(raw) < 2 or not raw.endswith("'"):
            raise FrontMatterError(f"line {number}: unterminated single-quoted value")
        return raw[1:-1].replace("''", "'")
    if raw[0] == "[":
        if not raw.endswith("]"):
            raise FrontMatterError(f"line {number}: a list is written '[a, b]' on one line")
        inner = raw[1:-1].strip()
        return [_value(item.strip(), number) for item in inner.split(",")] if inner else []
    if raw[0] == "{":
        raise FrontMatterError(f"line {number}: inline maps are not read; nest the keys on their own lines")
    value = re.sub(r"\s+#.*$", "", raw)  # a trailing comment
    if value in ("true", "True", "TRUE"):
        return True
    if value in ("false", "False", "FALSE"):
        return False
    return value


def _double_quoted(raw: str, number: int) -> str:
    out, index = [], 1
    while index < len(raw):
        char = raw[index]
        if char == "\\" and index + 1 < len(raw):
            following = raw[index + 1]
            out.append({"n": "\n", "t": "\t"}.get(following, following))
            index += 2
            continue
        if char == '"':
            if raw[index + 1:].strip() and not raw[index + 1:].strip().startswith("#"):
                raise FrontMatterError(f"line {number}: text after the closing quote")
            return "".join(out)
        out.append(char)
        index += 1
    raise FrontMatterError(f"line {number}: unterminated double-quoted value")
