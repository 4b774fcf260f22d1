"""What a file holds: text or binary, image type, text encoding, editor line numbering."""

from __future__ import annotations

import re

__all__ = [
    "BOM",
    "decode_text",
    "detect_image",
    "encode_text",
    "has_utf8_sequence",
    "is_binary",
    "printable",
    "split_editor_lines",
]

BOM = "\ufeff"

# A well-formed UTF-8 sequence of two or more bytes: text holding one is UTF-8 text,
# even if a stray byte elsewhere is not (a legacy single-byte file almost never has one).
_UTF8_MULTIBYTE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
    rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)

_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)

# An editor breaks lines at CRLF, LF and a lone CR, and nowhere else
# (str.splitlines also breaks at form feeds, \x1c-\x1e, U+2028...).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def detect_image(head: bytes) -> str | None:
    """The MIME type of an image recognized by its first bytes, or None."""
    for magic, mime in _IMAGE_MAGIC:
        if head.startswith(magic):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def is_binary(data: bytes) -> bool:
    """True when ``data`` holds a NUL anywhere, which no text encoding we read produces.

    The whole of what was read is checked, not a prefix: a NUL past the first
    few kilobytes must not let a binary file be edited as text.
    """
    return b"\x00" in data


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode file bytes; returns the text (BOM kept) and the encoding name.

    Valid UTF-8 is ``utf-8``. UTF-8 with a few stray bytes is still ``utf-8``:
    each stray byte becomes a lone surrogate (``surrogateescape``), so
    :func:`encode_text` writes it back byte for byte and new text goes in as
    UTF-8, like the rest of the file. Only bytes without any UTF-8 sequence are
    legacy single-byte text, ``latin-1``, which maps every byte.
    """
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        if _UTF8_MULTIBYTE.search(data):
            return data.decode("utf-8", "surrogateescape"), "utf-8"
        return data.decode("latin-1"), "latin-1"


def has_utf8_sequence(data: bytes) -> bool:
    """Whether ``data`` holds a well-formed UTF-8 sequence of two or more bytes."""
    return _UTF8_MULTIBYTE.search(data) is not None


def encode_text(text: str, encoding: str) -> bytes:
    """The inverse of :func:`decode_text`: stray bytes it kept go back as they were.

    :raises UnicodeEncodeError: for a character ``encoding`` cannot store.
    """
    return text.encode(encoding, "surrogateescape")


def printable(text: str) -> str:
    """Text to show: a stray byte kept by :func:`decode_text` shows as U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text


def split_editor_lines(text: str) -> list[str]:
    """Lines as an editor numbers them, without their terminators.

    A final terminator does not start another line (``"a\\nb\\n"`` has two).
    """
    if not text:
        return []
    lines = _LINE_BREAK.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines
