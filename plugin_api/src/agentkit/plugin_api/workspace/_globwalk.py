"""A glob as a walk asks it: by file name where the name decides, and per directory.

:meth:`Glob.matches` takes a whole path; a walk asks it about every file,
where most of the cost was building, encoding and scanning paths the name
alone decides. Both tests here give exactly the answers of
:meth:`Glob.matches` (the test suite checks them against it on generated
trees and globs):

- An alternative ``**/X`` (or one without ``/``, read so) with no ``/`` in
  ``X`` matches a path exactly when ``X`` matches its last segment: ``**/``
  stands for whole leading segments, and under WM_PATHNAME nothing in ``X``
  matches ``/`` (except an ``X`` of stars alone, which matches every name and
  every path alike). Where ``X`` is only ``*`` and ASCII literals, the name is
  matched as ``os`` gives it, without encoding it: ``*`` spans any characters
  as it spans any bytes, and in UTF-8 an ASCII byte only ever encodes itself.
- A directory can hold a match of ``p1/p2/.../pm`` only if its segments match
  the pattern's leading segments one by one, up to the first ``**`` segment
  (below which anything may follow) or, without one, only if it is shallower
  than the pattern: ``*``, ``?`` and classes never match ``/``, so each
  segment matches alone. A pattern whose segments cannot be read alone (a
  class or an escape spanning a ``/``) prunes nothing.
- A path spelled exactly as an alternative (git matches that before any
  wildcard) is kept, and so are the directories on its way.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ._gitpattern import MalformedPattern, wildmatch

if TYPE_CHECKING:
    from ._glob import _Alternative

__all__ = ["enter_test", "file_test"]

_FS_ENCODING, _FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
# Names as os gives them can be matched without encoding only where the encoding is UTF-8.
_TEXT_NAMES = _FS_ENCODING.replace("-", "").lower() == "utf8"
# A name glob of ASCII without these ("*" and literals) reads the same on a decoded name.
_PLAIN = re.compile(rb"[^?[\\\x80-\xff]*")


def _stars(segment: bytes) -> bool:
    """A whole segment of two stars or more: git's ``**`` (any number of segments)."""
    return len(segment) >= 2 and segment.strip(b"*") == b""


def _name_part(alternative: _Alternative) -> bytes | None:
    """``X`` of an alternative that means ``**/X`` with no ``/`` in ``X``; None for the others."""
    if alternative.anywhere:
        return alternative.spelled
    first, slash, rest = alternative.spelled.partition(b"/")
    if slash and _stars(first) and b"/" not in rest:
        return rest
    return None


def _joined(sources: list[bytes]) -> re.Pattern[bytes] | None:
    if not sources:
        return None
    return re.compile(b"|".join(b"(?:" + source + b")" for source in sources), re.DOTALL)


def file_test(alternatives: tuple[_Alternative, ...]) -> Callable[[str, str], bool]:
    """``test(directory, name)``: whether the glob matches ``directory + name``."""
    names: list[bytes] = []  # the X of "**/X" alternatives
    paths: list[bytes] = []  # the regexes of the others
    any_depth: set[str] = set()  # names spelled by alternatives without "/"
    spelled: dict[str, set[str]] = {}  # name -> directories, of paths spelled exactly
    for alternative in alternatives:
        text = os.fsdecode(alternative.spelled)
        if alternative.anywhere:
            any_depth.add(text)
        else:
            directory, _, name = text.rpartition("/")
            spelled.setdefault(name, set()).add(directory + "/" if directory else "")
        if alternative.regex is None:
            continue
        name_part = _name_part(alternative)
        if name_part is None:
            paths.append(alternative.regex.pattern)
        else:
            names.append(wildmatch(name_part).pattern)
    plain = _TEXT_NAMES and all(_PLAIN.fullmatch(source) for source in _name_sources(alternatives))
    name_bytes = _joined(names)
    name_text = re.compile(name_bytes.pattern.decode("ascii"), re.DOTALL) if plain and name_bytes else None
    by_text = name_text.fullmatch if name_text is not None else None
    by_bytes = name_bytes.fullmatch if name_bytes is not None and by_text is None else None
    path_regex = _joined(paths)
    by_path = path_regex.fullmatch if path_regex is not None else None

    def test(directory: str, name: str) -> bool:
        if by_text is not None and by_text(name) is not None:
            return True
        if by_bytes is not None and by_bytes(name.encode(_FS_ENCODING, _FS_ERRORS)) is not None:
            return True
        if name in any_depth:
            return True
        directories = spelled.get(name)
        if directories is not None and directory in directories:
            return True
        return by_path is not None and by_path((directory + name).encode(_FS_ENCODING, _FS_ERRORS)) is not None

    return test


def _name_sources(alternatives: tuple[_Alternative, ...]) -> list[bytes]:
    """The ``X`` of each ``**/X`` alternative git can read."""
    return [
        part
        for alternative in alternatives
        if alternative.regex is not None and (part := _name_part(alternative)) is not None
    ]


def _prefix(spelled: bytes) -> tuple[list[re.Pattern[bytes]], bool] | None:
    """The leading segments' regexes a directory must match, and whether a ``**`` follows them
    (without one, a matching file lies exactly one segment below the last); None: cannot prune."""
    segments = spelled.split(b"/")
    leading: list[re.Pattern[bytes]] = []
    for index, segment in enumerate(segments):
        if _stars(segment):
            return leading, True
        if index == len(segments) - 1:
            return leading, False
        try:
            leading.append(wildmatch(segment))
        except MalformedPattern:
            return None  # a class or an escape spanning "/": read only as a whole
    return leading, False


def enter_test(alternatives: tuple[_Alternative, ...]) -> Callable[[str], bool] | None:
    """``enter(directory)``: whether a path below ``directory`` can match; None if any can."""
    rules: list[tuple[list[re.Pattern[bytes]], bool]] = []
    spelled: list[bytes] = []
    for alternative in alternatives:
        if alternative.anywhere:
            return None
        spelled.append(alternative.spelled)
        if alternative.regex is None:
            continue
        rule = _prefix(alternative.spelled)
        if rule is None:
            return None
        if not rule[0] and rule[1]:
            return None  # a leading "**": any directory
        rules.append(rule)

    def enter(directory: str) -> bool:
        encoded = directory.encode(_FS_ENCODING, _FS_ERRORS)
        below = encoded + b"/"
        if any(path.startswith(below) for path in spelled):
            return True
        segments = encoded.split(b"/")
        for leading, deeper in rules:
            if not deeper and len(segments) >= len(leading) + 1:
                continue  # a file of this pattern sits at most len(leading) segments deep
            if all(regex.fullmatch(segment) for regex, segment in zip(leading, segments, strict=False)):
                return True
        return False

    return enter
