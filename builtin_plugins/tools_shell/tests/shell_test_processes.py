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
