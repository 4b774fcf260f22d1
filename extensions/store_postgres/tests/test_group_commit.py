"""Appends from the threads of one store are committed in groups: none lost, none doubled, in order, all or none.

A group is held in flight by another connection that locks one session's row:
the group's transaction waits on it, and appends made meanwhile queue for the
next group. No timing: each step waits until the server (or the store) shows
the state the next step needs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import psycopg
import pytest
from agentkit_store_postgres import PostgresSessionStore

from agentkit.host.errors import SessionConflict, SessionError
from agentkit.host.sessions import Session, parse_log
from agentkit.plugin_api import UserMessage

STEP = 60.0  # seconds any one step may take on a loaded machine: a bound for hangs, never a measure


def _until(condition: Callable[[], bool], watcher: psycopg.Connection) -> None:
    for _ in range(int(STEP / 0.01)):
        if condition():
            return
        watcher.execute("SELECT pg_sleep(0.01)")
    pytest.fail("the store never reached the state the test waits for")


def _waiting_on_locks(watcher: psycopg.Connection) -> list[int]:
    """The server processes of this database waiting for a row lock."""
    return [pid for (pid,) in watcher.execute("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                              "AND datname = current_database()")]


@contextmanager
def _row_held(dsn: str, session_id: str) -> Iterator[psycopg.Connection]:
    """Another connection holding the session's row locked: a group that includes it waits until the end."""
    with psycopg.connect(dsn, autocommit=True) as holder, holder.transaction():
        holder.execute("SELECT 1 FROM agentkit_sessions WHERE id = %s FOR UPDATE", (session_id,))
        yield holder


def _in_threads(calls: list[Callable[[], object]]) -> tuple[list[threading.Thread], list[object]]:
    """Start each call in a thread of its own; the list fills with what each returned or raised, in call order."""
    outcomes: list[object] = [None] * len(calls)

    def run(index: int) -> None:
        try:
            outcomes[index] = calls[index]()
        except Exception as exc:  # the outcome under test
            outcomes[index] = exc

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(calls))]
    for thread in threads:
        thread.start()
    return threads, outcomes


def _join(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.join(timeout=STEP)
        assert not thread.is_alive(), "an append never returned"


def test_eight_writers_sharing_a_store_store_every_entry_once_and_in_order(dsn):
    writers, appends = 8, 40
    with PostgresSessionStore(dsn) as store:
        # Two writers per session: they race on each leaf, so conflicts are decided inside groups too.
        sessions = []
        for index in range(writers // 2):
            session = Session.new(store, cwd=f"/w/{index}")
            session.append_message(UserMessage.text("start"))
            sessions.append(session.id)

        def write(writer: int) -> int:
            conflicts = 0
            for n in range(appends):
                while True:
                    session = Session.open(sessions[writer % len(sessions)], store)
                    try:
                        session.append_custom("load", {"writer": writer, "n": n})
                        break
                    except SessionConflict:
                        conflicts += 1
            return conflicts

        threads, _ = _in_threads([lambda writer=writer: write(writer) for writer in range(writers)])
        _join(threads)
        written = []
        for session_id in sessions:
            stored = Session.open(session_id, store)
            assert stored.repairs == []
            assert [entry.parent_id for entry in stored.entries] == [None] + [e.id for e in stored.entries[:-1]]
            pairs = [(entry.data["data"]["writer"], entry.data["data"]["n"]) for entry in stored.entries[1:]]
            for writer in {writer for writer, _ in pairs}:  # each writer's entries in the order it appended them
                assert [n for who, n in pairs if who == writer] == list(range(appends))
            written += pairs
        assert sorted(written) == [(writer, n) for writer in range(writers) for n in range(appends)]


def test_appends_queued_behind_a_group_in_flight_share_one_commit(dsn):
    queued = 12
    with PostgresSessionStore(dsn) as store, psycopg.connect(dsn, autocommit=True) as watcher:
        held = Session.new(store, cwd="/held")
        others = [Session.new(store, cwd=f"/w/{index}") for index in range(queued)]
        for session in [held, *others]:
            session.append_message(UserMessage.text("start"))
        before = store.group_commits
        with _row_held(dsn, held.id):
            first, _ = _in_threads([lambda: held.append_message(UserMessage.text("held"))])
            _until(lambda: len(_waiting_on_locks(watcher)) == 1, watcher)  # the first group is in flight
            rest, outcomes = _in_threads([lambda session=session: session.append_message(UserMessage.text("q"))
                                          for session in others])
            _until(lambda: store.appends_waiting == queued, watcher)
        _join(first + rest)
        assert not [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
        assert store.group_commits - before == 2  # the held group, then one for all that queued behind it
        for session in [held, *others]:
            assert len(Session.open(session.id, store).entries) == 2


def test_a_connection_killed_mid_group_fails_every_append_in_it_and_writes_none_of_them(dsn):
    queued = 6
    with PostgresSessionStore(dsn) as store, psycopg.connect(dsn, autocommit=True) as watcher:
        held = Session.new(store, cwd="/held")
        others = [Session.new(store, cwd=f"/w/{index}") for index in range(queued)]
        for session in [held, *others]:
            session.append_message(UserMessage.text("before"))
        with _row_held(dsn, held.id):
            first, first_outcome = _in_threads([lambda: held.append_message(UserMessage.text("killed alone"))])
            _until(lambda: len(_waiting_on_locks(watcher)) == 1, watcher)
            killed = _waiting_on_locks(watcher)[0]
            # The next group: an append to each other session, and one more to the held one, so that it waits too.
            calls = [lambda session=session: session.append_message(UserMessage.text("killed with the group"))
                     for session in [*others, held]]
            rest, outcomes = _in_threads(calls)
            _until(lambda: store.appends_waiting == len(calls), watcher)
            watcher.execute("SELECT pg_terminate_backend(%s)", (killed,))
            _join(first)
            # The next leader reconnects and waits on the held row with all of them: kill that group mid-flight.
            _until(lambda: [pid for pid in _waiting_on_locks(watcher) if pid != killed] != [], watcher)
            watcher.execute("SELECT pg_terminate_backend(%s)", (_waiting_on_locks(watcher)[0],))
            _join(rest)
        for outcome in [*first_outcome, *outcomes]:
            assert isinstance(outcome, SessionError) and not isinstance(outcome, SessionConflict), outcome
            assert "not acknowledged" in str(outcome) and "\n" not in str(outcome)
        for session in [held, *others]:  # nothing of either group was written
            assert [entry.id for entry in Session.open(session.id, store).entries] == [session.leaf_id]
        for session in [held, *others]:  # the store reconnects; each session goes on from the leaf it had
            session.append_message(UserMessage.text("after"))
            assert len(Session.open(session.id, store).entries) == 2


def test_an_append_longer_than_one_statement_can_carry_is_written_whole(dsn):
    """A fork copies a whole branch in one append: more lines than one statement's 65535 parameters hold."""
    lines = [b'{"type":"session","version":1,"id":"long","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}']
    parent = "null"
    for n in range(17_000):  # four parameters a line: 68,000
        lines.append(b'{"type":"custom","id":"e%d","parent_id":%s,"timestamp":"t","custom_type":"x","data":%d}'
                     % (n, parent.encode(), n))
        parent = f'"e{n}"'
    log = b"".join(line + b"\n" for line in lines)
    parsed = parse_log(log)
    with PostgresSessionStore(dsn) as store:
        store.create(parsed.header)
        store.append("long", parsed.entries, expected_last=None)
        assert store.load("long").to_bytes() == log
        Session.open("long", store).append_custom("x", "after")  # the last entry moved with the last part
