"""Where sessions are kept: the store seam, and the JSON Lines file store that is the default.

A store keeps logs of lines (a header, then entries, see :mod:`._entries`)
and appends to them. The :class:`SessionStore` protocol is everything the
host asks of one, so that another store (a PostgreSQL one for many workers
sharing sessions) plugs in without the host knowing it: pass it to
:class:`~agentkit.host.sessions.Session`.

Appends are optimistic: each says which entry it believes is the session's
last (``expected_last``). A store that finds another one there raises
:class:`~agentkit.host.errors.SessionConflict`, so of two writers that
append to the same leaf at once exactly one wins, and the other reloads and
retries from the new last entry. A transactional store checks and appends in
one transaction; the file store holds an exclusive lock on the file while it
has the session open for writing, so a second process is refused at once.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import re
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Protocol, runtime_checkable

from agentkit.plugin_api._dataclass import dataclass

from ..errors import ConfigError, SessionConflict, SessionLoadError, SessionNotFound
from ._entries import Entry, SessionHeader
from ._loader import MAX_LINE_BYTES, LoadedLog, parse_log
from ._paths import check_private, data_dir, private_dir

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: the file store takes no lock there
    fcntl = None  # type: ignore[assignment]

_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


class Durability(StrEnum):
    """When an appended entry is safe, and what it costs.

    ``flush`` (the default): each entry is handed to the operating system as
    it is appended: it survives the process being killed (``kill -9``, a
    crash), not the machine losing power. ``fsync``: each append is also
    synced to the disk before it returns: it survives a power loss too, at
    the cost of a disk sync per entry. ``turn``: as ``flush``, and synced to
    the disk before each request and at the end of the run: a power loss
    costs at most the entries of the turn in flight.
    """

    FLUSH = "flush"
    FSYNC = "fsync"
    TURN = "turn"


@dataclass(frozen=True)
class SessionListing:
    """One stored session, as listed.

    :param updated: when it was last written, in seconds since the epoch.
    :param location: where the store keeps it (the file store: the file's path).
    """

    id: str
    started: str
    cwd: str
    updated: float
    location: str

    def record(self) -> dict[str, str]:
        """The listing as ``agentkit sessions list --json`` and the RPC's ``sessions.list`` give it.

        Both times in UTC ISO 8601 to the second (``2026-12-01T22:32:52Z``); a
        start time that is no ISO 8601 time is given as stored.
        """
        return {"id": self.id, "started": iso_started(self.started), "updated": iso_utc(self.updated),
                "cwd": self.cwd, "location": self.location}


def iso_utc(epoch: float) -> str:
    """A time as the session listings write it: ISO 8601 in UTC, to the second, ``Z``."""
    return datetime.datetime.fromtimestamp(epoch, datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def iso_started(timestamp: str) -> str:
    """A header's start time as :func:`iso_utc` writes times; as stored when it is no ISO 8601 time."""
    try:
        moment = datetime.datetime.fromisoformat(timestamp)
    except ValueError:
        return timestamp
    if moment.tzinfo is None:  # the header's times are UTC
        moment = moment.replace(tzinfo=datetime.UTC)
    return iso_utc(moment.timestamp())


@runtime_checkable
class SessionStore(Protocol):
    """What the host asks of a session store. Every method may raise ``OSError`` (or the store's own
    :class:`~agentkit.host.errors.SessionError`); a write that fails ends the run as an error."""

    def create(self, header: SessionHeader) -> None:
        """Store a new session holding only ``header``.

        :raises SessionConflict: a session with the header's id exists.
        """

    def append(self, session_id: str, entries: Sequence[Entry], *, expected_last: str | None) -> None:
        """Append ``entries`` (their ``raw`` lines, in order) to the session, atomically if the store can.

        :param expected_last: the id of the entry the writer believes is the
            session's last one (``None``: the session has no entry yet).
        :raises SessionConflict: the last entry is another one: a concurrent
            writer appended first. Nothing was appended; reload and retry.
        :raises SessionNotFound: no session has this id.
        """

    def checkpoint(self, session_id: str) -> None:
        """Make what was appended so far durable, if the store's policy defers it (see :class:`Durability`)."""

    def load(self, session_id: str) -> LoadedLog:
        """The session's log, repaired (see :func:`~agentkit.host.sessions.parse_log`).

        :raises SessionNotFound: no session has this id.
        :raises SessionLoadError: what is stored is not a session log.
        """

    def list_sessions(self) -> list[SessionListing]:
        """Every stored session, in no particular order."""

    def close(self, session_id: str) -> None:
        """Let go of what the store holds open for the session (a file, a lock); appending again reopens it."""


class _Writer:
    def __init__(self, fd: int, last: str | None) -> None:
        self.fd = fd
        self.last = last


class JsonlSessionStore:
    """Sessions as JSON Lines files, one per session: ``<directory>/<id>.jsonl``.

    :param directory: where the files go; default ``sessions/`` in the data
        directory (``$AGENTKIT_DATA_DIR``, else the platform's user data
        directory). Folders are created 0700 and files 0600; an existing one
        (from the data directory down) owned by another user or writable by
        group or others raises :class:`~agentkit.host.errors.UnsafeDataDirError`.
    :param durability: when appends reach the disk, see :class:`Durability`.
    :param max_line_bytes: a longer line of a log is skipped when it is
        loaded (a repair, see :func:`~agentkit.host.sessions.parse_log`).

    One process at a time writes a session: the store locks the file while
    it has it open for appending (until :meth:`close` or the process ends,
    a ``kill -9`` included), and another process that tries gets
    :class:`~agentkit.host.errors.SessionConflict`. Reading never waits.
    """

    def __init__(self, directory: Path | str | None = None, durability: Durability | str = Durability.FLUSH, *,
                 max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.directory = Path(directory).expanduser() if directory is not None else data_dir() / "sessions"
        #: The highest folder that must be the user's alone (docs/decisions/0027): the data directory, or ``directory``.
        self._top = self.directory if directory is not None else self.directory.parent
        check_private(self.directory, self._top)  # reading a planted session is as bad as writing to a shared one
        try:
            self.durability = Durability(durability)
        except ValueError:
            raise ConfigError(f"unknown durability {durability!r}; use one of "
                              f"{', '.join(item.value for item in Durability)}") from None
        self.max_line_bytes = max_line_bytes
        self._writers: dict[str, _Writer] = {}

    def path(self, session_id: str) -> Path:
        """The file of a session (which may not exist)."""
        if not _SESSION_ID.fullmatch(session_id):
            raise SessionNotFound(f"{session_id!r} is not a session id (letters, digits, '_', '-' and '.')")
        return self.directory / f"{session_id}.jsonl"

    def create(self, header: SessionHeader) -> None:
        path = self.path(header.id)
        private_dir(self.directory, self._top)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        except FileExistsError:
            raise SessionConflict(f"a session with id {header.id} already exists ({path})") from None
        try:
            _lock(fd, header.id)
            _write_all(fd, header.raw + b"\n")
            if self.durability is Durability.FSYNC:
                os.fsync(fd)
                _sync_directory(self.directory)
        except BaseException:
            os.close(fd)
            raise
        self._writers[header.id] = _Writer(fd, None)

    def append(self, session_id: str, entries: Sequence[Entry], *, expected_last: str | None) -> None:
        writer = self._writer(session_id)
        if writer.last != expected_last:
            raise SessionConflict(f"session {session_id} was appended to by another writer: its last entry is "
                                  f"{writer.last}, not {expected_last}; reload it and retry")
        if not entries:
            return
        try:
            _write_all(writer.fd, b"".join(entry.raw + b"\n" for entry in entries))
            if self.durability is Durability.FSYNC:
                os.fsync(writer.fd)
        except BaseException:
            # The file may end in a torn line: reopening ends it with a newline before the next append.
            self.close(session_id)
            raise
        writer.last = entries[-1].id

    def checkpoint(self, session_id: str) -> None:
        writer = self._writers.get(session_id)
        if writer is not None and self.durability is Durability.TURN:
            os.fsync(writer.fd)

    def load(self, session_id: str) -> LoadedLog:
        path = self.path(session_id)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise SessionNotFound(f"no session {session_id} in {self.directory}") from None
        return parse_log(data, str(path), max_line_bytes=self.max_line_bytes)

    def list_sessions(self) -> list[SessionListing]:
        listings = []
        with contextlib.suppress(FileNotFoundError):
            for path in self.directory.glob("*.jsonl"):
                listing = _listing(path, self.max_line_bytes)
                if listing is not None:
                    listings.append(listing)
        return listings

    def close(self, session_id: str) -> None:
        writer = self._writers.pop(session_id, None)
        if writer is not None:
            os.close(writer.fd)  # closing the file releases its lock

    def delete(self, session_id: str) -> None:
        """Remove a session's log (its artifacts are :class:`~agentkit.host.sessions.ArtifactStore`'s to delete).

        :raises SessionNotFound: no session has this id.
        :raises SessionConflict: it is open for writing in another process.
        """
        path = self.path(session_id)
        self.close(session_id)
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            raise SessionNotFound(f"no session {session_id} in {self.directory}") from None
        try:
            _lock(fd, session_id)  # never pull a log from under a process writing it
            path.unlink()
        finally:
            os.close(fd)

    def _writer(self, session_id: str) -> _Writer:
        writer = self._writers.get(session_id)
        if writer is not None:
            return writer
        path = self.path(session_id)
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND)
        except FileNotFoundError:
            raise SessionNotFound(f"no session {session_id} in {self.directory}") from None
        try:
            _lock(fd, session_id)
            data = _read_all(fd)
            log = parse_log(data, str(path), max_line_bytes=self.max_line_bytes)  # under the lock: what another process appended is seen
            if not data.endswith(b"\n"):  # a torn last line: the next entry must not be glued to it
                _write_all(fd, b"\n")
        except BaseException:
            os.close(fd)
            raise
        writer = self._writers[session_id] = _Writer(fd, log.entries[-1].id if log.entries else None)
        return writer


def _lock(fd: int, session_id: str) -> None:
    if fcntl is None:  # pragma: no cover
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SessionConflict(f"session {session_id} is open for writing elsewhere (another process, or "
                              "another store in this one); close it there first") from None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_all(fd: int) -> bytes:
    """The whole file; appends with ``O_APPEND`` go to its end wherever this leaves the offset."""
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _sync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform opens a directory
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _listing(path: Path, max_line_bytes: int) -> SessionListing | None:
    """A listing from the file's first line; ``None`` for a file that is not a session log."""
    try:
        with path.open("rb") as file:
            first = file.readline(max_line_bytes + 1)  # a header over the limit is refused unread
            updated = os.fstat(file.fileno()).st_mtime
        header = parse_log(first if first.endswith(b"\n") else first + b"\n", str(path),
                           max_line_bytes=max_line_bytes).header
    except (OSError, SessionLoadError):
        return None
    if header.id != path.stem:  # not a file this store wrote: it could not be opened by its id
        return None
    return SessionListing(header.id, header.timestamp, header.cwd, updated, str(path))
