"""Finding where a duplicate key repeats, at about the cost of one more scan of the bytes.

The C scanner tells us *that* an object repeats a key and which key, not
where. Parsing again with a slower scanner that tracks positions made refusing
a duplicate cost several times what accepting the document costs, so a peer
could make the host work harder by sending duplicates. Here every step is a
C-speed pass over bytes (``count``, ``find``, ``sub``, ``translate``):

1. the usual case: the quoted key occurs exactly twice: since some object
   holds it twice, the second occurrence is the answer;
2. otherwise, each ``"key":`` becomes a mark; everything but brackets, quotes
   and marks is deleted; strings (which may hold brackets) are removed;
   balanced bracket pairs are removed until two marks meet: those two are
   keys of one object, and their number gives the position.

Both steps need a key to have one spelling and every quote to open or close a
string, which the escapes ``\\u``, ``\\/`` and ``\\"`` break: :func:`locate`
returns ``None`` for a text that holds any of them (or when no two marks meet),
and the caller falls back to an exact (slower) parse.
"""

from __future__ import annotations

import re
from json.encoder import encode_basestring

__all__ = ["locate"]

_MARK = b"\x01"
_SPENT = b"\x02"
_DROP = bytes(sorted(set(range(256)) - set(b'[]{}"' + _MARK + _SPENT)))
_STRING = re.compile(rb'"[^"]*"')
# Two keys of one object: nothing between them but the spent keys of the
# values between them.
_MEETING = re.compile(rb"\x01\x02*\x01")
# Empty containers go by replace first, not by _NO_KEY: bench_json_duplicates, 1,000 records,
# duplicate extra 310 µs (1.15x) against 1,220 µs (1.57x) without the replace.
_NO_KEY = re.compile(rb"[\[{](\x02+)[\]}]")
_ONE_KEY = re.compile(rb"[\[{](\x02*)\x01(\x02*)[\]}]")
# What may stand right after a string's closing quote or right before an
# opening one: a key could pass for a string boundary only if it began and
# ended with these.
_PUNCTUATION = b' :,[]{}'  # (whitespace in a key is escaped)
# The escapes that can spell one key two ways (``\u0061`` and ``a``, ``\/``
# and ``/``) or put a quote inside a string, where it could pass for the
# start of a key. Without them a key has exactly one spelling and every
# quote opens or closes a string.
_AMBIGUOUS_ESCAPE = re.compile(rb'\\[u/"]')


def _key_pattern(quoted: bytes) -> re.Pattern[bytes]:
    """``quoted`` used as a key: followed by its colon."""
    return re.compile(re.escape(quoted) + rb"[ \t\n\r]*:")


def locate(data: bytes, key: str) -> int | None:
    """The byte offset where ``key`` repeats inside one object of ``data``, or ``None``.

    ``data`` must be JSON up to its end (an error's offset cuts it): after an
    error, ``"key": "key":`` would pass for the two keys of one object, and
    raw control bytes for the marks below.
    """
    if b"\\" in data and _AMBIGUOUS_ESCAPE.search(data.replace(b"\\\\", b"")) is not None:
        return None  # (an escaped backslash is no escape of what follows it)
    # The key's one spelling, as json.dumps(key, ensure_ascii=False) writes it.
    quoted = encode_basestring(key).encode()
    if quoted[1] in _PUNCTUATION and quoted[-2] in _PUNCTUATION:
        # The quoted key could then begin at the end of one string (``"x":":"``
        # holds ``":"``) and pass for a key where it is none.
        return None
    if data.count(quoted) == 2:
        # Some object holds the key twice, and it occurs only twice.
        return data.rfind(quoted)
    # Adjacent quotes are an empty string or the end of one string and the
    # start of the next with nothing structural between: either way they go.
    structure = _key_pattern(quoted).sub(_MARK, data).translate(None, _DROP).replace(b'""', b"")
    if b'"' in structure:
        structure = _STRING.sub(b"", structure)
    # Close the innermost containers until two marks meet: empty ones first
    # (C-speed), then those holding one mark, which stays as a spent mark
    # (still counted, never meeting).
    while (meeting := _MEETING.search(structure)) is None:
        shorter = structure.replace(b"{}", b"").replace(b"[]", b"")
        if shorter == structure:
            shorter = _ONE_KEY.sub(rb"\1" + _SPENT + rb"\2", _NO_KEY.sub(rb"\1", structure))
            if shorter == structure:
                return None
        structure = shorter
    # The second of the two marks that meet, counted among all the marks.
    before = meeting.end() - 1
    keys = _key_pattern(quoted).finditer(data)
    for _ in range(structure.count(_MARK, 0, before) + structure.count(_SPENT, 0, before)):
        next(keys)
    return next(keys).start()
