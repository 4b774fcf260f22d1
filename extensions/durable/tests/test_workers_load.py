"""Four ``agentkit worker`` processes on one PostgreSQL drain 100 queued runs while workers are killed with
SIGKILL at random (seeded) moments and restarted: every run completes exactly once, no completed tool call
is executed twice, nothing is left pending."""

from __future__ import annotations

import random
import signal
import time
import uuid
from pathlib import Path

from agentkit_durable import WORKFLOW_NAME, RunSpec, submit
from dbos import DBOSClient

from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.plugin_api import AssistantMessage, ToolResultMessage
from agentkit.testing import Turn, text, tool_call, write_script

from .conftest import TIMEOUT, DurableWorld, RunningProcess

RUNS = 100
WORKERS = 4
KILLS = 4
SEED = 29


def _scripts(world: DurableWorld) -> list[tuple[Path, int]]:
    """Three scripts of 3, 4 and 5 calls of the tool that is not safe to retry, in one batch; their call counts."""
    scripts = []
    for calls in (3, 4, 5):
        turns = [Turn([tool_call("write_note", {"name": f"n{i}"}) for i in range(calls)]), Turn([text("done")])]
        scripts.append((write_script(world.folder / f"script-{calls}.json", turns), calls))
    return scripts


def _statuses(database: str) -> dict[str, int]:
    client = DBOSClient(system_database_url=database)
    try:
        runs = client.list_workflows(name=WORKFLOW_NAME, load_input=False, load_output=False)
    finally:
        client.destroy()
    counts: dict[str, int] = {}
    for run in runs:
        counts[run.status] = counts.get(run.status, 0) + 1
    return counts


def _start_worker(world: DurableWorld, database: str, name: str | None) -> RunningProcess:
    return world.start("worker", "--db", database, "--concurrency", "8", *(["--id", name] if name else []))


def test_killed_workers_leave_every_run_completed_once_and_no_call_run_twice(
        world: DurableWorld, system_db: str) -> None:
    scripts = _scripts(world)
    specs, counts = [], []
    for number in range(RUNS):
        script, count = scripts[number % len(scripts)]
        specs.append(RunSpec(prompt=f"run {number}", model="faux/scripted", root=str(world.folder),
                             script=str(script), session_id=uuid.uuid4().hex[:16]))
        counts.append(count)
    run_ids = submit(specs, system_db)
    assert len(set(run_ids)) == RUNS

    rng = random.Random(SEED)
    # Two workers come back under their own id (DBOS gives them their runs back as they start), two under a
    # fresh one (the others find them dead and hand their runs back to the queue).
    names = ["w0", "w1", None, None]
    workers = [_start_worker(world, system_db, name) for name in names]
    try:
        kills = 0
        deadline = time.monotonic() + TIMEOUT
        # The kills begin once workers execute runs (before, they would only slow the start).
        while time.monotonic() < deadline and not _statuses(system_db).get("PENDING"):
            time.sleep(0.1)
        while time.monotonic() < deadline and _statuses(system_db).get("SUCCESS", 0) < RUNS:
            time.sleep(rng.uniform(0.2, 1.2))
            if kills < KILLS:
                victim = rng.randrange(WORKERS)
                workers[victim].kill()
                workers[victim] = _start_worker(world, system_db, names[victim])
                kills += 1
        assert kills == KILLS, "the runs finished before the workers were killed: make the runs longer"
        assert _statuses(system_db) == {"SUCCESS": RUNS}  # nothing pending, enqueued or failed
    finally:
        for worker in workers:
            if worker.process.poll() is None:
                worker.process.send_signal(signal.SIGTERM)
        stopped = [worker.process.wait(TIMEOUT) for worker in workers]
    assert stopped == [0] * WORKERS  # SIGTERM stops a worker cleanly

    # No call of the tool that is not safe to retry started twice: a completed one was answered from its
    # checkpoint, one cut off inside its handler was answered "interrupted".
    started = [line["key"] for line in world.ledger_lines()]
    assert len(started) == len(set(started))

    # Every run completed once: its session holds each call's one result and the final answer once; each
    # call either ran (it is in the ledger, under the run's id and the call's) or was answered interrupted.
    store = JsonlSessionStore(world.data / "sessions")
    interrupted = 0
    for run_id, spec, count in zip(run_ids, specs, counts, strict=True):
        session = Session.open(str(spec.session_id), store)
        try:
            messages = session.resume().messages
        finally:
            session.close()
        results = {message.tool_use_id: message.text for message in messages
                   if isinstance(message, ToolResultMessage)}
        assert len(results) == count, [message.to_dict() for message in messages]
        ran = {call for call, text in results.items() if "interrupted" not in text}
        assert {f"{run_id}:{call}" for call in ran} <= set(started)
        interrupted += count - len(ran)
        answers = [message.text for message in messages if isinstance(message, AssistantMessage)]
        assert answers.count("done") == 1
    assert interrupted < len(started)  # most calls ran (a kill interrupts a few)
