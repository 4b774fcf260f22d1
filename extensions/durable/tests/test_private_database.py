"""The SQLite system database is the user's alone: DBOS unpickles what it holds, so whoever can write it runs code."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from agentkit.testing import write_script


def run_durably(agentkit: Any, tmp_path: Path, env: dict[str, str]) -> Any:
    script = write_script(tmp_path / "turns.json", ["Done."])
    return agentkit("run", "--durable", "hello", "--model", "faux/scripted", "--script", str(script),
                    "--root", str(tmp_path), env=env)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_database_and_its_folder_are_the_users_alone(agentkit: Any, tmp_path: Path) -> None:
    data = tmp_path / "data"
    ran = run_durably(agentkit, tmp_path, {"AGENTKIT_DATA_DIR": str(data)})
    assert ran.returncode == 0, ran.stderr
    assert mode(data) == 0o700
    assert mode(data / "durable.sqlite") == 0o600
    named = tmp_path / "elsewhere" / "runs.sqlite"
    ran = run_durably(agentkit, tmp_path, {"AGENTKIT_DATA_DIR": str(data), "AGENTKIT_DURABLE_DB": f"sqlite:///{named}"})
    assert ran.returncode == 0, ran.stderr
    assert (mode(named.parent), mode(named)) == (0o700, 0o600)


def test_a_database_others_may_write_is_refused_by_every_command_that_would_read_it(agentkit: Any,
                                                                                      tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {"AGENTKIT_DATA_DIR": str(data)}
    assert run_durably(agentkit, tmp_path, env).returncode == 0
    database = data / "durable.sqlite"
    database.chmod(0o666)  # as a shared machine's careless copy would leave it
    again = ["hello", "--model", "faux/scripted", "--script", str(write_script(tmp_path / "again.json", ["Again."]))]
    commands = [["run", "--durable", *again],
                ["runs", "list"], ["runs", "show", "x"], ["runs", "resume"], ["runs", "approve", "r", "c"],
                ["runs", "submit", *again]]
    for command in commands:
        done = agentkit.inline(*command, env=env)
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        [line] = done.stderr.splitlines()
        assert line.startswith(f"agentkit: error: {database} is another user's or writable by group or others "
                               "(mode -rw-rw-rw-)") and f"chmod go-w {database}" in line, (command, line)
        assert done.stdout == ""


def test_a_database_in_a_folder_others_may_write_is_refused(agentkit: Any, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    done = run_durably(agentkit, tmp_path, {"AGENTKIT_DATA_DIR": str(tmp_path / "data"),
                                            "AGENTKIT_DURABLE_DB": f"sqlite:///{shared / 'runs.sqlite'}"})
    assert done.returncode == 2
    assert f"{shared} is writable by group or others" in done.stderr
    assert not (shared / "runs.sqlite").exists()
