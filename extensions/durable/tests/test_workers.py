"""``agentkit runs submit`` queues a run and prints its id; ``agentkit worker`` executes it into the session
store, stops cleanly on SIGTERM, recovers a dead worker's runs, and refuses an id a live worker holds."""

from __future__ import annotations

import signal
import socket
import time

import pytest
from dbos import DBOSClient

from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.testing import Turn, text, tool_call

from .conftest import TIMEOUT, DurableWorld, RunningProcess, wait_for


def _status(database: str, run_id: str) -> str | None:
    client = DBOSClient(system_database_url=database)
    try:
        found = client.list_workflows(workflow_ids=[run_id], load_input=False, load_output=False)
    finally:
        client.destroy()
    return found[0].status if found else None


def _taking_runs(worker: RunningProcess) -> str:
    """Wait until the worker says it takes runs; that line."""
    return wait_for(lambda: next((line for line in worker.stderr.read_text("utf-8").splitlines()
                                  if "taking runs" in line), None), "the worker taking runs")


def _stop(worker: RunningProcess) -> int:
    worker.process.send_signal(signal.SIGTERM)
    return worker.process.wait(TIMEOUT)


def test_a_submitted_run_is_executed_by_a_worker_into_the_named_store(world: DurableWorld, system_db: str) -> None:
    world.script([Turn([tool_call("write_note", {"name": "queued"})]), Turn([text("done from the queue")])])
    store = world.folder / "elsewhere"
    submitted = world.run("runs", "submit", "--db", system_db, "--store", str(store), "--model", "faux/scripted",
                          "--script", str(world.folder / "script.json"), "--root", str(world.folder), "take notes")
    assert submitted.returncode == 0, submitted.stderr
    run_id = submitted.stdout.strip()
    assert _status(system_db, run_id) == "ENQUEUED"  # nothing runs it until a worker comes

    worker = world.start("worker", "--db", system_db, "--concurrency", "2")
    try:
        wait_for(lambda: _status(system_db, run_id) == "SUCCESS", "the run to complete")
        assert _stop(worker) == 0
    finally:
        worker.end()
    said = worker.stderr.read_text("utf-8")
    assert "taking runs" in said and "stopped" in said and "Traceback" not in said

    assert [line["key"] for line in world.ledger_lines()] == [f"{run_id}:call_1_1"]
    latest = Session.most_recent(JsonlSessionStore(store))
    assert latest is not None
    try:
        texts = [message.text for message in latest.resume().messages if message.role != "user"]
    finally:
        latest.close()
    assert texts == ["", '{"ok": true, "data": "wrote queued"}', "done from the queue"]


def test_a_dead_workers_run_is_finished_by_another_worker(world: DurableWorld) -> None:
    database = "sqlite:///" + str(world.folder / "db" / "durable.sqlite")
    # The first call waits at the gate: its worker is killed while the run is inside it.
    world.script([Turn([tool_call("read_note", {"name": "slow one"})]), Turn([text("finished elsewhere")])])
    submitted = world.run("runs", "submit", "--db", database, "--model", "faux/scripted",
                          "--script", str(world.folder / "script.json"), "--root", str(world.folder), "note")
    assert submitted.returncode == 0, submitted.stderr
    run_id = submitted.stdout.strip()
    first = world.start("worker", "--db", database)
    try:
        wait_for(lambda: world.ledger_lines(), "the call to start in the first worker")
        first.kill()
    finally:
        first.end()
    world.gate.touch()
    second = world.start("worker", "--db", database)
    try:
        wait_for(lambda: _status(database, run_id) == "SUCCESS", "another worker to finish the run")
        assert _stop(second) == 0
    finally:
        second.end()
    # The retry-safe call ran again in the second worker; the model was not asked for the first turn again.
    assert [line["pid"] for line in world.ledger_lines()] == [first.process.pid, second.process.pid]
    assert world.requested_turns() == [1, 2]


def test_a_worker_id_a_live_worker_holds_is_refused_in_one_line(world: DurableWorld) -> None:
    database = "sqlite:///" + str(world.folder / "db" / "durable.sqlite")
    first = world.start("worker", "--db", database, "--id", "builder")
    try:
        _taking_runs(first)
        second = world.run("worker", "--db", database, "--id", "builder")
    finally:
        first.end()
    assert second.returncode == 2
    assert second.stderr.strip().splitlines()[-1].endswith(
        "a worker with id 'builder' is already running on this database: give this one another --id "
        "(or none, for a fresh one)")
    assert "Traceback" not in second.stderr


def _lock_askers(database: str) -> int:
    """Connections of the database whose last statement asked for a worker's liveness lock."""
    import psycopg

    with psycopg.connect(database, autocommit=True) as connection:
        row = connection.execute("SELECT count(*) FROM pg_stat_activity "
                                 "WHERE query LIKE 'SELECT pg_try_advisory_lock(%%'").fetchone()
    return int(row[0]) if row else 0


def test_a_worker_restarted_under_the_id_of_one_just_killed_waits_for_the_dead_ones_lock(
        world: DurableWorld, system_db: str) -> None:
    # The PostgreSQL server lets a killed worker's lock go when it notices the connection closed, which a restart
    # under the same id (a supervisor's) can beat: the new worker waits for the lock instead of calling the id taken.
    first = world.start("worker", "--db", system_db, "--id", "restarted")
    try:
        _taking_runs(first)
        second = world.start("worker", "--db", system_db, "--id", "restarted")
        try:
            wait_for(lambda: _lock_askers(system_db) >= 2, "the second worker asking for the lock the first holds")
            first.kill()
            _taking_runs(second)
            assert _stop(second) == 0
        finally:
            second.end()
    finally:
        first.end()


def test_submit_refuses_an_unknown_model_before_queueing(world: DurableWorld) -> None:
    database = "sqlite:///" + str(world.folder / "db" / "durable.sqlite")
    refused = world.run("runs", "submit", "--db", database, "--model", "nowhere/nothing", "do it")
    assert refused.returncode == 2
    assert len(refused.stderr.strip().splitlines()) == 1 and "no installed provider serves vendor 'nowhere'" in \
        refused.stderr
    assert not (world.folder / "db").exists()  # nothing was queued


AGENTS_MODULE = '''
from agentkit.host import Agent, AgentConfig, Connection
from agentkit.plugin_api import Tool
from agentkit.testing import Script, Turn, text, tool_call
from agentkit_durable import DurableAgent


def shout(words: str) -> str:
    """Shout some words.

    :param words: what to shout
    """
    return words.upper()


def build() -> Agent:
    script = Script([Turn([tool_call("shout", {"words": "hello"})]), Turn([text("I shouted HELLO.")])],
                    by_transcript=True)
    agent = Agent(AgentConfig(model="faux/scripted", tools=[], connection=Connection(transport=script)))
    agent.add_tools(Tool.from_function(shout))
    return agent


DurableAgent(build, name="shouter")
'''


def test_a_run_submitted_by_agent_name_runs_on_a_worker_that_imports_its_module(world: DurableWorld) -> None:
    from agentkit_durable import RunSpec, submit

    database = "sqlite:///" + str(world.folder / "db" / "durable.sqlite")
    (world.folder / "shouters.py").write_text(AGENTS_MODULE)
    [run_id] = submit([RunSpec(prompt="Shout hello", agent="shouter")], database)
    worker = world.start("worker", "--db", database, "--import", "shouters")
    try:
        wait_for(lambda: _status(database, run_id) == "SUCCESS", "the worker to run the named agent")
        assert _stop(worker) == 0
    finally:
        worker.end()
    client = DBOSClient(system_database_url=database)
    try:
        assert client.retrieve_workflow(run_id).get_result()["text"] == "I shouted HELLO."
    finally:
        client.destroy()


def test_a_module_to_import_that_is_missing_is_refused_in_one_line(world: DurableWorld) -> None:
    refused = world.run("worker", "--import", "no_such_agents_module")
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        "agentkit: error: --import no_such_agents_module: No module named 'no_such_agents_module'; run the "
        "worker where the module can be imported"]


def test_a_database_that_cannot_be_reached_is_one_line_without_its_password(world: DurableWorld) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgresql://agent:s3cret-pw@127.0.0.1:{port}/runs"
    world.script([Turn([text("never")])])
    for command in (["worker", "--db", url],
                    ["runs", "submit", "--db", url, "--model", "faux/scripted", "--script",
                     str(world.folder / "script.json"), "go"]):
        failed = world.run(*command)
        assert failed.returncode == 1, failed.stderr
        [line] = failed.stderr.strip().splitlines()
        assert line.startswith(f"agentkit: error: the durable runs' database postgresql://agent:***@127.0.0.1:{port}/runs "
                               "cannot be reached: ")
        assert "s3cret-pw" not in failed.stderr + failed.stdout


def _queued_slow_runs(world: DurableWorld, database: str, count: int) -> list[str]:
    """``count`` runs whose one call waits at the gate, queued."""
    from agentkit_durable import RunSpec, submit

    script = world.script([Turn([tool_call("write_note", {"name": "slow note"})]), Turn([text("noted")])])
    return submit([RunSpec(prompt=f"run {number}", model="faux/scripted", root=str(world.folder),
                           script=str(script)) for number in range(count)], database)


def _counts(database: str) -> dict[str, int]:
    client = DBOSClient(system_database_url=database)
    try:
        runs = client.list_workflows(load_input=False, load_output=False)
    finally:
        client.destroy()
    return {status: sum(run.status == status for run in runs) for status in {run.status for run in runs}}


# The queue-wide limit is exact across workers on PostgreSQL only: on SQLite, DBOS counts the queue's
# running workflows before its write transaction begins, so two workers polling at once may each start one
# (docs/durable.md says so). A single worker's own limit is exact on either.
@pytest.mark.parametrize("limits", [["--concurrency", "1"], ["--concurrency", "3", "--queue-concurrency", "1"]],
                         ids=["per-worker", "per-queue"])
def test_a_worker_executes_no_more_runs_at_once_than_its_limits(world: DurableWorld, limits: list[str],
                                                                 request: pytest.FixtureRequest) -> None:
    database = (request.getfixturevalue("system_db") if "--queue-concurrency" in limits
                else "sqlite:///" + str(world.folder / "db" / "durable.sqlite"))
    run_ids = _queued_slow_runs(world, database, 3)
    # Per queue: two workers, the limit across both; per worker: one.
    workers = [world.start("worker", "--db", database, *limits) for _ in range(2 if "--queue-concurrency" in limits
                                                                                 else 1)]
    try:
        for worker in workers:
            _taking_runs(worker)
        wait_for(lambda: world.ledger_lines(), "a run to start its call")
        time.sleep(3)  # three polls of the queue by each worker: none takes a second run while one runs
        assert _counts(database) == {"PENDING": 1, "ENQUEUED": 2}
        assert len(world.ledger_lines()) == 1
        world.gate.touch()
        wait_for(lambda: _counts(database) == {"SUCCESS": 3}, "every run to complete, one after the other")
    finally:
        for worker in workers:
            worker.end()
    assert sorted(line["key"].split(":")[0] for line in world.ledger_lines()) == sorted(run_ids)
