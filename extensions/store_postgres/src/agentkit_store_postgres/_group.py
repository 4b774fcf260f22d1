"""Group commit: the appends that queue while a transaction is in flight share the next one.

A store's threads append through one connection. The first thread to find the
connection free becomes the group's leader: it takes every append queued so
far (its own included) and commits them in one transaction; the threads whose
appends it took wake to find them decided and return (or raise) without a
transaction of their own. Appends that arrive meanwhile queue for the next
group. This is the leader/follower group commit of PostgreSQL's own WAL writer
and of SQLite's WAL mode, done one level up, where the round trips are.

Inside a group each append is what it was alone, in the order it was queued:
it is checked against its own expected last entry (an earlier append of the
same group to the same session has already moved it), and a conflict or a
missing session fails that append alone. The group commits as a whole or not
at all: an append returns only once the commit holding it has returned, and a
failed commit fails every append in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

from agentkit.host.errors import AgentkitError, SessionConflict, SessionNotFound
from agentkit.host.sessions import Entry


@dataclass(eq=False, slots=True)
class QueuedAppend:
    """One append waiting for a group commit, and what became of it."""

    session_id: str
    entries: Sequence[Entry]
    expected_last: str | None
    #: Set (under the store's connection lock) once the group holding it has committed or failed.
    done: bool = False
    #: Why it was not written: a conflict, a missing session, or the group's failure.
    error: AgentkitError | None = None


def write_group(cursor: psycopg.Cursor[Any], group: Sequence[QueuedAppend], where: str) -> None:
    """Check and write ``group`` in the cursor's transaction; a rejected append gets its ``error`` set.

    The sessions' rows are locked in id order, so that two processes' groups
    touching the same sessions wait for each other instead of deadlocking.
    """
    ids = sorted({append.session_id for append in group})
    cursor.execute("SELECT id, last_entry, entry_count FROM agentkit_sessions WHERE id = ANY(%s) "
                   "ORDER BY id FOR UPDATE", (ids,))
    state: dict[str, tuple[str | None, int]] = {id: (last, count) for id, last, count in cursor.fetchall()}
    rows: list[tuple[str, int, str, bytes]] = []
    moved: dict[str, tuple[str | None, int]] = {}
    for append in group:
        session_id = append.session_id
        if session_id not in state:
            append.error = SessionNotFound(f"no session {session_id} in {where}")
            continue
        last, count = state[session_id]
        if last != append.expected_last:
            append.error = SessionConflict(f"session {session_id} was appended to by another writer: its last "
                                           f"entry is {last}, not {append.expected_last}; reload it and retry")
            continue
        if not append.entries:
            continue
        rows += [(session_id, count + offset, entry.id, entry.raw) for offset, entry in enumerate(append.entries)]
        state[session_id] = moved[session_id] = (append.entries[-1].id, count + len(append.entries))
    if not rows:
        return
    # One statement writes the group's lines and moves its sessions' last entries: one round trip for a group,
    # where executemany's pipeline costs several and the group's commit takes half as long
    # (bench/bench_postgres_store.py). A statement takes at most 65535 parameters, so a long append (a fork
    # copies a whole branch) is written in parts.
    *line_parts, last_lines = _parts(rows) or [[]]
    *leaf_parts, last_leaves = _parts([(id, last, count) for id, (last, count) in moved.items()])
    for part in line_parts:
        cursor.execute(f"INSERT INTO agentkit_session_entries (session_id, seq, entry_id, raw) VALUES {_values(part)}",
                       [value for row in part for value in row])
    for part in leaf_parts:
        cursor.execute(f"{_MOVE} {_values(part)}) AS v (id, last_entry, entry_count) WHERE s.id = v.id",
                       [value for row in part for value in row])
    cursor.execute(f"WITH lines AS (INSERT INTO agentkit_session_entries (session_id, seq, entry_id, raw) "
                   f"VALUES {_values(last_lines)}) "
                   f"{_MOVE} {_values(last_leaves)}) AS v (id, last_entry, entry_count) WHERE s.id = v.id",
                   [value for row in [*last_lines, *last_leaves] for value in row])


#: Rows per statement: a few thousand parameters, well under PostgreSQL's 65535.
_ROWS_PER_STATEMENT = 1000
_MOVE = ("UPDATE agentkit_sessions AS s SET last_entry = v.last_entry, entry_count = v.entry_count::bigint, "
         "updated = clock_timestamp() FROM (VALUES")


def _parts(rows: Sequence[tuple[Any, ...]]) -> list[Sequence[tuple[Any, ...]]]:
    return [rows[start:start + _ROWS_PER_STATEMENT] for start in range(0, len(rows), _ROWS_PER_STATEMENT)]


def _values(rows: Sequence[tuple[Any, ...]]) -> str:
    """``(%s, ...), (%s, ...)``: one placeholder per value of each row."""
    row = "(" + ", ".join(["%s"] * len(rows[0])) + ")"
    return ", ".join([row] * len(rows))
