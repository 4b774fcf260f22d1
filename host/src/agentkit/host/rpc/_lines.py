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
from dataclasses import dataclass
from typing import BinaryIO

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

    A last line without a newline is a line too. Blank lines are skipped.
    """
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if line.endswith(b"\n"):
            content = line[:-1].rstrip(b"\r")
            if content.strip():
                yield content
            continue
        if len(line) <= limit:  # the end of the stream, without a newline
            if line.strip():
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


def feed_queue(stream: BinaryIO, queue: asyncio.Queue[bytes | Oversized | None],
               limit: int = MAX_LINE_BYTES) -> threading.Thread:
    """Read ``stream`` on a daemon thread into ``queue`` (on the running loop); ``None`` marks its end.

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
                if not put(item):
                    return
        except (OSError, ValueError):  # stdin closed under us (ValueError: read from a closed file)
            pass
        with contextlib.suppress(RuntimeError):
            put(None)

    thread = threading.Thread(target=pump, name="agentkit-rpc-stdin", daemon=True)
    thread.start()
    return thread
