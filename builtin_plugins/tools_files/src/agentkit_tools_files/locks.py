"""Per-file locks keyed on the resolved path.

Two spellings of one file (``a``, ``./a``, a symlink to it) resolve to the
same key, so their read-modify-write cycles are serialized; different files
get different locks and proceed in parallel. Entries are reference counted
and dropped when nobody holds or waits for them, so the table does not grow
with every file ever touched.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["PathLocks", "path_locks"]


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
