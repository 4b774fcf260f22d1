"""The PostgreSQL session store with 8 concurrent writers: amortized time per appended entry.

Eight threads each append ``APPENDS`` messages to a session of their own
through ``Session.append_message``, on a throwaway server (``_postgres.py``):

* grouped: the eight share one ``PostgresSessionStore``, whose appends made at
  once share group commits (what a process running eight agents gets);
* a transaction each: every writer has a store (and a connection) of its own,
  so every entry is a transaction of its own, which is what the store did for
  every append before group commits.

The figure is wall time over entries written (the server's work is in it, not
only this process's), the median of interleaved rounds; the goal is the
absolute one of at most 1 ms per entry, and the ratio to a transaction each is
printed beside it. The goal is read on the benchmarks' usual server, whose
commits do not wait for the disk (as the tests' does: the figures are the
store's, not the disk's). The same is measured on a server whose commits wait
for the disk (``fsync`` and ``synchronous_commit`` on), printed for what it
shows: there PostgreSQL's own WAL group flush lets eight connections share a
flush, and one connection's groups (about four appends each, as a writer has
one append in flight) do not always beat them.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

from _postgres import DURABLE, SETTINGS, fresh_database, postgres
from agentkit_store_postgres import PostgresSessionStore

from agentkit.host.sessions import Session
from agentkit.plugin_api import AssistantMessage, StopReason, TextBlock, ToolUseBlock, UserMessage

QUICK = os.environ.get("BENCH_QUICK") == "1"
WRITERS = 8
APPENDS = 60 if QUICK else 200
ROUNDS = 3 if QUICK else 5
GOAL_MS = 1.0


def _message(n: int) -> Any:
    if n % 2:
        return UserMessage.text(f"request {n}: " + "some words of the user " * 8)
    return AssistantMessage([TextBlock("an answer " * 20), ToolUseBlock(f"call_{n}", "read", '{"path": "a/b.py"}')],
                            StopReason.TOOL_USE, provider="faux", api="faux", model="scripted")


MESSAGES = [_message(n) for n in range(APPENDS)]


def _writers(stores: list[PostgresSessionStore]) -> float:
    """Seconds for ``WRITERS`` threads (writer ``i`` on ``stores[i]``) to append ``APPENDS`` entries each."""
    sessions = [Session.new(store, cwd=".") for store in stores]
    for session in sessions:
        session.append_message(MESSAGES[0])  # the header and a first entry: connected, created, warm
    start = threading.Barrier(WRITERS + 1)

    def write(session: Session) -> None:
        start.wait()
        for message in MESSAGES:
            session.append_message(message)

    threads = [threading.Thread(target=write, args=(session,)) for session in sessions]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    return time.perf_counter() - began


def _line(what: str, value: str, goal: str, met: bool) -> str:
    return f"  {what}: {value} (goal {goal}): {'met' if met else 'not met'}   [load {os.getloadavg()[0]:.1f}]"


def measure(settings: str) -> tuple[float, float, float]:
    """(grouped, a transaction each) median ms per entry, and commits per append grouped, on a new server."""
    with postgres(settings) as server:
        url = fresh_database(server, "store")
        shared = PostgresSessionStore(url)
        own = [PostgresSessionStore(url) for _ in range(WRITERS)]
        measures: dict[str, Callable[[], float]] = {
            "grouped": lambda: _writers([shared] * WRITERS),
            "a transaction each": lambda: _writers(own),
        }
        seconds: dict[str, list[float]] = {name: [] for name in measures}
        commits = []
        try:
            for measure_once in measures.values():
                measure_once()  # warm: connections, tables, the server's caches
            for _ in range(ROUNDS):  # in turns, so that a machine that slows down weighs on both alike
                before = shared.group_commits
                seconds["grouped"].append(measures["grouped"]())
                commits.append(shared.group_commits - before)
                seconds["a transaction each"].append(measures["a transaction each"]())
        finally:
            for store in [shared, *own]:
                store.disconnect()
    entries = WRITERS * APPENDS
    grouped, each = (statistics.median(seconds[name]) * 1000 / entries for name in measures)
    return grouped, each, statistics.median(commits) / (entries + WRITERS)


def main() -> None:
    print(f"   {WRITERS} writer threads x {APPENDS} appends (Session.append_message), median of {ROUNDS} rounds:")
    figures = {}
    for label, settings in (("commits do not flush", SETTINGS), ("commits wait for the disk", DURABLE)):
        grouped, each, per_append = figures[label] = measure(settings)
        print(f"     {label}: grouped (one store) {grouped:6.3f} ms/entry ({per_append:.2f} commits per append), "
              f"a transaction each {each:6.3f} ms/entry")
    grouped, each, _ = figures["commits do not flush"]
    print(_line(f"PostgreSQL store, {WRITERS} writers, amortized per entry", f"{grouped:.3f} ms",
                f"<= {GOAL_MS:g} ms", grouped <= GOAL_MS))
    for label, (grouped, each, _) in figures.items():
        print(f"  grouped / a transaction each ({label}): {grouped / each:.2f}x   [load {os.getloadavg()[0]:.1f}]")


if __name__ == "__main__":
    main()
