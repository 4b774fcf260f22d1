"""Durable runs driven as a user drives them: ``agentkit run --durable`` in a process the test kills, then
``agentkit runs resume``; SQLite in the test's own folder, the scripted model, and a tool plugin
(``plugin_site/``) that writes every call it starts to a ledger; and a PostgreSQL server for the queue and
its workers, started the way agentkit-store-postgres's tests start theirs (pytest-postgresql, one server per
test process on a free loopback port; ``system_db`` is a fresh database on it, as DBOS's ``postgresql://``
system database URL)."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pytest_postgresql import factories

from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.testing import Turn, write_script

#: The plugins the commands load: tools (read_note is retry-safe, write_note is not) and an observer of events.
PLUGIN_SITE = Path(__file__).parent / "plugin_site"
#: Generous: the suite runs on a loaded 2-core machine; each wait normally takes a second or two.
TIMEOUT = 120


@dataclass
class DurableWorld:
    """One test's folder: the data directory (sessions, the SQLite database), the ledger, the gate, the request log."""

    folder: Path
    command: Any  # the workspace's AgentkitCommand

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def ledger(self) -> Path:
        return self.folder / "ledger.jsonl"

    @property
    def gate(self) -> Path:
        return self.folder / "gate"

    @property
    def requests(self) -> Path:
        return self.folder / "requests.jsonl"

    @property
    def events(self) -> Path:
        return self.folder / "events.jsonl"

    def env(self) -> dict[str, str]:
        return {"AGENTKIT_DATA_DIR": str(self.data), "DURABLE_TEST_LEDGER": str(self.ledger),
                "DURABLE_TEST_GATE": str(self.gate), "AGENTKIT_REPLAY_LOG": str(self.requests),
                "DURABLE_TEST_EVENTS": str(self.events)}

    def script(self, turns: list[Turn]) -> Path:
        return write_script(self.folder / "script.json", turns)

    def run_args(self, task: str = "take notes") -> list[str]:
        return ["run", "--durable", "--model", "faux/scripted", "--script", str(self.folder / "script.json"),
                "--root", str(self.folder), task]

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``agentkit ARGS`` to its end."""
        return self.command(*args, env=self.env(), site=PLUGIN_SITE, cwd=self.folder, timeout=TIMEOUT)

    def start(self, *args: str) -> RunningProcess:
        """``agentkit ARGS`` started; its stderr kept in a file the test reads while it runs."""
        stderr = self.folder / f"stderr-{time.monotonic_ns()}.txt"
        with stderr.open("wb") as sink:
            process = subprocess.Popen([self.command.path(), *args], stdout=subprocess.DEVNULL, stderr=sink,
                                       stdin=subprocess.DEVNULL, cwd=self.folder,
                                       env=self.command.environment(self.env(), PLUGIN_SITE))
        return RunningProcess(process, stderr)

    def ledger_lines(self) -> list[dict[str, Any]]:
        if not self.ledger.exists():
            return []
        return [json.loads(line) for line in self.ledger.read_text("utf-8").splitlines()]

    def observed_events(self) -> list[dict[str, Any]]:
        """What the observing plugin saw, in every process so far: ``type``, ``call``, ``pid``."""
        if not self.events.exists():
            return []
        return [json.loads(line) for line in self.events.read_text("utf-8").splitlines()]

    def requested_turns(self) -> list[int]:
        """The scripted turns asked for, in order, by every process so far."""
        if not self.requests.exists():
            return []
        return [json.loads(line)["turn"] for line in self.requests.read_text("utf-8").splitlines()]

    def session(self) -> Session:
        """The one session the run wrote."""
        store = JsonlSessionStore(self.data / "sessions")
        latest = Session.most_recent(store)
        assert latest is not None, "the run wrote no session"
        return latest

    def transcript(self) -> bytes:
        """The session's messages as JSON bytes, without their timestamps (the wall clock's, never equal)."""
        session = self.session()
        try:
            messages = [message.to_dict() for message in session.resume().messages]
        finally:
            session.close()
        for message in messages:
            message.pop("timestamp", None)
        return json.dumps(messages, sort_keys=True).encode()


@dataclass
class RunningProcess:
    process: subprocess.Popen[bytes]
    stderr: Path

    def run_id(self) -> str:
        """The run id the command printed (``run: ID ...``), waited for."""
        line = wait_for(lambda: next((line for line in self.stderr.read_text("utf-8").splitlines()
                                      if line.startswith("run: ")), None), "the run id on stderr")
        return line.split()[1]

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(TIMEOUT)

    def end(self) -> None:
        if self.process.poll() is None:
            self.kill()


def wait_for(condition: Callable[[], Any], what: str) -> Any:
    """Poll ``condition`` until it answers something true; fail naming ``what`` after :data:`TIMEOUT` seconds."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    pytest.fail(f"waited {TIMEOUT}s for {what}")


@pytest.fixture
def world(tmp_path: Path, agentkit: Any) -> Iterator[DurableWorld]:
    folder = tmp_path / "world"
    folder.mkdir()
    os.chmod(folder, 0o700)
    yield DurableWorld(folder, agentkit)


# -- PostgreSQL --------------------------------------------------------------------------------------

INSTALL = ("PostgreSQL's server programs (initdb, pg_ctl) were not found on PATH nor by 'pg_config --bindir': "
           "install PostgreSQL 14 or newer (Debian/Ubuntu: apt install postgresql; macOS: brew install "
           "postgresql; Fedora: dnf install postgresql-server) or put its bin directory on PATH")

# The store's helper that runs pg_ctl as 'nobody' when the tests run as root (PostgreSQL refuses root).
UNPRIVILEGED = Path(__file__).resolve().parents[2] / "store_postgres" / "tests" / "pg_ctl_unprivileged.py"

# A throwaway server: commits need not reach the disk (the tests kill processes, not the power). Workers
# each hold a few connections: room for the load test's four and the test's own client.
postgresql_server_process = factories.postgresql_proc(
    port=None, postgres_options="-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                                "-c max_connections=200")
postgresql_database = factories.postgresql("postgresql_server")


def _pg_ctl() -> str | None:
    found = shutil.which("pg_ctl")
    if found is not None and shutil.which("initdb", path=str(Path(found).resolve().parent)):
        return found
    try:
        bindir = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=True,
                                timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    if (Path(bindir) / "pg_ctl").is_file() and (Path(bindir) / "initdb").is_file():
        return str(Path(bindir) / "pg_ctl")
    return None


def _as_unprivileged_user(pg_ctl: str, folder: Path) -> str:
    try:
        pwd.getpwnam("nobody")
    except KeyError:
        pytest.fail("the tests run as root and PostgreSQL refuses root, but there is no user 'nobody' to run "
                    "it as: run the tests as an ordinary user")
    wrapper = folder / "pg_ctl"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{UNPRIVILEGED}" "{pg_ctl}" "$@"\n')
    wrapper.chmod(0o700)
    return str(wrapper)


@pytest.fixture(scope="session")
def postgresql_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """The running server (a pytest-postgresql executor)."""
    pg_ctl = _pg_ctl()
    if pg_ctl is None:
        pytest.fail(INSTALL)
    if os.geteuid() == 0:
        pg_ctl = _as_unprivileged_user(pg_ctl, tmp_path_factory.mktemp("pg_ctl"))
    request.config.option.postgresql_exec = pg_ctl
    return request.getfixturevalue("postgresql_server_process")


@pytest.fixture
def system_db(postgresql_database) -> str:
    """A ``postgresql://`` URL of a fresh, empty database for DBOS's system tables, dropped after the test."""
    info = postgresql_database.info
    return f"postgresql://{info.user}@{info.host}:{info.port}/{info.dbname}"
