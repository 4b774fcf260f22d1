"""Which process owns the artifacts of a run without a session, and whether it still lives.

A run without a session removes its artifacts when it exits; killed
(``SIGKILL``, a crash, a power cut), it cannot. So it records, in its folder,
who it is: ``.owner.json`` with its pid, the start time of that pid (field 22
of ``/proc/<pid>/stat``: a pid reused by a later process starts later), the
boot it ran in and the machine. Another process then tells a dead owner from
a live one without guessing from ages:

* ``running``: that pid lives, with the same start time (or a start time this
  system cannot tell, in which case a live pid is given the benefit of the
  doubt): never reaped;
* ``gone``: no such process, a zombie, another process under the same pid, or
  a boot since: reaped at once;
* ``unknown``: recorded on another machine, or a record that cannot be read:
  reaped once :data:`UNKNOWN_OWNER_MAX_AGE` has passed since it was written.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from dataclasses import asdict
from pathlib import Path
from typing import Literal

from agentkit.plugin_api._dataclass import dataclass

__all__ = ["OWNER_RECORD", "UNKNOWN_OWNER_MAX_AGE", "OwnerRecord", "OwnerState", "owner_state", "this_process"]

#: The file, in an owner's artifact folder, that says which process keeps it.
OWNER_RECORD = ".owner.json"
#: How long the artifacts of an owner that cannot be checked are kept: seven days, as long as a
#: temporary file outlives a reboot under common ``tmpfiles`` policies.
UNKNOWN_OWNER_MAX_AGE = 7 * 24 * 3600

OwnerState = Literal["running", "gone", "unknown"]


@dataclass(frozen=True, slots=True)
class OwnerRecord:
    """What a process wrote about itself in the folder of its artifacts.

    :param pid: its process id.
    :param start: when that process started, as the system counts it (``None``: it cannot tell).
    :param boot: the boot it ran in (``None``: the system does not say).
    :param host: the machine's name.
    """

    pid: int
    start: str | None
    boot: str | None
    host: str


def this_process() -> OwnerRecord:
    """The record of the calling process."""
    pid = os.getpid()
    return OwnerRecord(pid, _start_of(pid), _boot(), socket.gethostname())


def write_record(folder: Path) -> None:
    """Record the calling process as the owner of ``folder`` (written whole, then renamed into place)."""
    temporary = folder / f".{OWNER_RECORD}.{os.getpid()}.partial"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump(asdict(this_process()), file)
    os.replace(temporary, folder / OWNER_RECORD)


def read_record(folder: Path) -> OwnerRecord | None:
    """The owner recorded in ``folder``; ``None`` when it cannot be read or makes no sense."""
    try:
        data = json.loads((folder / OWNER_RECORD).read_text(encoding="utf-8"))
        record = OwnerRecord(data["pid"], data.get("start"), data.get("boot"), data["host"])
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if (type(record.pid) is not int or record.pid <= 0 or not isinstance(record.host, str)
            or not isinstance(record.start, str | None) or not isinstance(record.boot, str | None)):
        return None
    return record


def owner_state(record: OwnerRecord | None) -> OwnerState:
    """Whether the process ``record`` names is ``running``, ``gone``, or cannot be checked from here."""
    if record is None or record.host != socket.gethostname():
        return "unknown"
    boot = _boot()
    if record.boot is not None and boot is not None and record.boot != boot:
        return "gone"  # every process of that boot has ended
    if not _exists(record.pid):
        return "gone"
    start = _start_of(record.pid)
    if start == "zombie":
        return "gone"
    if record.start is None or start is None:
        return "running"  # a live pid, and no way to tell whether it is the same process
    return "running" if start == record.start else "gone"


def record_age(folder: Path) -> float | None:
    """Seconds since the owner record of ``folder`` was written; ``None`` without one."""
    try:
        return time.time() - (folder / OWNER_RECORD).stat().st_mtime
    except OSError:
        return None


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True


def _start_of(pid: int) -> str | None:
    """The start time of ``pid`` (clock ticks since boot), ``"zombie"`` for a dead one not yet waited for."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold anything: count the fields after it.
    fields = stat.rpartition(")")[2].split()
    if len(fields) < 20:
        return None
    return "zombie" if fields[0] in ("Z", "X") else fields[19]


def _boot() -> str | None:
    with contextlib.suppress(OSError):
        return Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip() or None
    return None
