"""Per-file locks: a thread lock keyed on the resolved path, and an OS lock across processes.

Two spellings of one file (``a``, ``./a``, a symlink to it) resolve to the
same key, so their read-modify-write cycles are serialized; different files
get different locks and proceed in parallel. Entries are reference counted
and dropped when nobody holds or waits for them, so the table does not grow
with every file ever touched.

Threads of one process share the table; other processes (a second agent, an
editor's tooling) do not, so :func:`locked_file` also takes ``flock`` on the
file itself, held across the whole read-modify-write.

Why the file itself, and why the check after taking it: a write replaces the
file by renaming a new inode over its name, so a lock on the old inode stops
guarding the name the moment the rename lands. A process that waited on the
old inode would then edit stale bytes. So after taking the lock we check that
the name still refers to the inode we locked, and start over if it does not.
The alternatives are worse: a lock on the directory would serialize every file
in it (and edits of different files must proceed in parallel), and a lock file
beside the target litters the workspace and cannot be removed without a race
of its own. Where ``flock`` is unavailable (no ``fcntl``, some network file
systems) only the in-process lock holds; the result metadata then says
``lock="process"``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agentkit.plugin_api import ToolError
from agentkit.plugin_api.workspace import Located

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]  # no module there: checked before each use

__all__ = ["PathLocks", "locked_file", "path_locks"]

#: How often the locked inode may be replaced under us before we give up.
MAX_LOCK_ATTEMPTS = 1000


class PathLocks:
    """A table of locks, one per resolved path, created on demand."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._entries: dict[Path, tuple[threading.Lock, int]] = {}

    @contextmanager
    def hold(self, resolved: Path) -> Iterator[None]:
        """Hold the lock of ``resolved`` (already resolved by :func:`resolve_inside`)."""
        with self._guard:
            lock, users = self._entries.get(resolved, (None, 0))
            if lock is None:
                lock = threading.Lock()
            self._entries[resolved] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._guard:
                lock, users = self._entries[resolved]
                if users == 1:
                    del self._entries[resolved]
                else:
                    self._entries[resolved] = (lock, users - 1)

    def __len__(self) -> int:
        with self._guard:
            return len(self._entries)


#: The process-wide table every mutating file tool uses.
path_locks = PathLocks()


def _os_lock(fd: int) -> bool:
    """Take ``flock`` on ``fd``; false when the file system or platform has none."""
    if fcntl is None:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:
        return False
    return True


@contextmanager
def locked_file(target: Located, *, must_exist: bool) -> Iterator[tuple[int | None, str]]:
    """Hold the locks of ``target`` across a read-modify-write.

    :param must_exist: raise ``not_found`` if there is no file yet; otherwise
        a missing file yields ``None`` (there is no inode to lock, only the
        in-process lock holds, and the write creates the file).
    :returns: the open descriptor of the locked file (or None) and the lock
        kind: ``"process+os"`` or ``"process"``.
    :raises ToolError: ``not_found``, ``is_a_directory``, ``not_a_regular_file``,
        ``path_changed`` (see :meth:`Located.open_file`).
    """
    with path_locks.hold(target.path):
        for _ in range(MAX_LOCK_ATTEMPTS):
            if not must_exist and target.lstat() is None:
                yield None, "process"
                return
            fd = target.open_file()
            try:
                if not _os_lock(fd):
                    yield fd, "process"
                    return
                locked = os.fstat(fd)
                now = target.lstat()
                if now is not None and (now.st_dev, now.st_ino) == (locked.st_dev, locked.st_ino):
                    yield fd, "process+os"
                    return
            finally:
                os.close(fd)  # also releases the flock
        raise ToolError(
            "busy", f"{target.shown} kept being replaced while waiting for its lock; try again."
        )
