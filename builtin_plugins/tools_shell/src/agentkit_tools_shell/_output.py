"""Bounded capture of a process's output: keep the tail, spill the whole.

The end of a build log is what matters, so the model sees the last
``cap`` bytes. Memory stays near twice the cap however much the process
writes; once the output exceeds the cap, every byte (including what was
already buffered) also goes to a spill file, and the truncation marker names
that file and how to read it (``_spill`` decides where the file lives).
"""

from __future__ import annotations

import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
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

    def __init__(
        self,
        cap: int = DEFAULT_OUTPUT_CAP,
        *,
        spill: bool = True,
        spill_dir: Path | None = None,
        root: Path | None = None,
    ) -> None:
        """
        :param spill: write the whole output to a file once it exceeds ``cap``.
        :param spill_dir: where that file goes; the system temporary directory
            when ``None``.
        :param root: the workspace root: a spill file inside it is named in the
            marker by its path relative to the root, the way ``read_file`` takes it.
        """
        if cap <= 0:
            raise ValueError(f"output cap must be positive, got {cap}")
        self._cap = cap
        self._spill_enabled = spill
        self._spill_dir = spill_dir
        self._root = root
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
        fd, path = tempfile.mkstemp(prefix="agentkit-output-", suffix=".log", dir=self._spill_dir)
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

    def _shown_spill_path(self) -> str | None:
        """The spill file as the marker names it: relative to the root when inside it."""
        if self._spill_path is None or self._root is None:
            return self._spill_path
        return _relative_inside(self._spill_path, self._root) or self._spill_path

    def _marker(self, shown: int) -> str:
        hidden = self._total - shown
        spill = self._shown_spill_path()
        if spill is None:
            where = "The earlier output was not kept (spill disabled)."
        elif spill != self._spill_path:
            where = (
                f"The full output is in {spill}; page through it with read_file (offset, limit) "
                f"or read its start with: head -c {self._cap} {spill}. It is removed when the "
                "run ends."
            )
        else:
            where = (
                f"The full output is in {spill}; read its start with: head -c {self._cap} {spill}"
            )
        return (
            f"[Output truncated: showing the last {shown} of {self._total} bytes; "
            f"{hidden} earlier bytes omitted. {where}]\n"
        )


def _relative_inside(path: str, root: Path) -> str | None:
    real_root = Path(os.path.realpath(root))
    real_path = Path(os.path.realpath(path))
    if not real_path.is_relative_to(real_root):
        return None
    return real_path.relative_to(real_root).as_posix()


def _decode_tail(data: bytes, *, cut: bool) -> str:
    if cut:
        # Cutting at a byte offset may split a UTF-8 sequence: drop the
        # orphaned continuation bytes rather than show a replacement char.
        start = 0
        while start < min(len(data), 3) and (data[start] & 0xC0) == 0x80:
            start += 1
        data = data[start:]
    return data.decode("utf-8", errors="replace")
