"""Reading NDJSON request lines with a bound on their length, off the event loop.

A line longer than the bound is never held in memory: it is read through in
chunks and reported as :class:`Oversized`, and the next line is read as usual.
The blocking reads run on a thread of their own, so a stdin that is a file, a
pipe or a terminal all work (asyncio's pipe transports take only pipes), and
the loop stays free to run turns while it waits for the client.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from typing import BinaryIO

from agentkit.plugin_api._dataclass import dataclass

from ._contracts import MAX_LINE_BYTES

#: How much of an oversized line is read at a time while skipping it.
_SKIP_CHUNK = 64 * 1024


@dataclass(frozen=True)
class Oversized:
    """A line longer than the bound, skipped: ``size`` bytes (its newline not counted), at least ``limit + 1``."""

    size: int
    limit: int


def read_lines(stream: BinaryIO, limit: int = MAX_LINE_BYTES) -> Iterator[bytes | Oversized]:
    """Each line of ``stream`` without its newline, or :class:`Oversized` for one over ``limit`` bytes.

    A last line without a newline is a line too. A blank line is a line (the
    server answers it, as every line): only the end of the stream is none.
    """
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if line.endswith(b"\n"):
            yield line[:-1].rstrip(b"\r")
            continue
        if len(line) <= limit:  # the end of the stream, without a newline
            yield line
            return
        size = len(line)
        while True:  # skip the rest of the line, a chunk at a time
            chunk = stream.readline(_SKIP_CHUNK)
            size += len(chunk)
            if not chunk or chunk.endswith(b"\n"):
                size -= chunk.endswith(b"\n")
                break
        yield Oversized(size, limit)


class Backlog:
    """What was read from the client and not yet answered, bounded in lines and in bytes.

    The reading thread takes room for each line before it hands the line over,
    and waits while there is none: it stops reading, so the client's writes
    block in the pipe instead of piling up in the server. The server gives the
    room back once it has answered the line. A line always fits when nothing
    else waits, so a bound below the line limit still lets every line through.
    """

    def __init__(self, max_lines: int, max_bytes: int) -> None:
        if max_lines < 1 or max_bytes < 1:
            raise ValueError(f"a backlog holds at least one line and one byte, not {max_lines} and {max_bytes}")
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self._room = threading.Condition()
        self._lines = 0
        self._bytes = 0
        self._closed = False

    def take(self, size: int) -> bool:
        """Wait for room for a line of ``size`` bytes and hold it; ``False`` once :meth:`close` was called."""
        with self._room:
            while not self._closed and self._lines and (
                    self._lines >= self.max_lines or self._bytes + size > self.max_bytes):
                self._room.wait()
            if self._closed:
                return False
            self._lines += 1
            self._bytes += size
            return True

    def give_back(self, size: int) -> None:
        """The line of ``size`` bytes was answered: its room is free again."""
        with self._room:
            self._lines -= 1
            self._bytes -= size
            self._room.notify()

    def close(self) -> None:
        """Nobody reads any more: a reader waiting for room stops."""
        with self._room:
            self._closed = True
            self._room.notify_all()


def held_size(item: bytes | Oversized) -> int:
    """The bytes a line holds in the backlog (an oversized line was skipped, not kept)."""
    return len(item) if isinstance(item, bytes) else 0


def feed_queue(stream: BinaryIO, queue: asyncio.Queue[bytes | Oversized | None],
               limit: int = MAX_LINE_BYTES, backlog: Backlog | None = None) -> threading.Thread:
    """Read ``stream`` on a daemon thread into ``queue`` (on the running loop); ``None`` marks its end.

    With a ``backlog``, each line takes room in it before it is queued (the
    consumer gives it back with :meth:`Backlog.give_back` once the line is
    handled), so the thread stops reading while the backlog is full.
    The thread is a daemon: a process that ends while the client still holds
    stdin open does not wait for it.
    """
    loop = asyncio.get_running_loop()

    def put(item: bytes | Oversized | None) -> bool:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # the loop closed: nobody reads any more
            return False
        return True

    def pump() -> None:
        try:
            for item in read_lines(stream, limit):
                if backlog is not None and not backlog.take(held_size(item)):
                    return
                if not put(item):
                    return
        except (OSError, ValueError):  # stdin closed under us (ValueError: read from a closed file)
            pass
        with contextlib.suppress(RuntimeError):
            put(None)

    thread = threading.Thread(target=pump, name="agentkit-rpc-stdin", daemon=True)
    thread.start()
    return thread
