"""``agentkit runs list|show|cancel`` on durable runs left in a SQLite system database by processes that ran them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

SCHEME = {"model": "faux/scripted"}
RUNS = [
    ("run-done-1", {**SCHEME, "session_id": "sess-1"}),
    ("run-broke-2", {**SCHEME, "fail": True}),
    ("run-parked-3", {**SCHEME, "park": True, "child": "run-child-4"}),
    ("run-stuck-5", {**SCHEME, "block": True}),
]
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory, make_runs: Any) -> tuple[str, Path]:
    """One database holding a run of each kind (made once: the tests below only read it)."""
    folder = tmp_path_factory.mktemp("durable")
    url = f"sqlite:///{folder / 'durable.sqlite'}"
    make_runs(url, RUNS, ledger=folder / "ledger")
    return url, folder / "ledger"


def runs(agentkit: Any, *args: str, env: dict[str, str] | None = None) -> Any:
    return agentkit.inline("runs", *args, env=env)


def test_list_shows_each_run_with_its_status_model_and_session(agentkit: Any, database: tuple[str, Path]) -> None:
    url, _ = database
    listed = runs(agentkit, "list", "--db", url)
    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.splitlines()
    assert header.split() == ["RUN", "STATUS", "STARTED", "MODEL", "SESSION", "WAITING", "ON"]
    cells = {row.split()[0]: row.split() for row in rows}
    assert {run_id: row[1] for run_id, row in cells.items()} == {
        "run-done-1": "succeeded", "run-broke-2": "failed", "run-parked-3": "waiting", "run-child-4": "waiting",
        "run-stuck-5": "running"}
    assert cells["run-done-1"][3:5] == ["faux/scripted", "sess-1"]
    assert cells["run-parked-3"][5:] == ["call-7", "(write_file)"]
    assert all(ISO.match(row[2]) for row in cells.values())


def test_list_json_has_the_field_names_and_time_format_of_sessions_list(agentkit: Any,
                                                                        database: tuple[str, Path]) -> None:
    url, _ = database
    listed = runs(agentkit, "list", "--json", env={"AGENTKIT_DURABLE_DB": url})  # the environment names it too
    assert listed.returncode == 0, listed.stderr
    by_id = {row["id"]: row for row in json.loads(listed.stdout)}
    assert set(by_id) == {run_id for run_id, _ in RUNS} | {"run-child-4"}
    parked = by_id["run-parked-3"]
    assert parked["status"] == "waiting"
    assert parked["waiting"] == {"call_id": "call-7", "tool": "write_file", "reason": "writes outside"}
    assert by_id["run-child-4"]["parent"] == "run-parked-3"
    assert ISO.match(parked["started"]) and ISO.match(parked["updated"])
    assert by_id["run-done-1"]["session_id"] == "sess-1" and by_id["run-done-1"]["model"] == "faux/scripted"


def test_list_narrows_by_status_and_limit(agentkit: Any, database: tuple[str, Path]) -> None:
    url, _ = database
    waiting = json.loads(runs(agentkit, "list", "--db", url, "--status", "waiting", "--json").stdout)
    assert sorted(row["id"] for row in waiting) == ["run-child-4", "run-parked-3"]
    running = json.loads(runs(agentkit, "list", "--db", url, "--status", "running", "--json").stdout)
    assert [row["id"] for row in running] == ["run-stuck-5"]
    assert len(json.loads(runs(agentkit, "list", "--db", url, "--limit", "2", "--json").stdout)) == 2
    none = runs(agentkit, "list", "--db", url, "--status", "cancelled")
    assert none.returncode == 0 and none.stdout == ""
    assert none.stderr.startswith("no cancelled durable runs in ")


def test_looking_at_runs_never_recovers_or_continues_one(agentkit: Any, database: tuple[str, Path]) -> None:
    """The pending runs' process died: listing and showing them executes none of their steps."""
    url, ledger = database
    before = ledger.read_text()
    for _ in range(2):
        assert runs(agentkit, "list", "--db", url).returncode == 0
        assert runs(agentkit, "show", "run-stuck-5", "--db", url).returncode == 0
    assert ledger.read_text() == before
    shown = json.loads(runs(agentkit, "show", "run-stuck-5", "--db", url, "--json").stdout)
    assert shown["status"] == "running" and [step["name"] for step in shown["steps"]][:2] == [
        "model.request", "tool.write_file"]


def test_show_gives_the_steps_and_the_result_or_the_error(agentkit: Any, database: tuple[str, Path]) -> None:
    url, _ = database
    done = runs(agentkit, "show", "run-done", "--db", url)  # a unique prefix is enough
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "run run-done-1  succeeded"
    assert "model faux/scripted  session sess-1" in done.stdout
    assert re.search(r"^\s+1  model\.request  completed", done.stdout, re.M)
    assert done.stdout.endswith("outcome completed\nanswer: done\n")

    broke = json.loads(runs(agentkit, "show", "run-broke-2", "--db", url, "--json").stdout)
    assert broke["status"] == "failed" and broke["result"] is None
    assert broke["error"] == "RuntimeError: the disk is full"
    assert broke["steps"][1]["name"] == "tool.write_file" and broke["steps"][1]["error"] == broke["error"]
    assert broke["steps"][0]["output"] == {"role": "assistant", "text": "turn 1"}


def test_show_names_the_call_a_parked_run_waits_on(agentkit: Any, database: tuple[str, Path]) -> None:
    url, _ = database
    parked = runs(agentkit, "show", "run-parked-3", "--db", url)
    assert parked.returncode == 0, parked.stderr
    assert ("waiting on call call-7 (write_file): writes outside; answer with "
            "'agentkit runs approve|deny run-parked-3 call-7'") in parked.stdout
    assert "agentkit.run (run run-child-4)" in parked.stdout  # the subagent's run, started by a step


def test_an_unknown_run_or_an_ambiguous_prefix_is_one_line_and_exit_2(agentkit: Any,
                                                                      database: tuple[str, Path]) -> None:
    url, _ = database
    unknown = runs(agentkit, "show", "run-nope", "--db", url)
    assert (unknown.returncode, unknown.stdout) == (2, "")
    assert unknown.stderr == f"agentkit: error: no run 'run-nope' in {url}; see 'agentkit runs list'\n"
    several = runs(agentkit, "show", "run-", "--db", url)
    assert several.returncode == 2
    assert re.fullmatch(r"agentkit: error: 'run-' is the start of several run ids \(run-[^)]*\.\.\.\); "
                        r"give more of it\n", several.stderr)
    cancel = runs(agentkit, "cancel", "run-missing", "--db", url)
    assert cancel.returncode == 2 and cancel.stderr.startswith("agentkit: error: no run 'run-missing' in ")


def test_cancel_stops_a_run_and_the_runs_it_started(agentkit: Any, tmp_path: Path, make_runs: Any) -> None:
    url = f"sqlite:///{tmp_path / 'durable.sqlite'}"
    make_runs(url, [("run-a", {**SCHEME, "park": True, "child": "run-a-child"}), ("run-b", SCHEME),
                    ("run-c", {**SCHEME, "block": True})])
    cancelled = runs(agentkit, "cancel", "run-a", "--db", url)  # the full id, though it starts another too
    assert cancelled.returncode == 0, cancelled.stderr
    assert cancelled.stdout == "cancelled run run-a and 1 run it started\n"
    after = {row["id"]: row["status"] for row in json.loads(runs(agentkit, "list", "--db", url, "--json").stdout)}
    assert after == {"run-a": "cancelled", "run-a-child": "cancelled", "run-b": "succeeded", "run-c": "running"}

    again = runs(agentkit, "cancel", "run-a", "--db", url)
    assert (again.returncode, again.stdout) == (0, "")
    assert again.stderr == "run run-a has already been cancelled: nothing to cancel\n"
    finished = runs(agentkit, "cancel", "run-b", "--db", url)
    assert finished.returncode == 0 and finished.stderr == "run run-b has already succeeded: nothing to cancel\n"
    # as 'agentkit sessions delete': what cannot be undone takes the full id
    short = runs(agentkit, "cancel", "run-", "--db", url)
    assert short.returncode == 2 and "is the start of several run ids" in short.stderr
    assert runs(agentkit, "list", "--db", url, "--status", "running").stdout.count("run-c") == 1


def test_a_prefix_does_not_cancel(agentkit: Any, tmp_path: Path, make_runs: Any) -> None:
    url = f"sqlite:///{tmp_path / 'durable.sqlite'}"
    make_runs(url, [("run-only-one", {**SCHEME, "block": True})])
    short = runs(agentkit, "cancel", "run-only", "--db", url)
    assert short.returncode == 2
    assert short.stderr == ("agentkit: error: 'run-only' is only the start of a run id; to cancel that run, give "
                            "all of it: agentkit runs cancel run-only-one\n")
    assert json.loads(runs(agentkit, "show", "run-only-one", "--db", url, "--json").stdout)["status"] == "running"


def test_an_empty_or_new_database_lists_no_runs_and_creates_nothing(agentkit: Any, tmp_path: Path) -> None:
    data = tmp_path / "data"
    listed = runs(agentkit, "list", env={"AGENTKIT_DATA_DIR": str(data)})  # the default: under the data directory
    assert (listed.returncode, listed.stdout) == (0, "")
    assert listed.stderr == (f"no durable runs in sqlite:///{data / 'durable.sqlite'}; start one with "
                             "'agentkit run --durable ...'\n")
    assert json.loads(runs(agentkit, "list", "--json", env={"AGENTKIT_DATA_DIR": str(data)}).stdout) == []
    named = runs(agentkit, "show", "run-x", "--db", f"sqlite:///{tmp_path / 'none.sqlite'}")
    assert named.returncode == 2 and "no run 'run-x'" in named.stderr
    assert not (tmp_path / "none.sqlite").exists() and not data.exists()


def test_a_queued_run_is_pending_and_cancelling_takes_it_off_its_queue(agentkit: Any, tmp_path: Path,
                                                                       make_runs: Any) -> None:
    from agentkit_durable._versions import current_version
    from dbos import DBOSClient

    url = f"sqlite:///{tmp_path / 'durable.sqlite'}"
    make_runs(url, [("run-first", SCHEME)])
    client = DBOSClient(system_database_url=url)  # as 'agentkit runs submit' enqueues for the workers
    try:
        client.enqueue({"queue_name": "agentkit", "workflow_name": "agentkit.run", "workflow_id": "run-queued",
                        "app_version": current_version()}, {**SCHEME, "session_id": "sess-q"})
    finally:
        client.destroy()
    [queued] = json.loads(runs(agentkit, "list", "--db", url, "--status", "pending", "--json").stdout)
    assert (queued["id"], queued["status"], queued["queue"], queued["session_id"]) == (
        "run-queued", "pending", "agentkit", "sess-q")
    assert runs(agentkit, "cancel", "run-queued", "--db", url).stdout == "cancelled run run-queued\n"
    shown = json.loads(runs(agentkit, "show", "run-queued", "--db", url, "--json").stdout)
    assert (shown["status"], shown["queue"], shown["steps"]) == ("cancelled", None, [])
