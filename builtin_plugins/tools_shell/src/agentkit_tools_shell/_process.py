"""Run one process tree under a timeout, a cancel token and an output cap.

Every process starts in its own process group (a new session on POSIX, a new
process group on Windows) so that a timeout or an abort can kill the whole
tree, including grandchildren the command started in the background. Its
stdout and stderr share one pipe so the output is interleaved exactly as it
was produced.

Outcome precedence is abort > timeout > exit status: a run that was aborted
reports ``aborted`` even if its timeout also expired.
"""

from __future__ import annotations

import contextlib
import ntpath
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from agentkit.plugin_api import CancelToken

from ._output import DEFAULT_OUTPUT_CAP, CapturedOutput, TailAccumulator

IS_WINDOWS = sys.platform == "win32"

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


@dataclass(frozen=True, slots=True)
class RunLimits:
    """The knobs of one run; the tool options may override the defaults."""

    timeout_s: float | None = None
    output_cap: int = DEFAULT_OUTPUT_CAP
    spill: bool = True
    drain_idle_s: float = DEFAULT_DRAIN_IDLE_S
    drain_max_s: float = DEFAULT_DRAIN_MAX_S


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    cancel: CancelToken,
    limits: RunLimits,
) -> ProcessOutcome:
    """Run ``argv`` to completion, timeout or abort. Raises ``OSError`` if it cannot start."""
    accumulator = TailAccumulator(limits.output_cap, spill=limits.spill)
    process = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=str(cwd),
        env=dict(env),
        bufsize=0,
        **_new_group_arguments(),
    )
    assert process.stdout is not None
    reader = _PipeReader(process.stdout, accumulator)
    reader.start()

    killed = False
    timed_out_at_kill = False
    deadline = None if limits.timeout_s is None else time.monotonic() + limits.timeout_s
    while process.poll() is None:
        if cancel.cancelled:
            killed = True
            break
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            killed = timed_out_at_kill = True
            break
        cancel.wait(_POLL_S if deadline is None else min(_POLL_S, deadline - now))
    if killed:
        kill_tree(process)
    returncode = process.wait()

    drain_cut = _drain(reader, process, cancel, limits)
    output = accumulator.finish()
    aborted = killed and cancel.cancelled
    return ProcessOutcome(
        exit_code=_exit_code(returncode),
        output=output,
        timed_out=timed_out_at_kill and not aborted,
        aborted=aborted,
        drain_cut=drain_cut,
    )


def _drain(
    reader: _PipeReader, process: subprocess.Popen[bytes], cancel: CancelToken, limits: RunLimits
) -> bool:
    """Wait for the pipe to close; true when it had to be cut."""
    exited_at = time.monotonic()
    hard_deadline = exited_at + limits.drain_max_s
    while reader.is_alive():
        if cancel.cancelled:
            kill_tree(process)  # an abort also ends the stragglers
        idle_deadline = max(reader.last_output, exited_at) + limits.drain_idle_s
        remaining = min(idle_deadline, hard_deadline) - time.monotonic()
        if remaining <= 0:
            reader.stop()
            return True
        reader.join(min(remaining, _POLL_S))
    return False


def _exit_code(returncode: int) -> int:
    # Popen reports death by signal N as -N; shells report it as 128 + N.
    return 128 - returncode if returncode < 0 else returncode


def _new_group_arguments() -> dict[str, object]:
    if IS_WINDOWS:
        flags = subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.CREATE_NO_WINDOW  # type: ignore[attr-defined]
        return {"creationflags": flags}
    # A new session is also a new process group whose id is the child's pid,
    # and it detaches the tree from our controlling terminal.
    return {"start_new_session": True}


def kill_tree(process: subprocess.Popen[bytes]) -> None:
    """Kill ``process`` and every descendant that stayed in its group."""
    if IS_WINDOWS:
        _kill_tree_windows(process)
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # the group is already gone
    except PermissionError:
        # macOS answers EPERM for a group whose leader is a zombie.
        _kill_quietly(process)


def _kill_tree_windows(process: subprocess.Popen[bytes]) -> None:
    # The absolute path: a taskkill.exe planted in the working directory or
    # on PATH must not be the one that runs.
    system_root = os.environ.get("SYSTEMROOT", r"C:\Windows")
    taskkill = ntpath.join(system_root, "System32", "taskkill.exe")
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        subprocess.run(
            [taskkill, "/F", "/T", "/PID", str(process.pid)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=30,
            check=False,
        )
    _kill_quietly(process)


def _kill_quietly(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        process.kill()


class _PipeReader(threading.Thread):
    """Copies the shared output pipe into the accumulator until EOF or stop()."""

    def __init__(self, pipe: BinaryIO, accumulator: TailAccumulator) -> None:
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
