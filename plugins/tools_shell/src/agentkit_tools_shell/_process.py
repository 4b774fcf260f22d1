"""Run one process tree under a timeout, a cancel token and an output cap.

How the tree is started and ended is ``_tree``'s business: its own process
group, killed on timeout, abort and (unless the caller keeps background
processes) after a normal exit. Stdout and stderr share one pipe so the
output is interleaved exactly as it was produced.

Outcome precedence is abort > timeout > exit status: a run that was aborted
reports ``aborted`` even if its timeout also expired.
"""

from __future__ import annotations

import os
import selectors
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from agentkit.plugin_api import CancelToken

from ._output import DEFAULT_OUTPUT_CAP, DEFAULT_OUTPUT_DISK_CAP, CapturedOutput, OutputCapture
from ._tree import IS_WINDOWS, ProcessTree, kill_tree

# After the command exits, a background descendant may still hold the pipe.
# Its output is drained while it keeps coming (the idle timer re-arms on every
# chunk), but never longer than the hard bound; then the pipe is cut.
DEFAULT_DRAIN_IDLE_S = 2.0
DEFAULT_DRAIN_MAX_S = 10.0

_POLL_S = 0.05
_READ_SIZE = 64 * 1024


@dataclass(frozen=True, slots=True)
class ProcessOutcome:
    """How a process run ended.

    ``exit_code`` is the exit status, or 128 + the signal number for a process
    killed by a signal (so a tree killed on timeout reports 137 on POSIX).
    """

    exit_code: int
    output: CapturedOutput
    timed_out: bool
    aborted: bool
    drain_cut: bool
    left_running: list[int] | None = None
    supervisor_lost: bool = False


@dataclass(frozen=True, slots=True)
class RunLimits:
    """The knobs of one run; the tool options may override the defaults."""

    timeout_s: float | None = None
    output_cap: int = DEFAULT_OUTPUT_CAP
    output_disk_cap: int = DEFAULT_OUTPUT_DISK_CAP
    drain_idle_s: float = DEFAULT_DRAIN_IDLE_S
    drain_max_s: float = DEFAULT_DRAIN_MAX_S
    keep_background: bool = False


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    cancel: CancelToken,
    limits: RunLimits,
) -> ProcessOutcome:
    """Run ``argv`` to completion, timeout or abort. Raises ``OSError`` if it cannot start."""
    accumulator = OutputCapture(limits.output_cap, limits.output_disk_cap)
    tree = ProcessTree(argv, cwd=cwd, env=env, keep_background=limits.keep_background)
    assert tree.process.stdout is not None
    reader = _PipeReader(tree.process.stdout, accumulator)
    reader.start()

    killed = False
    timed_out_at_kill = False
    deadline = None if limits.timeout_s is None else time.monotonic() + limits.timeout_s
    while not tree.has_exited():
        if cancel.cancelled:
            killed = True
            break
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            killed = timed_out_at_kill = True
            break
        cancel.wait(_POLL_S if deadline is None else min(_POLL_S, deadline - now))
    if killed:
        tree.terminate()
    try:
        exit_code, left_running = tree.finish()
    except OSError:  # the supervised command could not start
        reader.stop()
        accumulator.discard()
        raise

    drain_cut = _drain(reader, tree, cancel, limits)
    output = accumulator.finish()
    aborted = killed and cancel.cancelled
    return ProcessOutcome(
        exit_code=exit_code,
        output=output,
        timed_out=timed_out_at_kill and not aborted,
        aborted=aborted,
        drain_cut=drain_cut,
        left_running=left_running,
        supervisor_lost=tree.supervisor_lost,
    )


def _drain(reader: _PipeReader, tree: ProcessTree, cancel: CancelToken, limits: RunLimits) -> bool:
    """Wait for the pipe to close; true when it had to be cut."""
    exited_at = time.monotonic()
    hard_deadline = exited_at + limits.drain_max_s
    while reader.is_alive():
        if cancel.cancelled:
            kill_tree(tree.process)  # an abort also ends the stragglers
        idle_deadline = max(reader.last_output, exited_at) + limits.drain_idle_s
        remaining = min(idle_deadline, hard_deadline) - time.monotonic()
        if remaining <= 0:
            reader.stop()
            return True
        reader.join(min(remaining, _POLL_S))
    return False


class _PipeReader(threading.Thread):
    """Copies the shared output pipe into the accumulator until EOF or stop()."""

    def __init__(self, pipe: IO[bytes], accumulator: OutputCapture) -> None:
        super().__init__(name="agentkit-process-output", daemon=True)
        self._pipe = pipe
        self._accumulator = accumulator
        self._stopped = threading.Event()
        self.last_output = 0.0

    def stop(self) -> None:
        self._stopped.set()
        if IS_WINDOWS:
            # A blocking ReadFile cannot be interrupted portably; the thread
            # is a daemon and ends when the last writer closes the pipe. The
            # accumulator ignores what it reads after finish().
            return
        self.join()

    def run(self) -> None:
        try:
            if IS_WINDOWS:
                self._read_blocking()
            else:
                self._read_with_selector()
        finally:
            self._pipe.close()

    def _chunk(self, data: bytes) -> None:
        self.last_output = time.monotonic()
        self._accumulator.write(data)

    def _read_blocking(self) -> None:
        while data := self._pipe.read(_READ_SIZE):
            self._chunk(data)

    def _read_with_selector(self) -> None:
        fd = self._pipe.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while not self._stopped.is_set():
                if not selector.select(_POLL_S):
                    continue
                data = os.read(fd, _READ_SIZE)
                if not data:
                    return
                self._chunk(data)
