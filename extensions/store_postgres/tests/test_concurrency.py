"""Many writers on shared sessions: exactly one wins each leaf, nothing is lost or duplicated."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
import pytest
from agentkit_store_postgres import PostgresSessionStore

from agentkit.host.errors import SessionConflict
from agentkit.host.sessions import Session
from agentkit.plugin_api import UserMessage

WORKER = Path(__file__).with_name("load_worker.py")


def _race(dsn: str, session_id: str, leaf: str, writers: int) -> list[str]:
    """``writers`` stores append to the same leaf at once; what each got: 'won' or 'conflict'."""
    barrier = threading.Barrier(writers)
    outcomes: list[str] = []

    def write(index: int) -> None:
        with PostgresSessionStore(dsn) as store:
            session = Session.open(session_id, store)
            assert session.leaf_id == leaf
            store.load(session_id)  # connected before the barrier: the race is on the append
            barrier.wait(timeout=60)
            try:
                session.append_custom("race", {"writer": index})
                outcomes.append("won")
            except SessionConflict:
                outcomes.append("conflict")

    threads = [threading.Thread(target=write, args=(index,)) for index in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return outcomes


def test_of_writers_racing_on_one_leaf_exactly_one_wins_and_a_loser_retries_from_the_new_leaf(dsn):
    with PostgresSessionStore(dsn) as store:
        session = Session.new(store, cwd="/w")
        session.append_message(UserMessage.text("start"))
        for round in range(10):
            leaf = Session.open(session.id, store).leaf_id
            assert leaf is not None
            outcomes = _race(dsn, session.id, leaf, writers=3)
            assert sorted(outcomes) == ["conflict", "conflict", "won"], f"round {round}"
        stored = Session.open(session.id, store)
        assert len(stored.entries) == 1 + 10
        assert [entry.parent_id for entry in stored.entries[1:]] == [entry.id for entry in stored.entries[:-1]]
        retried = stored.append_custom("race", {"writer": "the loser, again"})  # from the new leaf: it goes in
        assert Session.open(session.id, store).leaf_id == retried.id


def test_a_writer_that_waits_on_another_ones_append_gets_a_conflict_when_it_commits(dsn):
    """The row lock, step by step: no timing, the second writer is seen waiting before the first commits."""
    with PostgresSessionStore(dsn) as store, psycopg.connect(dsn, autocommit=True) as first:
        session = Session.new(store, cwd="/w")
        entry = session.append_message(UserMessage.text("start"))
        outcome: list[BaseException | None] = []
        with first.transaction():  # the first writer's append, held open
            first.execute("SELECT 1 FROM agentkit_sessions WHERE id = %s FOR UPDATE", (session.id,))
            second = threading.Thread(target=lambda: outcome.append(_append_or_error(dsn, session.id, entry.id)))
            second.start()
            with psycopg.connect(dsn, autocommit=True) as watcher:
                while not watcher.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                          "AND datname = current_database()").fetchone()[0]:  # type: ignore[index]
                    watcher.execute("SELECT pg_sleep(0.01)")
            with PostgresSessionStore(dsn) as reader:  # reading does not wait for a writer
                assert [stored.id for stored in reader.load(session.id).entries] == [entry.id]
            first.execute("UPDATE agentkit_sessions SET last_entry = 'someone-else' WHERE id = %s", (session.id,))
        second.join(timeout=60)
        assert isinstance(outcome[0], SessionConflict)
        assert [stored.id for stored in store.load(session.id).entries] == [entry.id]


def _append_or_error(dsn: str, session_id: str, expected_last: str) -> BaseException | None:
    with PostgresSessionStore(dsn) as store:
        session = Session.open(session_id, store)
        assert session.leaf_id == expected_last
        try:
            session.append_custom("second", None)
        except BaseException as exc:
            return exc
    return None


@pytest.mark.slow
def test_eight_worker_processes_append_two_thousand_entries_to_fifty_sessions_and_lose_none(dsn, capsys):
    workers, sessions, appends = 8, 50, 2000
    with PostgresSessionStore(dsn) as store:
        ids = [Session.new(store, cwd=f"/w/{index}") for index in range(sessions)]
        for session in ids:
            session.append_message(UserMessage.text("start"))
        started = time.monotonic()
        processes = [subprocess.Popen([sys.executable, str(WORKER), dsn, str(worker), str(appends // workers),
                                       *(session.id for session in ids)], stdout=subprocess.PIPE, text=True)
                     for worker in range(workers)]
        reports = [json.loads(process.communicate(timeout=240)[0]) for process in processes]
        assert [process.returncode for process in processes] == [0] * workers
        elapsed = time.monotonic() - started  # reported, never asserted

        written = []
        for session in ids:
            stored = Session.open(session.id, store)
            assert stored.repairs == []
            # One chain: each entry's parent is the entry before it, the first is the root.
            assert [entry.parent_id for entry in stored.entries] == [None] + [e.id for e in stored.entries[:-1]]
            written += [(entry.data["data"]["worker"], entry.data["data"]["n"]) for entry in stored.entries[1:]]
    assert len(written) == appends
    assert sorted(written) == sorted((worker, n) for worker in range(workers) for n in range(appends // workers))
    conflicts = sum(report["conflicts"] for report in reports)
    with capsys.disabled():
        print(f"\nload: {workers} processes, {sessions} sessions, {len(written)} appends stored, "
              f"{conflicts} conflicts retried, {elapsed:.1f} s")
