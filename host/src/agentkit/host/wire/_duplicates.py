"""Finding where a duplicate key repeats, at about the cost of one more scan of the bytes.

The C scanner tells us *that* an object repeats a key and which key, not
where. Parsing again with a slower scanner that tracks positions made refusing
a duplicate cost several times what accepting the document costs, so a peer
could make the host work harder by sending duplicates. Here every step is a
C-speed pass over bytes (``count``, ``find``, ``replace``, ``translate``):

1. the usual case: the quoted key occurs exactly twice, both times followed
   by a colon: the second occurrence is the answer;
2. otherwise, each ``"key":`` becomes a mark; escaped backslashes and quotes
   are dropped, so every quote left opens or closes a string; everything but
   brackets, quotes and marks is deleted; strings (which may hold brackets)
   are removed; balanced bracket pairs are removed until two marks meet:
   those two are keys of one object, and their number gives the position.

:func:`locate` returns ``None`` when a key is spelled with escapes or spaced
oddly, and the caller falls back to an exact (slower) parse.
"""

from __future__ import annotations

import json
import re

__all__ = ["locate"]

_MARK = b"\x01"
_KEEP = b'[]{}"' + _MARK
_DROP = bytes(sorted(set(range(256)) - set(_KEEP)))
_STRING = re.compile(rb'"[^"]*"')
_COLON = re.compile(rb"[ \t\n\r]*:")


def _quoted(key: str) -> bytes:
    if key.isprintable() and '"' not in key and "\\" not in key:
        return b'"' + key.encode("utf-8", "surrogatepass") + b'"'
    return json.dumps(key, ensure_ascii=False).encode("utf-8", "surrogatepass")


def _is_key(data: bytes, end: int) -> bool:
    return data.startswith(b":", end) or _COLON.match(data, end) is not None


def locate(data: bytes, key: str) -> int | None:
    """The byte offset where ``key`` repeats inside one object of ``data``, or ``None``."""
    quoted = _quoted(key)
    if data.count(quoted) == 2:
        first = data.find(quoted)
        second = data.find(quoted, first + 1)
        if _is_key(data, first + len(quoted)) and _is_key(data, second + len(quoted)):
            return second
    if _MARK in data:  # pragma: no cover - a raw control byte is not valid JSON
        return None
    marked = quoted + b":"
    work = data
    if b"\\" in work:
        work = work.replace(b"\\\\", b"").replace(b'\\"', b"")
    work = work.replace(marked, _MARK)
    # Adjacent quotes are an empty string or the end of one string and the
    # start of the next with nothing structural between: either way they go.
    structure = work.translate(None, _DROP).replace(b'""', b"")
    if b'"' in structure:
        structure = _STRING.sub(b"", structure)
    while True:
        shorter = structure.replace(b"{}", b"").replace(b"[]", b"")
        if shorter == structure:
            break
        structure = shorter
    meeting = structure.find(_MARK + _MARK)
    if meeting < 0:
        return None
    position = -1
    for _ in range(structure.count(_MARK, 0, meeting) + 2):
        position = data.find(marked, position + 1)
        if position < 0:  # pragma: no cover - the marks came from these occurrences
            return None
    return position
