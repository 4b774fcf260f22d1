"""Bounded capture of a process's output: keep the tail.

The end of a build log is what matters, so a call keeps the last
``output_cap`` bytes of what the process wrote (4 MiB by default) and
memory stays near twice that however much it writes. What the call keeps
goes to the host whole: past the host's inline limit, the host stores it as
an artifact of the session and the model pages through it with
``read_artifact`` (nothing is written to the workspace). Past the cap, a
marker line says how many earlier bytes were not kept.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

DEFAULT_OUTPUT_CAP = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class CapturedOutput:
    """What a process wrote, as the tool reports it."""

    text: str
    total_bytes: int
    truncated: bool


class TailAccumulator:
    """Collects output chunks from a reader thread; thread-safe."""

    def __init__(self, cap: int = DEFAULT_OUTPUT_CAP) -> None:
        if cap <= 0:
            raise ValueError(f"output cap must be positive, got {cap}")
        self._cap = cap
        self._buffer = bytearray()
        self._total = 0
        self._lock = threading.Lock()
        self._finished = False

    def write(self, chunk: bytes) -> None:
        with self._lock:
            if self._finished:
                return  # a reader we stopped waiting for; its bytes were cut
            self._total += len(chunk)
            self._buffer += chunk
            # Trim lazily so a stream of small chunks does not copy the
            # buffer on every write.
            if len(self._buffer) > 2 * self._cap:
                del self._buffer[: len(self._buffer) - self._cap]

    def finish(self) -> CapturedOutput:
        """The capped text with its marker."""
        with self._lock:
            self._finished = True
            truncated = self._total > self._cap
            tail = bytes(self._buffer[-self._cap :]) if truncated else bytes(self._buffer)
            text = _decode_tail(tail, cut=truncated)
            if truncated:
                text = self._marker(len(tail)) + text
            return CapturedOutput(text, self._total, truncated)

    def _marker(self, shown: int) -> str:
        hidden = self._total - shown
        return (
            f"[Output truncated: showing the last {shown} of {self._total} bytes; "
            f"{hidden} earlier bytes omitted, not kept (tool option output_cap={self._cap}).]\n"
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
