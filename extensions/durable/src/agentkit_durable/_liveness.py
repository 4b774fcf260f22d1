"""Which workers are alive: a lock each worker holds for as long as its process lives.

DBOS recovers a dead process's workflows when a process with the same executor id
starts again (or when its Conductor service says the executor is gone); a worker
whose machine never comes back would leave its runs pending. So each worker
holds a lock named after its executor id, which the operating system or the
database server drops the moment the process dies, ``kill -9`` included:

* on PostgreSQL, a session advisory lock on a connection of its own (the server
  releases it when the connection closes, as it does when the process dies);
* on SQLite (one machine), an ``flock`` on a file beside the database.

Another worker that can take a worker's lock knows that worker is dead, and
hands its pending runs back to the queue (``DBOS.recover_pending_workflows``)
while it holds the lock, so the dead worker's id cannot come back meanwhile.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

#: The advisory lock class of workers' liveness locks (the first key of PostgreSQL's two-key form).
LOCK_CLASS = 0x616B77  # "akw"


class Liveness(Protocol):
    """The liveness locks of the workers of one system database."""

    def hold(self, executor_id: str) -> bool:
        """Take this process's own lock for good; ``False`` when a live process already holds it."""
        ...

    def probe(self, executor_id: str) -> AbstractContextManager[bool]:
        """While the block runs, ``True`` if the worker ``executor_id`` is dead (its lock is then held here)."""
        ...

    def close(self) -> None:
        """Release every lock (a clean stop); a dead process's are released for it."""
        ...


def _key(executor_id: str) -> int:
    """A stable signed 32-bit key for an executor id (PostgreSQL's advisory locks take two int4)."""
    return int.from_bytes(hashlib.sha256(executor_id.encode()).digest()[:4], "big", signed=True)


class _Probe:
    def __init__(self, acquire: Any, release: Any) -> None:
        self._acquire, self._release, self._held = acquire, release, False

    def __enter__(self) -> bool:
        self._held = bool(self._acquire())
        return self._held

    def __exit__(self, *exc: object) -> None:
        if self._held:
            self._release()


class PostgresLiveness:
    """Advisory locks on a connection this worker keeps open for its lifetime."""

    def __init__(self, url: str) -> None:
        import psycopg

        self._connection = psycopg.connect(url, autocommit=True)
        self._own: str | None = None

    def _try(self, executor_id: str) -> bool:
        row = self._connection.execute("SELECT pg_try_advisory_lock(%s, %s)", (LOCK_CLASS, _key(executor_id)))
        return bool(row.fetchone()[0])  # type: ignore[index]

    def _unlock(self, executor_id: str) -> None:
        self._connection.execute("SELECT pg_advisory_unlock(%s, %s)", (LOCK_CLASS, _key(executor_id)))

    def hold(self, executor_id: str) -> bool:
        self._own = executor_id
        return self._try(executor_id)

    def probe(self, executor_id: str) -> AbstractContextManager[bool]:
        if executor_id == self._own:
            # Advisory locks are re-entrant within a session: our own would always look free.
            return _Probe(lambda: False, lambda: None)
        return _Probe(lambda: self._try(executor_id), lambda: self._unlock(executor_id))

    def close(self) -> None:
        self._connection.close()


class FileLiveness:
    """``flock`` on files in a folder beside the SQLite database (workers share one machine there)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self._folder = folder
        self._own: int | None = None

    def _open(self, executor_id: str) -> int:
        return os.open(self._folder / f"{_key(executor_id) & 0xFFFFFFFF:08x}.lock", os.O_RDWR | os.O_CREAT, 0o600)

    def _try(self, fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def hold(self, executor_id: str) -> bool:
        if self._own is None:  # asked again while a dying holder lets go: the same descriptor
            self._own = self._open(executor_id)
        return self._try(self._own)

    def probe(self, executor_id: str) -> AbstractContextManager[bool]:
        fd = self._open(executor_id)

        def release() -> None:
            os.close(fd)  # closing the descriptor drops its flock

        def acquire() -> bool:
            if self._try(fd):
                return True
            os.close(fd)
            return False

        return _Probe(acquire, release)

    def close(self) -> None:
        if self._own is not None:
            os.close(self._own)
            self._own = None


def liveness_for(database_url: str) -> Liveness:
    """The liveness locks for a system database URL (``postgresql://`` or ``sqlite:///``)."""
    if database_url.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
        return PostgresLiveness(database_url.replace("postgresql+psycopg://", "postgresql://", 1))
    path = database_url.removeprefix("sqlite:///")
    return FileLiveness(Path(path + ".workers"))
