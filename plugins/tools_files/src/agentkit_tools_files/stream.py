"""Editor lines read from a file a chunk at a time, each kept up to a cap: memory never grows with the file.

A file is read in chunks of :data:`CHUNK` bytes. Each line (broken at CRLF, LF
and a lone CR, as :func:`.content.split_editor_lines` does) keeps at most
``keep`` bytes and counts the rest, so a file that is one 20 GB line costs a
chunk and ``keep`` bytes. Lines after the ones wanted are only counted, up to
a budget of bytes read; past it the total is unknown rather than paid for.

While it reads, the reader watches what :func:`.content.decode_text` and
:func:`.content.is_binary` would decide for the whole file: a NUL makes it
binary (:class:`BinaryContent` is raised at once), and the encoding is UTF-8 if
every byte read is, or if some well-formed multibyte sequence was seen, else
Latin-1. For a file read to its end that is exactly their verdict; for a
larger one it is the verdict on the part read.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import BinaryIO

from .content import has_utf8_sequence, printable

__all__ = ["CHUNK", "BinaryContent", "LineReader", "RawLine"]

#: Bytes read per system call.
CHUNK = 64 * 1024

_BREAK = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


class BinaryContent(Exception):
    """The file holds a NUL byte: it is binary, it has no lines to show."""


@dataclass(frozen=True, slots=True)
class RawLine:
    """One line without its terminator: its first bytes (up to the reader's ``keep``) and its length."""

    kept: bytes
    size: int

    @property
    def clipped(self) -> bool:
        return self.size > len(self.kept)


class LineReader:
    """Reads editor lines from ``handle`` in chunks, keeping at most ``keep`` bytes of each.

    :param handle: a binary file positioned after ``prefix``.
    :param keep: most bytes kept of one line (the rest is counted in its ``size``).
    :param prefix: bytes already read from the start of the file (a BOM there is taken off
        and reported by :attr:`bom`).
    :raises BinaryContent: from any read that meets a NUL.
    """

    def __init__(self, handle: BinaryIO, keep: int, prefix: bytes = b"") -> None:
        self._handle = handle
        self._keep = keep
        self._chunk = b""
        self._position = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._after_cr = False
        self._tail = b""
        #: Lines produced or counted so far.
        self.lines = 0
        #: Bytes read from the file so far (``prefix`` included).
        self.read_bytes = 0
        self.valid_utf8 = True
        self.multibyte = False
        self.at_end = False
        self.bom = prefix.startswith(_BOM)
        self._take(prefix)
        if self.bom:
            self._position = len(_BOM)

    def _take(self, chunk: bytes) -> None:
        if b"\x00" in chunk:
            raise BinaryContent
        self.read_bytes += len(chunk)
        if self.valid_utf8:
            try:
                self._decoder.decode(chunk)
            except UnicodeDecodeError:
                self.valid_utf8 = False
        if not self.multibyte and not chunk.isascii():
            # With the end of the chunk before: a sequence may straddle the two.
            self.multibyte = has_utf8_sequence(self._tail + chunk)
        self._tail = (self._tail + chunk[-3:])[-3:]
        # A CRLF split between two chunks is one break: the CR ended the line, the LF is skipped.
        self._position = 1 if self._after_cr and chunk.startswith(b"\n") else 0
        self._after_cr = chunk.endswith(b"\r")
        self._chunk = chunk

    def _fill(self) -> bool:
        """Read the next chunk; false at the end of the file."""
        chunk = self._handle.read(CHUNK)
        if not chunk:
            self.at_end = True
            if self.valid_utf8:
                try:
                    self._decoder.decode(b"", final=True)
                except UnicodeDecodeError:
                    self.valid_utf8 = False
            return False
        self._take(chunk)
        return True

    def next_line(self) -> RawLine | None:
        """The next line, or None at the end of the file."""
        pieces: list[bytes] = []
        kept = size = 0
        while True:
            if self._position >= len(self._chunk) and not self._fill():
                if size == 0:
                    return None  # a line is one byte or more, or a terminator
                self.lines += 1
                return RawLine(b"".join(pieces), size)
            found = _BREAK.search(self._chunk, self._position)
            end = found.start() if found is not None else len(self._chunk)
            length = end - self._position
            room = min(self._keep - kept, length)
            if room > 0:
                pieces.append(self._chunk[self._position : self._position + room])
                kept += room
            size += length
            if found is not None:
                self._position = found.end()
                self.lines += 1
                return RawLine(b"".join(pieces), size)
            self._position = len(self._chunk)

    def count_rest(self, budget: int) -> bool:
        """Count the lines left without keeping them, reading until ``read_bytes`` reaches ``budget``.

        :returns: whether the end of the file was reached (then :attr:`lines` is the total).
        """
        last = b""
        while True:
            if self._position < len(self._chunk):
                rest = self._chunk[self._position :]
                self._position = len(self._chunk)
            elif self.read_bytes >= budget:
                if self._handle.read(1):
                    return False
                self.at_end = True
                break
            elif not self._fill():
                break
            else:
                continue
            self.lines += rest.count(b"\n") + rest.count(b"\r") - rest.count(b"\r\n")
            last = rest[-1:]
        if last and last not in (b"\n", b"\r"):
            self.lines += 1  # a last line without a terminator
        return True

    def decode(self, line: RawLine) -> str:
        """The text of ``line`` as :func:`.content.decode_text` and :func:`.content.printable` show it."""
        if self.valid_utf8 or self.multibyte:
            return printable(line.kept.decode("utf-8", "surrogateescape"))
        return line.kept.decode("latin-1")

    @property
    def encoding(self) -> str:
        if self.bom:
            return "utf-8-sig"
        return "utf-8" if self.valid_utf8 or self.multibyte else "latin-1"
