"""A text too long to hold, spooled to disk as it streams, for the host to keep whole as an artifact.

A tool whose output can run to megabytes (a command's build log) writes it
into a :class:`Spool` as it comes: the first ``memory`` bytes stay in memory,
then everything goes to a private temporary file (0600, the system's temporary
directory), as :class:`tempfile.SpooledTemporaryFile` does, so memory stays
bounded however much flows through. Past ``cap`` bytes the file keeps its
head, a rolling window of the last ``memory`` bytes is kept in memory, and
:meth:`Spool.close` writes one line saying how many bytes were dropped
between them, then that tail: the start (the first compiler error) and the end
(the summary) both survive.

Bytes are decoded as UTF-8 as they come, an invalid sequence becoming U+FFFD,
so what is kept is text; :attr:`Spool.chars` counts its characters.

The tool returns it in a :class:`SpooledResult`: the host stores the text as
an artifact of the session (moving the file, never reading it whole) and puts
its head, its tail and the artifact's id in the result's ``data[field]``.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import tempfile
import threading
from pathlib import Path

from ._dataclass import dataclass
from ._tools import ToolResult

#: The most bytes one spool keeps, unless its owner says otherwise.
DEFAULT_SPOOL_CAP = 64 * 1024 * 1024
#: The most bytes one spool holds in memory before it writes to disk.
DEFAULT_SPOOL_MEMORY = 1024 * 1024
#: A UTF-8 character is at most this many bytes.
_UTF8_MAX = 4


class Spool:
    """Text written as bytes, kept in memory up to ``memory`` bytes and on disk beyond, up to ``cap``.

    :param memory: bytes held in memory before the text goes to a temporary file; also the size
        of the tail kept past ``cap``.
    :param cap: the most bytes kept: past it, the first ``cap`` bytes and the last ``memory``
        bytes, with a line between them saying how many were dropped and why.
    :param cap_name: what sets the cap, for that line (a tool option's name).

    :meth:`write` may be called from another thread than :meth:`close`; a write after
    :meth:`close` is ignored (a reader that outlived the wait).
    """

    def __init__(self, *, memory: int = DEFAULT_SPOOL_MEMORY, cap: int = DEFAULT_SPOOL_CAP,
                 cap_name: str = "the spool's cap") -> None:
        if memory <= 0 or cap <= 0:
            raise ValueError(f"a spool's memory and cap must be positive, got {memory} and {cap}")
        self.memory = min(memory, cap)
        self.cap = cap
        self.cap_name = cap_name
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._lock = threading.Lock()
        self._buffer = bytearray()  # the text while it fits in memory
        self._file: int | None = None  # the descriptor of the temporary file, once there is one
        self._path: Path | None = None
        self._size = 0  # bytes of text kept in the head (memory or file)
        self._full = False  # the head reached the cap
        self._tail = bytearray()  # past the cap: the last bytes
        self._dropped = 0
        self._total = 0
        self._chars = 0
        self._closed = False

    # -- writing

    def write(self, data: bytes) -> None:
        """Add bytes of output (any cut between two writes is fine: decoding carries over)."""
        with self._lock:
            if self._closed:
                return
            self._total += len(data)
            self._keep(self._decoder.decode(data))

    def close(self) -> None:
        """Finish: flush the decoder, write the dropped-bytes line and the tail; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._keep(self._decoder.decode(b"", final=True))
            self._closed = True
            if self._dropped or self._tail:
                tail = _from_boundary(bytes(self._tail[-self.memory :]))
                self._dropped += len(self._tail) - len(tail)
                line = (f"\n[{self._dropped} bytes of output dropped here: more than {self.cap} bytes "
                        f"were written ({self.cap_name}); what follows is the last {len(tail)}.]\n")
                self._append(line.encode("utf-8"))
                self._chars += len(line)
                self._append(tail)
                self._chars += len(tail.decode("utf-8"))
                self._tail = bytearray()
            if self._file is not None:
                os.close(self._file)
                self._file = None

    def _keep(self, text: str) -> None:
        if not text:
            return
        encoded = text.encode("utf-8")
        if not self._full:
            room = self.cap - self._size
            if len(encoded) <= room:
                self._append(encoded)
                self._chars += len(text)
                return
            # The head fills up to the cap, at a character boundary; the rest starts the tail.
            head = encoded[:room].decode("utf-8", "ignore").encode("utf-8")
            self._append(head)
            self._chars += len(head.decode("utf-8"))
            encoded = encoded[len(head) :]
            self._full = True
        self._tail += encoded
        if len(self._tail) > 2 * self.memory:  # trimmed lazily: no copy on every small write
            cut = len(self._tail) - self.memory
            self._dropped += cut
            del self._tail[:cut]

    def _append(self, data: bytes) -> None:
        if self._file is None and len(self._buffer) + len(data) > self.memory:
            fd, name = tempfile.mkstemp(prefix="agentkit-spool-", suffix=".txt")  # 0600
            self._file, self._path = fd, Path(name)
            _write_all(fd, bytes(self._buffer))
            self._buffer = bytearray()
        if self._file is not None:
            _write_all(self._file, data)
        else:
            self._buffer += data
        self._size += len(data)

    # -- reading

    @property
    def total_bytes(self) -> int:
        """Every byte written, kept or not."""
        return self._total

    @property
    def size(self) -> int:
        """The bytes of text kept (UTF-8), once closed."""
        return self._size

    @property
    def chars(self) -> int:
        """The characters of text kept, once closed."""
        return self._chars

    @property
    def dropped(self) -> int:
        """The bytes dropped past the cap (0 when everything was kept)."""
        return self._dropped

    @property
    def path(self) -> Path | None:
        """The temporary file holding the text, or ``None`` while it fits in memory."""
        return self._path

    def head(self, chars: int) -> str:
        """The first ``chars`` characters (or fewer: the whole text)."""
        data = self._read_range(0, chars * _UTF8_MAX)
        return data.decode("utf-8", "ignore")[:chars]

    def tail(self, chars: int) -> str:
        """The last ``chars`` characters (or fewer: the whole text)."""
        start = max(0, self._size - chars * _UTF8_MAX)
        data = _from_boundary(self._read_range(start, self._size - start))
        text = data.decode("utf-8", "replace")
        return text[-chars:] if chars else ""

    def read(self) -> str:
        """The whole text (its size is :attr:`size`: read it whole only where that is wanted)."""
        return self._read_range(0, self._size).decode("utf-8", "replace")

    def discard(self) -> None:
        """Remove the temporary file, if it is still there (after the host moved it, nothing happens)."""
        self.close()
        if self._path is not None:
            with contextlib.suppress(FileNotFoundError):
                self._path.unlink()

    def _read_range(self, start: int, length: int) -> bytes:
        self.close()
        if self._path is None:
            return bytes(self._buffer[start : start + length])
        with open(self._path, "rb") as file:
            file.seek(start)
            return file.read(length)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _from_boundary(data: bytes) -> bytes:
    """``data`` without the continuation bytes of a character cut at its start."""
    start = 0
    while start < min(len(data), _UTF8_MAX - 1) and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:]


@dataclass(slots=True)
class SpooledResult(ToolResult):
    """A result one of whose ``data`` values is a :class:`Spool`, for the host to keep whole.

    :param spool: the text, closed or not (the host closes it).
    :param field: the key of ``data`` (a dict) the text belongs under. The tool sets it to what a
        caller without a host should see (a head and a tail); the host replaces it with the
        spool's head and tail and the id of the artifact it stored the whole text as.

    Outside an agent (a test calling the handler), nothing is stored: call :meth:`Spool.discard`
    when done with it.
    """

    spool: Spool | None = None
    field: str = "output"
