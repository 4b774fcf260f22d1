"""Capture of a process's output: held in memory while short, spooled to disk beyond, kept whole.

Up to ``output_cap`` bytes (4 MiB by default) the output stays in memory and
goes to the host as the result's ``output``; past the host's inline limit the
host stores the result as an artifact of the session. Past ``output_cap``
the output is spooled as it comes (:class:`agentkit.plugin_api.results.Spool`:
a private temporary file), so memory stays near ``output_cap`` however much
the command writes, and the tool returns it in a ``SpooledResult``: the host
keeps the whole text as an artifact (moving the file) and shows the model
its head and tail with the artifact's id. The first compiler error of a long
build log therefore stays readable with ``read_artifact``.

Past ``output_disk_cap`` bytes (64 MiB by default) the file keeps the first
``output_disk_cap`` bytes and the last ``output_cap``, with a line between
saying how many were dropped. Nothing is written to the workspace.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentkit.plugin_api.results import DEFAULT_SPOOL_CAP, Spool

DEFAULT_OUTPUT_CAP = 4 * 1024 * 1024
DEFAULT_OUTPUT_DISK_CAP = DEFAULT_SPOOL_CAP
#: How much of each end a spooled output shows to a caller without a host (the host shows its own).
PREVIEW_CHARS = 16 * 1024


@dataclass(frozen=True, slots=True)
class CapturedOutput:
    """What a process wrote, as the tool reports it.

    :param text: the whole output, or, when it was spooled, its head and tail around a line
        saying how much is not shown.
    :param spool: the whole output past ``output_cap`` (closed), for the host to keep; ``None``
        when ``text`` is all of it.
    """

    text: str
    total_bytes: int
    spool: Spool | None = None

    @property
    def truncated(self) -> bool:
        """Whether ``text`` shows less than the whole output."""
        return self.spool is not None


class OutputCapture:
    """Collects output chunks from a reader thread (thread-safe) into a spool."""

    def __init__(self, cap: int = DEFAULT_OUTPUT_CAP, disk_cap: int = DEFAULT_OUTPUT_DISK_CAP) -> None:
        if cap <= 0 or disk_cap <= 0:
            raise ValueError(f"output caps must be positive, got {cap} and {disk_cap}")
        self._spool = Spool(memory=cap, cap=max(cap, disk_cap), cap_name="tool option output_disk_cap")

    def write(self, chunk: bytes) -> None:
        self._spool.write(chunk)  # ignored after finish(): a reader we stopped waiting for

    def discard(self) -> None:
        """Remove what was spooled (the command could not start)."""
        self._spool.discard()

    def finish(self) -> CapturedOutput:
        spool = self._spool
        spool.close()
        if spool.path is None:  # it fit in memory: the whole text, as before there was a spool
            return CapturedOutput(spool.read(), spool.total_bytes)
        hidden = spool.chars - 2 * PREVIEW_CHARS
        line = (f"\n[... {hidden} characters not shown of {spool.chars}: the whole output is in the "
                "result's spool, which an agent keeps as an artifact.]\n")
        return CapturedOutput(spool.head(PREVIEW_CHARS) + line + spool.tail(PREVIEW_CHARS), spool.total_bytes, spool)
