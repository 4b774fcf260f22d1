"""``agentkit runs list|show|cancel`` on runs made by ``agentkit run --durable`` with the scripted model."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

from agentkit.testing import Turn, text, tool_call, write_script


def durable_env(tmp_path: Path, **more: str) -> dict[str, str]:
    return {"AGENTKIT_DATA_DIR": str(tmp_path / "data"),
            "AGENTKIT_DURABLE_DB": f"sqlite:///{tmp_path / 'runs.sqlite'}", **more}


def test_a_finished_run_is_listed_and_shown_with_its_steps_and_answer(agentkit: Any, tmp_path: Path) -> None:
    script = write_script(tmp_path / "turns.json", [Turn([tool_call("list_files", {})]), "Two files."])
    env = durable_env(tmp_path)
    ran = agentkit("run", "--durable", "what is here?", "--model", "faux/scripted", "--script", str(script),
                   "--root", str(tmp_path), env=env)
    assert ran.returncode == 0, ran.stderr
    session_id = next(line.split()[1] for line in ran.stderr.splitlines() if line.startswith("session: "))

    [row] = json.loads(agentkit.inline("runs", "list", "--json", env=env).stdout)
    assert (row["status"], row["model"], row["session_id"]) == ("succeeded", "faux/scripted", session_id)
    assert f"run: {row['id']} " in ran.stderr  # the id 'agentkit run' printed is the one listed
    shown = agentkit.inline("runs", "show", row["id"][:8], env=env)
    assert shown.returncode == 0, shown.stderr
    names = [line.split()[1] for line in shown.stdout.splitlines() if line.startswith("  ") and line.split()[0].isdigit()]
    assert names.count("agentkit.model_request") == 2 and "agentkit.tool:list_files" in names
    assert "outcome completed  turns 2" in shown.stdout and "answer: Two files." in shown.stdout
    assert "note:" not in shown.stdout  # this installation's own version


def test_a_killed_run_shows_as_running_until_cancelled_and_is_never_continued(agentkit: Any, tmp_path: Path) -> None:
    """Its process died inside a model request: looking at it sends nothing; cancelling it stops it for good."""
    script = write_script(tmp_path / "turns.json", [Turn([tool_call("list_files", {})]),
                                                    Turn([text("never finished")], hang=True)])
    requests = tmp_path / "requests.jsonl"
    env = durable_env(tmp_path, AGENTKIT_REPLAY_LOG=str(requests))
    process = agentkit.start("run", "--durable", "what is here?", "--model", "faux/scripted", "--script",
                             str(script), "--root", str(tmp_path), env=env)
    try:
        deadline = time.monotonic() + 120  # a generous bound: the second request hangs once it is sent
        while not (requests.exists() and len(requests.read_text().splitlines()) == 2):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)

    [row] = json.loads(agentkit.inline("runs", "list", "--json", env=env).stdout)
    run_id = row["id"]
    assert row["status"] == "running"
    for _ in range(2):
        assert agentkit.inline("runs", "list", env=env).returncode == 0
        shown = json.loads(agentkit.inline("runs", "show", run_id, "--json", env=env).stdout)
    assert [step["name"] for step in shown["steps"]] == [  # the answer's request was in flight: no step of it
        "agentkit.start", "agentkit.model_request", "agentkit.tool:list_files"]
    assert len(requests.read_text().splitlines()) == 2  # no request re-sent by looking

    cancelled = agentkit.inline("runs", "cancel", run_id, env=env)
    assert cancelled.stdout == f"cancelled run {run_id}\n", cancelled.stderr
    assert json.loads(agentkit.inline("runs", "list", "--json", env=env).stdout)[0]["status"] == "cancelled"
    resumed = agentkit("runs", "resume", env=env, timeout=120)  # a cancelled run is not recovered
    assert resumed.returncode == 0 and "no durable run is pending" in resumed.stderr
    assert len(requests.read_text().splitlines()) == 2


def test_a_run_of_another_version_is_named_with_the_fix(agentkit: Any, tmp_path: Path, make_runs: Any) -> None:
    env = durable_env(tmp_path)
    make_runs(env["AGENTKIT_DURABLE_DB"], [("run-old", {"model": "faux/scripted", "block": True})],
              version="agentkit-durable-0.0.1")
    from agentkit_durable._versions import current_version

    ours = current_version()
    resumed = agentkit("runs", "resume", "run-old", env=env, timeout=120)
    assert resumed.returncode == 2 and resumed.stdout == ""
    assert resumed.stderr == (
        f"agentkit: error: run run-old was started by agentkit-durable-0.0.1 and this is {ours}; only the version "
        "that started a run continues it: resume it where that version is installed (pip install "
        "agentkit-durable==0.0.1), or cancel it with 'agentkit runs cancel run-old'\n")
    everything = agentkit("runs", "resume", env=env, timeout=120)  # the others are resumed; this one is said
    assert everything.returncode == 0
    assert everything.stderr == (f"note: {resumed.stderr.removeprefix('agentkit: error: ')}"
                                 "no durable run is pending\n")
    listed = agentkit.inline("runs", "list", env=env)
    assert listed.stderr == (f"note: run run-old was started by agentkit-durable-0.0.1 and this is {ours}: see "
                             "'agentkit runs show run-old'\n")
    shown = agentkit.inline("runs", "show", "run-old", env=env)
    assert shown.stdout.splitlines()[-1].startswith("note: run run-old was started by agentkit-durable-0.0.1")
    assert agentkit.inline("runs", "cancel", "run-old", env=env).stdout == "cancelled run run-old\n"
