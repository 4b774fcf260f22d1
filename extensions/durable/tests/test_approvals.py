"""Approvals that wait for a person: a durable run parks on a deferred call, outlives every process, and goes on
when a person answers from another process.

Real processes throughout: ``agentkit run --durable`` parks and is killed with SIGKILL, ``agentkit runs resume``
recovers the run in a new process, and ``agentkit runs approve|deny`` answers from yet another. SQLite in a
temporary directory.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.plugin_api import ToolResultMessage
from agentkit.testing import write_script

#: Generous: a loaded 2-core box may be slow, and a test that waits longer has hung, not lost a race.
PATIENCE = 120.0

DEFERRER = """
from agentkit.plugin_api import Defer, hookimpl

@hookimpl
def agentkit_before_tool_call(call):
    if call.name == "write_file":
        return Defer("writing files needs a person")
"""

TURNS = [
    {"content": [{"type": "tool_use", "id": "call_write", "name": "write_file",
                  "arguments": {"path": "out.txt", "content": "written once"}}]},
    {"content": [{"type": "text", "text": "Done."}]},
]


@pytest.fixture
def world(tmp_path: Path, site_dir: Any, agentkit: Any) -> dict[str, Any]:
    """A project folder, a script, a deferring hooks plugin, and the database the runs are kept in."""
    site_dir("deferrer-plugin", entry_points={"agentkit.hooks": {"deferrer": "deferrerplugin"}},
             requires=["agentkit-plugin-api>=0.1"], files={"deferrerplugin.py": DEFERRER})
    root = tmp_path / "project"
    root.mkdir()
    data = tmp_path / "data"
    env = {"AGENTKIT_DURABLE_DB": f"sqlite:///{tmp_path / 'runs.sqlite'}", "AGENTKIT_DATA_DIR": str(data)}
    return {"root": root, "data": data, "env": env, "site": site_dir.site, "agentkit": agentkit,
            "script": str(write_script(tmp_path / "turns.json", TURNS))}


def start_parked_run(world: dict[str, Any]) -> str:
    """``agentkit run --durable`` until its run waits for a person, then SIGKILL; the run's id."""
    agentkit = world["agentkit"]
    process = subprocess.Popen(
        [agentkit.path(), "run", "--durable", "write out.txt", "--model", "faux/scripted",
         "--script", world["script"], "--root", str(world["root"])],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
        env=agentkit.environment(world["env"], world["site"]))
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        assert first.startswith("run: "), first
        run_id = first.split()[1]
        waiting = wait_until_waiting(world, run_id)
        assert waiting["call_id"] == "call_write" and waiting["tool"] == "write_file"
        assert waiting["reason"] == "writing files needs a person"
        assert json.loads(waiting["arguments"]) == {"path": "out.txt", "content": "written once"}
        assert process.poll() is None  # parked, not ended
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=PATIENCE)
    assert not (world["root"] / "out.txt").exists()  # nothing ran without a person's yes
    return run_id


def waiting_event(world: dict[str, Any], run_id: str) -> Any:
    from dbos import DBOSClient

    client = DBOSClient(system_database_url=world["env"]["AGENTKIT_DURABLE_DB"])
    try:
        status = client.list_workflows(workflow_ids=[run_id], load_input=False, load_output=False)
        event = client.get_event(run_id, "agentkit.waiting", timeout_seconds=0)
        return (status[0].status if status else None), event
    finally:
        client.destroy()


def send_raw(world: dict[str, Any], run_id: str, message: dict[str, Any]) -> None:
    """An answer sent with DBOS's own client, as any program may send one."""
    from dbos import DBOSClient

    client = DBOSClient(system_database_url=world["env"]["AGENTKIT_DURABLE_DB"])
    try:
        client.send(run_id, message, topic="agentkit.approval")
    finally:
        client.destroy()


def wait_until_waiting(world: dict[str, Any], run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        if Path(world["env"]["AGENTKIT_DURABLE_DB"].removeprefix("sqlite:///")).exists():
            try:
                status, event = waiting_event(world, run_id)
            except Exception:  # the database is still being made by the run's process
                status, event = None, None
            if event:
                assert status == "PENDING"
                return event  # type: ignore[no-any-return]
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} never waited for a person")


def runs(world: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    return world["agentkit"]("runs", *args, env=world["env"], site=world["site"], timeout=PATIENCE)


def tool_results(world: dict[str, Any], session_id: str) -> list[ToolResultMessage]:
    session = Session.open(session_id, JsonlSessionStore(world["data"] / "sessions"))
    try:
        return [message for message in session.messages() if isinstance(message, ToolResultMessage)]
    finally:
        session.close()


def session_of(stderr: str) -> str:
    [line] = [line for line in stderr.splitlines() if line.startswith("session: ")]
    return line.split()[1]


@pytest.mark.slow
def test_a_parked_run_outlives_its_process_and_an_approval_from_another_process_lets_it_finish(world):
    run_id = start_parked_run(world)
    resumed = subprocess.Popen(
        [world["agentkit"].path(), "runs", "resume", run_id], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, stdin=subprocess.DEVNULL, env=world["agentkit"].environment(world["env"], world["site"]))
    try:
        approved = runs(world, "approve", run_id, "call_write")
        assert approved.returncode == 0, approved.stderr
        assert approved.stdout.startswith(f"approved: run {run_id} call call_write: write_file ")
        out, err = resumed.communicate(timeout=PATIENCE)
    finally:
        if resumed.poll() is None:
            resumed.kill()
    assert resumed.returncode == 0, err
    assert (f"run {run_id} waits for a person: call call_write (write_file: writing files needs a person); answer "
            f"with 'agentkit runs approve {run_id} call_write' or 'agentkit runs deny {run_id} call_write --reason "
            "TEXT'") in err.splitlines()
    assert out == "Done.\n"
    assert (world["root"] / "out.txt").read_text() == "written once"
    [result] = tool_results(world, session_of(err))
    assert not result.is_error
    assert waiting_event(world, run_id) == ("SUCCESS", None)


@pytest.mark.slow
def test_a_denial_sent_while_no_process_runs_the_run_is_its_calls_answer_once_resumed(world):
    run_id = start_parked_run(world)
    # Answers that do not name this call as it was shown are not taken, whoever sends them.
    send_raw(world, run_id, {"call_id": "call_other", "approved": True, "reason": None})
    send_raw(world, run_id, {"call_id": "call_write", "approved": True, "reason": None, "arguments_sha256": "0" * 64})
    denied = runs(world, "deny", run_id, "call_write", "--reason", "not on a Friday")
    assert denied.returncode == 0, denied.stderr
    assert denied.stdout.startswith(f"denied (not on a Friday): run {run_id} call call_write: write_file ")
    resumed = runs(world, "resume", run_id)
    assert resumed.returncode == 0, resumed.stderr
    assert not (world["root"] / "out.txt").exists()
    [result] = tool_results(world, session_of(resumed.stderr))
    assert result.is_error
    assert json.loads(result.text) == {"ok": False, "error": "denied",
                                       "detail": "A person denied the call to 'write_file': not on a Friday."}


@pytest.mark.slow
def test_an_answer_for_a_call_the_run_does_not_wait_for_is_a_one_line_error(world):
    run_id = start_parked_run(world)
    cases = [
        (("approve", run_id, "call_other"), f"run {run_id} is not waiting for call 'call_other': it waits for call "
                                            "'call_write' (write_file)"),
        (("approve", "no-such-run", "call_write"), "no durable run 'no-such-run'"),
        (("deny", run_id, "call_write", "--sha256", "0" * 64), "waits with other arguments"),
    ]
    for args, message in cases:
        answered = runs(world, *args)
        assert answered.returncode == 2, answered.stdout
        assert message in answered.stderr
        assert len(answered.stderr.strip().splitlines()) == 1 and "Traceback" not in answered.stderr
    # None of them was taken: the run still waits for its call.
    status, waiting = waiting_event(world, run_id)
    assert status == "PENDING" and waiting["call_id"] == "call_write"


@pytest.mark.slow
def test_the_rpc_answers_a_parked_run_naming_the_arguments_it_showed(world, monkeypatch):
    import asyncio
    import hashlib

    from agentkit.host.rpc import RpcServer

    run_id = start_parked_run(world)
    _, waiting = waiting_event(world, run_id)
    assert waiting["arguments_sha256"] == hashlib.sha256(waiting["arguments"].encode()).hexdigest()
    monkeypatch.setenv("AGENTKIT_DURABLE_DB", world["env"]["AGENTKIT_DURABLE_DB"])
    lines: list[dict[str, Any]] = []
    server = RpcServer(lambda session, model: None, lines.append, cwd=world["root"])  # type: ignore[arg-type, return-value]

    def ask(request_id: int, **params: Any) -> dict[str, Any]:
        line = {"schema": "agentkit.rpc.request/v1", "id": request_id, "method": "runs.answer", "params": params}
        asyncio.run(server.handle_line(json.dumps(line).encode()))
        return lines[-1]

    shown = waiting["arguments_sha256"]
    assert ask(1, run_id=run_id, call_id="call_write", approved=True)["error"]["code"] == "invalid_params"
    other = ask(2, run_id=run_id, call_id="call_write", approved=True, arguments_sha256="0" * 64)["error"]
    assert other["code"] == "run_not_waiting" and "other arguments" in other["message"]
    gone = ask(3, run_id="no-such-run", call_id="call_write", approved=True, arguments_sha256=shown)["error"]
    assert gone["code"] == "run_not_waiting" and "no durable run 'no-such-run'" in gone["message"]
    assert ask(4, run_id=run_id, call_id="call_write", approved=True, arguments_sha256=shown)["result"] == {
        "run_id": run_id, "call_id": "call_write", "tool": "write_file", "approved": True}
    resumed = runs(world, "resume", run_id)
    assert resumed.returncode == 0, resumed.stderr
    assert (world["root"] / "out.txt").read_text() == "written once"


def test_an_answer_on_a_database_that_holds_no_runs_is_a_one_line_error(agentkit, tmp_path):
    missing = f"sqlite:///{tmp_path / 'nothing-here.sqlite'}"
    for args in (("approve", "r1", "c1"), ("deny", "r1", "c1", "--reason", "no")):
        answered = agentkit.inline("runs", *args, "--db", missing)
        assert answered.returncode == 2
        assert answered.stderr.strip().splitlines() == [
            f"agentkit: error: no durable run 'r1': there are no durable runs in {tmp_path / 'nothing-here.sqlite'} yet "
            "(pass the --db the run was started with)"]
    assert not (tmp_path / "nothing-here.sqlite").exists()  # answering creates no database


def test_a_database_that_cannot_be_used_is_one_line_from_the_command_and_the_rpc(agentkit, tmp_path, monkeypatch):
    import asyncio

    from agentkit.host.rpc import RpcServer

    (tmp_path / "not-a-database.sqlite").write_text("this is no SQLite file")
    url = f"sqlite:///{tmp_path / 'not-a-database.sqlite'}"
    answered = agentkit.inline("runs", "approve", "r1", "c1", "--db", url)
    assert answered.returncode == 1
    [line] = answered.stderr.strip().splitlines()
    assert line.startswith("agentkit: error: the durable runs' database") and "cannot be reached" in line
    monkeypatch.setenv("AGENTKIT_DURABLE_DB", url)
    lines: list[dict[str, Any]] = []
    server = RpcServer(lambda session, model: None, lines.append)  # type: ignore[arg-type, return-value]
    request = {"schema": "agentkit.rpc.request/v1", "id": 1, "method": "runs.answer",
               "params": {"run_id": "r1", "call_id": "c1", "approved": True, "arguments_sha256": "a" * 64}}
    asyncio.run(server.handle_line(json.dumps(request).encode()))
    assert lines[-1]["error"]["code"] == "durable_unavailable" and "cannot be reached" in lines[-1]["error"]["message"]
