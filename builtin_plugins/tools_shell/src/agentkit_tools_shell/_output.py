"""Bounded capture of a process's output: keep the tail, spill the whole.

The end of a build log is what matters, so the model sees the last
``cap`` bytes. Memory stays near twice the cap however much the process
writes; once the output exceeds the cap, every byte (including what was
already buffered) also goes to a spill file, and the truncation marker names
that file and a command that reads it.
"""

from __future__ import annotations

import os
import tempfile
import threading
from dataclasses import dataclass
from typing import BinaryIO

DEFAULT_OUTPUT_CAP = 50 * 1024


@dataclass(frozen=True, slots=True)
class CapturedOutput:
    """What a process wrote, as the tool reports it."""

    text: str
    total_bytes: int
    truncated: bool
    spill_path: str | None


class TailAccumulator:
    """Collects output chunks from a reader thread; thread-safe."""

    def __init__(self, cap: int = DEFAULT_OUTPUT_CAP, *, spill: bool = True) -> None:
        if cap <= 0:
            raise ValueError(f"output cap must be positive, got {cap}")
        self._cap = cap
        self._spill_enabled = spill
        self._buffer = bytearray()
        self._total = 0
        self._spill: BinaryIO | None = None
        self._spill_path: str | None = None
        self._lock = threading.Lock()
        self._finished = False

    def write(self, chunk: bytes) -> None:
        with self._lock:
            if self._finished:
                return  # a reader we stopped waiting for; its bytes were cut
            self._total += len(chunk)
            self._buffer += chunk
            if self._total > self._cap and self._spill_enabled:
                if self._spill is None:
                    self._open_spill()  # writes the buffered head too
                else:
                    self._spill.write(chunk)
            # Trim lazily so a stream of small chunks does not copy the
            # buffer on every write.
            if len(self._buffer) > 2 * self._cap:
                del self._buffer[: len(self._buffer) - self._cap]

    def _open_spill(self) -> None:
        fd, path = tempfile.mkstemp(prefix="agentkit-output-", suffix=".log")
        self._spill = os.fdopen(fd, "wb")
        self._spill_path = path
        self._spill.write(self._buffer)

    def finish(self) -> CapturedOutput:
        """Close the spill file and return the capped text with its marker."""
        with self._lock:
            self._finished = True
            if self._spill is not None:
                self._spill.close()
            truncated = self._total > self._cap
            tail = bytes(self._buffer[-self._cap :]) if truncated else bytes(self._buffer)
            text = _decode_tail(tail, cut=truncated)
            if truncated:
                text = self._marker(len(tail)) + text
            return CapturedOutput(text, self._total, truncated, self._spill_path)

    def _marker(self, shown: int) -> str:
        hidden = self._total - shown
        if self._spill_path is None:
            where = "The earlier output was not kept (spill disabled)."
        else:
            where = (
                f"The full output is in {self._spill_path}; read its start with: "
                f"head -c {self._cap} {self._spill_path}"
            )
        return (
            f"[Output truncated: showing the last {shown} of {self._total} bytes; "
            f"{hidden} earlier bytes omitted. {where}]\n"
        )


def _decode_tail(data: bytes, *, cut: bool) -> str:
    if cut:
        # Cutting at a byte offset may split a UTF-8 sequence: drop the
        # orphaned continuation bytes rather than show a replacement char.
        start = 0
        while start < min(len(data), 3) and (data[start] & 0xC0) == 0x80:
            start += 1
        data = data[start:]
    return data.decode("utf-8", errors="replace")
