"""Artifacts of a run without a session never outlive it: removed at exit, reaped once their process is gone.

A run without a session has no ``sessions delete`` to remove its artifacts:
they go when it exits, and when it was killed (``SIGKILL``: no exit handler
runs) the next process that keeps artifacts, or ``agentkit artifacts list``,
reaps them once their owner is dead. A live owner's artifacts are never
reaped by another process, and a reused pid is not taken for the owner.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agentkit.host.sessions import ArtifactStore

CHILD = Path(__file__).with_name("artifact_owner_child.py")
OWNER_RECORD = ".owner.json"


@pytest.fixture
def data(tmp_path: Path) -> dict[str, str]:
    return {"AGENTKIT_DATA_DIR": str(tmp_path / "data")}


def child(mode: str, data: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(CHILD), mode], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, **data})


def killed_owner(data: dict[str, str]) -> str:
    """A run that kept an artifact and was killed (``SIGKILL``): its owner id."""
    process = child("hang", data)
    try:
        owner = process.stdout.readline().strip()  # type: ignore[union-attr]
        assert process.stdout.readline().strip() == "ready"  # type: ignore[union-attr]
    finally:
        process.kill()
        process.wait(timeout=60)
    assert artifacts(data, owner), "the killed run should have left its artifact behind"
    return owner


def artifacts(data: dict[str, str], owner: str) -> list[str]:
    folder = Path(data["AGENTKIT_DATA_DIR"]) / "artifacts" / owner
    return sorted(path.name for path in folder.glob("*.txt")) if folder.exists() else []


def test_a_run_without_a_session_removes_its_artifacts_when_it_exits(data: dict[str, str]) -> None:
    process = child("exit", data)
    out, _ = process.communicate(timeout=120)
    assert process.returncode == 0
    owner = out.strip()
    assert owner and not (Path(data["AGENTKIT_DATA_DIR"]) / "artifacts" / owner).exists()


def test_a_killed_runs_artifacts_are_reaped_by_artifacts_list(agentkit: Any, data: dict[str, str]) -> None:
    owner = killed_owner(data)
    listed = agentkit.inline("artifacts", "list", env=data)
    assert listed.returncode == 0, listed.stderr
    assert artifacts(data, owner) == []
    assert "removed" in listed.stderr and "1 run" in listed.stderr and owner not in listed.stdout


def test_a_killed_runs_artifacts_are_reaped_by_the_next_run_that_keeps_one(data: dict[str, str]) -> None:
    owner = killed_owner(data)
    process = child("exit", data)
    process.communicate(timeout=120)
    assert process.returncode == 0
    assert artifacts(data, owner) == []


def test_a_live_owners_artifacts_are_never_reaped_nor_deleted(agentkit: Any, data: dict[str, str]) -> None:
    process = child("hang", data)
    try:
        owner = process.stdout.readline().strip()  # type: ignore[union-attr]
        assert process.stdout.readline().strip() == "ready"  # type: ignore[union-attr]
        kept = artifacts(data, owner)
        listed = agentkit.inline("artifacts", "list", "--json", env=data)
        assert listed.returncode == 0, listed.stderr
        (row,) = [row for row in json.loads(listed.stdout) if row["owner"] == owner]
        assert row["kind"] == "run" and row["state"] == "running" and row["pid"] == process.pid
        assert row["artifacts"] == len(kept) == 1
        other = child("exit", data)  # another run that keeps artifacts, and so reaps
        other.communicate(timeout=120)
        deleted = agentkit.inline("artifacts", "delete", owner, env=data)
        assert deleted.returncode == 2 and f"pid {process.pid}" in deleted.stderr and "Traceback" not in deleted.stderr
        assert artifacts(data, owner) == kept
    finally:
        process.kill()
        process.wait(timeout=60)


def test_a_reused_pid_is_not_taken_for_the_owner(agentkit: Any, data: dict[str, str]) -> None:
    owner = killed_owner(data)
    record = Path(data["AGENTKIT_DATA_DIR"]) / "artifacts" / owner / OWNER_RECORD
    claimed = json.loads(record.read_text())
    record.write_text(json.dumps({**claimed, "pid": os.getpid()}))  # a live process now has the owner's pid
    agentkit.inline("artifacts", "list", env=data)
    assert artifacts(data, owner) == []


def test_an_owner_that_cannot_be_checked_is_reaped_only_past_the_documented_age(agentkit: Any,
                                                                                data: dict[str, str]) -> None:
    owner = killed_owner(data)
    record = Path(data["AGENTKIT_DATA_DIR"]) / "artifacts" / owner / OWNER_RECORD
    record.write_text(json.dumps({**json.loads(record.read_text()), "host": "another-machine"}))
    agentkit.inline("artifacts", "list", env=data)
    assert artifacts(data, owner) != []  # its process may live on the other machine
    eight_days_ago = time.time() - 8 * 24 * 3600
    os.utime(record, (eight_days_ago, eight_days_ago))
    agentkit.inline("artifacts", "list", env=data)
    assert artifacts(data, owner) == []


def test_artifacts_delete_removes_what_is_left(agentkit: Any, data: dict[str, str]) -> None:
    store = ArtifactStore(Path(data["AGENTKIT_DATA_DIR"]) / "artifacts")
    store.create("0123abcd-session", "kept by a session that is gone")
    listed = agentkit.inline("artifacts", "list", env=data)
    assert "0123abcd-session" in listed.stdout and "session" in listed.stdout
    deleted = agentkit.inline("artifacts", "delete", "0123abcd-session", env=data)
    assert deleted.returncode == 0, deleted.stderr
    assert store.list("0123abcd-session") == []
    missing = agentkit.inline("artifacts", "delete", "../etc", env=data)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
