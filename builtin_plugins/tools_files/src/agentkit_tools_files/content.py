"""What a file holds: text or binary, image type, text encoding, editor line numbering."""

from __future__ import annotations

import re

__all__ = ["BOM", "decode_text", "detect_image", "is_binary", "split_editor_lines"]

BOM = "\ufeff"

#: Bytes sniffed for a NUL, the same heuristic git and ripgrep use.
SNIFF_BYTES = 8000

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


def is_binary(head: bytes) -> bool:
    """True when the sniffed bytes contain a NUL, which no text encoding we read produces."""
    return b"\x00" in head[:SNIFF_BYTES]


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode file bytes; returns the text (BOM kept) and the encoding name."""
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        # Legacy single-byte text: latin-1 maps every byte, so nothing is lost.
        return data.decode("latin-1"), "latin-1"


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
