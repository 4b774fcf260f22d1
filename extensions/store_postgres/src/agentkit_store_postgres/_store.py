"""Sessions in two PostgreSQL tables: one row per session, one row per entry line.

An append is committed in one transaction: it locks the session's row
(``SELECT ... FOR UPDATE``), compares the session's last entry with the one the
writer expected, inserts the lines and moves the last entry. Two writers
appending to the same leaf at once are serialised by the row lock: the first
commits, the second then reads the new last entry and gets
:class:`SessionConflict` with nothing written. Lines are stored as the bytes
they were written (``bytea``), so a log read back is the log written, byte for
byte.

Appends from the threads of one process are committed in groups (see
``_group.py``): those that arrive while a commit is in flight share the next
transaction, each still checked against its own expected last entry.

A store that writes a session holds a shared advisory lock on it (taken at
its first write, let go by :meth:`PostgresSessionStore.close` or when the
connection ends, a killed process included), as the file store holds its file
locked: writers never wait for each other, and :meth:`~PostgresSessionStore.delete`,
which needs the lock alone, refuses a session that is being written.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

from agentkit.host.errors import ConfigError, SessionConflict, SessionError, SessionNotFound
from agentkit.host.sessions import (
    Entry,
    LoadedLog,
    SessionHeader,
    SessionListing,
    parse_log,
    without_password,
)

from ._group import QueuedAppend, write_group

#: Any number, the same in every process: the advisory lock that serialises creating the tables.
_SCHEMA_LOCK = 0x6167656E746B6974  # "agentkit"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS agentkit_sessions (
    id text PRIMARY KEY,
    header bytea NOT NULL,
    started text NOT NULL,
    cwd text NOT NULL,
    last_entry text,
    entry_count bigint NOT NULL DEFAULT 0,
    updated timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE TABLE IF NOT EXISTS agentkit_session_entries (
    session_id text NOT NULL REFERENCES agentkit_sessions (id) ON DELETE CASCADE,
    seq bigint NOT NULL,
    entry_id text NOT NULL,
    raw bytea NOT NULL,
    PRIMARY KEY (session_id, seq)
);
"""


class PostgresSessionStore:
    """Sessions kept in PostgreSQL, shared by every process that connects to the same database.

    :param conninfo: a libpq connection string or URL
        (``postgresql://user@host:5432/dbname``); a password in it is never
        shown in listings or errors.
    :param connect_timeout: seconds to wait for the server when connecting.

    The store connects on first use and creates its tables if they are
    missing. One store serves all the threads of a process through one
    connection: their appends are committed in groups (appends that arrive
    while a commit is in flight share the next one), other calls one at a
    time. Each process makes its own. :meth:`disconnect` (or ``with store:``)
    closes the connection; using the store again reconnects.
    """

    def __init__(self, conninfo: str, *, connect_timeout: float = 10.0) -> None:
        try:
            params = conninfo_to_dict(conninfo)
        except psycopg.ProgrammingError as exc:  # the driver quotes the whole string, password and all
            raise ConfigError(f"not a PostgreSQL connection string ({without_password(str(exc).strip(), conninfo)}); "
                              "write it as "
                              "postgresql://user@host:5432/dbname") from None
        self.conninfo = conninfo
        self.connect_timeout = connect_timeout
        #: Where the sessions are, for listings and errors: host, port and database, never a password.
        self.where = (f"postgresql://{params.get('host') or 'localhost'}:{params.get('port') or 5432}"
                      f"/{params.get('dbname') or ''}")
        self._connection: psycopg.Connection[Any] | None = None
        self._lock = threading.Lock()
        #: The sessions this store writes, whose shared advisory lock its connection holds.
        self._writing: set[str] = set()
        #: Appends waiting for a group commit, in the order they came, and whether a thread is committing a
        #: group; both guarded by ``_queue_changed``, which is notified when a group ends.
        self._queue: list[QueuedAppend] = []
        self._leading = False
        self._queue_changed = threading.Condition(threading.Lock())
        #: Transactions that committed a group of appends: fewer than the appends when writers append at once.
        self.group_commits = 0

    # -- the SessionStore protocol ----------------------------------------------------

    def create(self, header: SessionHeader) -> None:
        with self._transaction() as cursor:
            self._hold(cursor, header.id)
            cursor.execute("INSERT INTO agentkit_sessions (id, header, started, cwd) VALUES (%s, %s, %s, %s) "
                           "ON CONFLICT (id) DO NOTHING", (header.id, header.raw, header.timestamp, header.cwd))
            if cursor.rowcount != 1:
                raise SessionConflict(f"a session with id {header.id} already exists in {self.where}")

    def append(self, session_id: str, entries: Sequence[Entry], *, expected_last: str | None) -> None:
        """Append ``entries`` after ``expected_last``; returns once the commit holding them has returned.

        Appends made at once by several threads share a commit (see the module's docstring).

        :raises SessionConflict: the session's last entry is not ``expected_last``; nothing was written.
        :raises SessionNotFound: no session has this id.
        :raises SessionError: the commit holding the append failed; it was not acknowledged.
        """
        queued = QueuedAppend(session_id, list(entries), expected_last)
        with self._queue_changed:
            self._queue.append(queued)
            # A follower waits for its group's outcome: it wakes when a group ends, so that it learns at once
            # that its append is decided, rather than after the next group's commit, as a plain lock would.
            while self._leading and not queued.done:
                self._queue_changed.wait()
            lead = not queued.done
            if lead:
                self._leading = True
        if lead:
            try:
                with self._lock:
                    self._commit_group()
            finally:
                with self._queue_changed:
                    self._leading = False
                    self._queue_changed.notify_all()
        if queued.error is not None:
            raise queued.error

    def checkpoint(self, session_id: str) -> None:
        """Nothing to do: an append is durable when its transaction commits."""

    def load(self, session_id: str) -> LoadedLog:
        with self._transaction() as cursor:
            cursor.execute("SELECT header FROM agentkit_sessions WHERE id = %s", (session_id,))
            row = cursor.fetchone()
            if row is None:
                raise SessionNotFound(f"no session {session_id} in {self.where}")
            # In the same transaction, after the header: every append committed by now is seen whole.
            cursor.execute("SELECT raw FROM agentkit_session_entries WHERE session_id = %s ORDER BY seq",
                           (session_id,))
            lines = [bytes(row[0]), *(bytes(line) for (line,) in cursor)]
        return parse_log(b"".join(line + b"\n" for line in lines), f"{self.where} session {session_id}")

    def list_sessions(self) -> list[SessionListing]:
        with self._transaction() as cursor:
            cursor.execute("SELECT id, started, cwd, extract(epoch FROM updated)::float8 FROM agentkit_sessions")
            rows = cursor.fetchall()
        return [SessionListing(id, started, cwd, updated, f"{self.where}#{id}") for id, started, cwd, updated in rows]

    def close(self, session_id: str) -> None:
        """Let go of the session's writer lock, so that it can be deleted."""
        if session_id not in self._writing:
            return
        with self._transaction() as cursor:
            if session_id in self._writing:  # not forgotten with a broken connection meanwhile
                cursor.execute("SELECT pg_advisory_unlock_shared(hashtextextended(%s, 0))", (session_id,))
                self._writing.discard(session_id)

    # -- beyond the protocol ------------------------------------------------------------

    def delete(self, session_id: str) -> None:
        """Remove a session and its entries.

        :raises SessionNotFound: no session has this id.
        :raises SessionConflict: a store (this one, or another process's) is writing it.
        """
        with self._transaction() as cursor:
            cursor.execute("SELECT pg_try_advisory_xact_lock(hashtextextended(%s, 0))", (session_id,))
            row = cursor.fetchone()
            if session_id in self._writing or not (row and row[0]):
                raise SessionConflict(f"session {session_id} in {self.where} is being written")
            cursor.execute("DELETE FROM agentkit_sessions WHERE id = %s", (session_id,))  # its entries cascade
            if cursor.rowcount != 1:
                raise SessionNotFound(f"no session {session_id} in {self.where}")

    @property
    def appends_waiting(self) -> int:
        """How many appends are queued for the next group commit (what a monitor of the store may watch)."""
        with self._queue_changed:
            return len(self._queue)

    # -- the connection ---------------------------------------------------------------

    def _commit_group(self) -> None:
        """Commit every queued append in one transaction (the caller holds the connection lock)."""
        with self._queue_changed:
            group, self._queue = self._queue, []
        try:
            connection = self._connect()
            with connection.transaction(), connection.cursor() as cursor:
                for session_id in {queued.session_id for queued in group}:
                    self._hold(cursor, session_id)
                write_group(cursor, group, self.where)
        except BaseException as exc:
            if isinstance(exc, psycopg.Error) and self._connection is not None and self._connection.broken:
                self._connection = None
            reason = without_password(str(exc), self.conninfo) if isinstance(exc, psycopg.Error) else repr(exc)
            reason = " ".join(reason.split())  # the server's message may run over lines (DETAIL, HINT): one line
            for queued in group:
                failed = SessionError(f"the session store at {self.where} failed to commit {len(group)} append(s) "
                                      f"together ({reason}); this one was not acknowledged: reload the session "
                                      f"to see where it stands, then append again")
                failed.__cause__ = exc
                queued.error = failed
            if not isinstance(exc, Exception):
                raise  # an interrupt of the leading thread is still its own
        else:
            self.group_commits += 1
        finally:
            for queued in group:
                queued.done = True

    def disconnect(self) -> None:
        """Close the store's connection; using the store again reconnects."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def __enter__(self) -> PostgresSessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.disconnect()

    @contextmanager
    def _transaction(self) -> Iterator[psycopg.Cursor[Any]]:
        """A cursor in one transaction, committed at the end, rolled back by any exception."""
        with self._lock:
            try:
                connection = self._connect()
                with connection.transaction(), connection.cursor() as cursor:
                    yield cursor
            except psycopg.Error as exc:
                if self._connection is not None and self._connection.broken:
                    self._connection = None
                raise SessionError(f"the session store at {self.where} failed: {without_password(str(exc), self.conninfo)}"
                                   ) from exc

    def _hold(self, cursor: psycopg.Cursor[Any], session_id: str) -> None:
        """Take the session's shared writer lock, for as long as the connection lives or until :meth:`close`."""
        if session_id not in self._writing:
            # Session-level, so the transaction's end keeps it; shared, so other writers never wait.
            cursor.execute("SELECT pg_advisory_lock_shared(hashtextextended(%s, 0))", (session_id,))
            self._writing.add(session_id)

    def _connect(self) -> psycopg.Connection[Any]:
        if self._connection is not None and not self._connection.closed:
            return self._connection
        self._writing.clear()  # a new connection holds none of the old one's locks
        connection = psycopg.connect(self.conninfo, autocommit=True,
                                     connect_timeout=max(1, round(self.connect_timeout)))
        try:
            with connection.transaction():
                # Serialised, so that workers starting together do not race to create the same tables.
                connection.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                connection.execute(_SCHEMA)
        except BaseException:
            connection.close()
            raise
        self._connection = connection
        return connection


def from_url(url: str) -> PostgresSessionStore:
    """The store at ``url`` (``postgresql://user@host:5432/dbname``): what the ``agentkit.session_stores`` entry points name.

    :raises ConfigError: ``url`` is not a PostgreSQL connection string.
    """
    return PostgresSessionStore(url)
