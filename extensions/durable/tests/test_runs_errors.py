"""What ``agentkit runs`` says when the system database fails it: one line on stderr, no traceback, no password."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

from agentkit.testing import write_script

SECRET = "hunter2-secret-password"


def one_line_error(done: Any, code: int, *secrets: str) -> str:
    """The error ``done`` printed, checked to be one line with exit ``code`` and none of ``secrets``."""
    assert done.returncode == code, (done.stdout, done.stderr)
    assert done.stdout == ""
    assert done.stderr.startswith("agentkit: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr
    for secret in secrets:
        assert secret not in done.stderr
    return str(done.stderr)


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_sqlite_path_in_a_missing_directory_names_it_and_the_fix(agentkit: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'no' / 'such' / 'durable.sqlite'}"
    for action in (["list"], ["show", "run-1"], ["cancel", "run-1"]):
        error = one_line_error(agentkit.inline("runs", *action, "--db", url), 1)
        assert error == (f"agentkit: error: the durable runs' database {url} cannot be opened: {tmp_path / 'no' / 'such'}"
                         " is not a directory; create it, or pass --db (or set $AGENTKIT_DURABLE_DB) with the URL"
                         " the runs were started with\n")
    assert not (tmp_path / "no").exists()


def test_a_sqlite_path_under_a_file_or_a_file_that_is_no_database(agentkit: Any, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a folder")
    under_file = f"sqlite:///{tmp_path / 'notes.txt' / 'durable.sqlite'}"
    assert "is not a directory" in one_line_error(agentkit.inline("runs", "list", "--db", under_file), 1)
    (tmp_path / "garbage.sqlite").write_bytes(b"this is no SQLite database at all, only text" * 100)
    garbage = f"sqlite:///{tmp_path / 'garbage.sqlite'}"
    error = one_line_error(agentkit.inline("runs", "list", "--db", garbage), 1)
    assert error.startswith(f"agentkit: error: the durable runs' database {garbage} cannot be reached: ")
    assert "file is not a database" in error


def test_a_refused_postgresql_connection_is_one_line_without_the_password(agentkit: Any) -> None:
    url = f"postgresql://agent:{SECRET}@127.0.0.1:{free_port()}/runs"
    # a process of its own: what DBOS's logger would print goes to its stderr (pytest captures logging in this one)
    error = one_line_error(agentkit("runs", "list", "--db", url), 1, SECRET)
    assert error.startswith(f"agentkit: error: the durable runs' database {url.replace(SECRET, '***')} cannot be "
                            "reached: ")
    assert "Connection refused" in error and error.endswith(
        "; check that it is running and that the URL (--db or $AGENTKIT_DURABLE_DB) is right\n")
    # the same from the environment, and for every action
    for action in (["show", "run-1"], ["cancel", "run-1"]):
        one_line_error(agentkit.inline("runs", *action, env={"AGENTKIT_DURABLE_DB": url}), 1, SECRET)


def test_a_wrong_password_is_one_line_that_shows_neither_password(agentkit: Any, password_server: Any) -> None:
    wrong = "not-" + password_server.password
    url = f"postgresql://{password_server.user}:{wrong}@127.0.0.1:{password_server.port}/postgres"
    error = one_line_error(agentkit.inline("runs", "list", "--db", url), 1, wrong, password_server.password)
    assert "password authentication failed" in error
    assert f"postgresql://{password_server.user}:***@127.0.0.1:{password_server.port}/postgres" in error


def test_a_database_the_server_does_not_have_is_one_line(agentkit: Any, dsn: str) -> None:
    user, _, rest = dsn.removeprefix("postgresql://").partition("@")
    url = f"postgresql://{user}:{SECRET}@{rest.rpartition('/')[0]}/no_such_database_here"
    error = one_line_error(agentkit.inline("runs", "show", "run-1", "--db", url), 1, SECRET)
    assert 'database "no_such_database_here" does not exist' in error


def test_a_url_of_another_scheme_is_a_usage_error_without_the_password(agentkit: Any) -> None:
    error = one_line_error(agentkit.inline("runs", "list", "--db", f"mysql://agent:{SECRET}@127.0.0.1/runs"), 2, SECRET)
    assert error == ("agentkit: error: --db mysql://agent:***@127.0.0.1/runs: expected sqlite:///PATH or "
                     "postgresql://USER@HOST/DATABASE\n")
    from_env = agentkit.inline("runs", "list", env={"AGENTKIT_DURABLE_DB": "redis://h/0"})
    assert "$AGENTKIT_DURABLE_DB redis://h/0: expected" in one_line_error(from_env, 2)


def test_runs_on_postgresql_are_listed_shown_and_cancelled(agentkit: Any, dsn: str, make_runs: Any) -> None:
    make_runs(dsn, [("run-pg-done", {"model": "faux/scripted"}),
                    ("run-pg-parked", {"model": "faux/scripted", "park": True, "child": "run-pg-child"})])
    listed = {row["id"]: row["status"] for row in json.loads(agentkit.inline("runs", "list", "--db", dsn,
                                                                             "--json").stdout)}
    assert listed == {"run-pg-done": "succeeded", "run-pg-parked": "waiting", "run-pg-child": "waiting"}
    shown = json.loads(agentkit.inline("runs", "show", "run-pg-d", "--db", dsn, "--json").stdout)
    assert shown["result"] == {"outcome": "completed", "text": "done"}
    cancelled = agentkit.inline("runs", "cancel", "run-pg-parked", "--db", dsn)
    assert cancelled.stdout == "cancelled run run-pg-parked and 1 run it started\n", cancelled.stderr
    waiting = agentkit.inline("runs", "list", "--db", dsn, "--status", "waiting")
    assert waiting.stdout == "" and waiting.stderr.startswith("no waiting durable runs in postgresql://")


def test_a_postgresql_database_no_run_has_used_lists_none(agentkit: Any, dsn: str) -> None:
    listed = agentkit.inline("runs", "list", "--db", dsn)
    assert (listed.returncode, listed.stdout) == (0, "")
    assert listed.stderr == f"no durable runs in {dsn}; start one with 'agentkit run --durable ...'\n"
    missing = agentkit.inline("runs", "show", "run-1", "--db", dsn)
    assert missing.returncode == 2 and missing.stderr == f"agentkit: error: no run 'run-1' in {dsn}; see 'agentkit runs list'\n"


def test_the_commands_that_run_say_an_unreachable_database_in_one_line(agentkit: Any, tmp_path: Path) -> None:
    """``agentkit run --durable`` and ``agentkit runs resume`` launch DBOS: its failure is the same one line."""
    script = write_script(tmp_path / "turns.json", ["hello"])
    url = f"postgresql://agent:{SECRET}@127.0.0.1:{free_port()}/runs"
    ran = agentkit("run", "--durable", "hi", "--model", "faux/scripted", "--script", str(script), "--db", url,
                   "--root", str(tmp_path), env={"AGENTKIT_DATA_DIR": str(tmp_path / "data")}, timeout=120)
    assert "cannot be reached: connection failed" in one_line_error(ran, 1, SECRET)
    resumed = agentkit("runs", "resume", env={"AGENTKIT_DURABLE_DB": url}, timeout=120)
    assert "cannot be reached: connection failed" in one_line_error(resumed, 1, SECRET)

    (tmp_path / "notes.txt").write_text("not a folder")
    under_file = f"sqlite:///{tmp_path / 'notes.txt' / 'runs.sqlite'}"
    ran = agentkit("run", "--durable", "hi", "--model", "faux/scripted", "--script", str(script), "--db",
                   under_file, "--root", str(tmp_path), env={"AGENTKIT_DATA_DIR": str(tmp_path / "data")},
                   timeout=120)
    assert one_line_error(ran, 1).startswith(f"agentkit: error: the durable runs' database {under_file} cannot be "
                                             f"created: {tmp_path / 'notes.txt'}: ")
