"""Whether a process still runs, for the tests that check what a kill reached."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, killed and not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError):  # where /proc exists, tell a zombie from a live process
        stat = Path(f"/proc/{pid}/stat").read_bytes()
        return stat[stat.rindex(b")") + 2 :].split()[0] != b"Z"
    return True


def gone(pid: int, within_s: float = 30.0) -> bool:
    """A kill is delivered asynchronously: allow the process a generous moment to die."""
    end = time.monotonic() + within_s
    while alive(pid):
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def carrying(marker: str) -> list[int]:
    """Live processes whose environment holds ``marker`` (``NAME=value``), from /proc."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if marker.encode() in Path(f"/proc/{name}/environ").read_bytes().split(b"\0"):
                found.append(int(name))
    return [pid for pid in found if alive(pid)]


def none_carrying(marker: str, within_s: float = 10.0) -> bool:
    """Whether every process carrying ``marker`` is gone within a generous moment."""
    end = time.monotonic() + within_s
    while carrying(marker):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def kill_carrying(marker: str) -> None:
    """Clean up after a test that failed: no stray process may outlive it."""
    for pid in carrying(marker):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 9)
