"""Durable runs driven as a user drives them: ``agentkit run --durable`` in a process the test kills, then
``agentkit runs resume``; SQLite in the test's own folder, the scripted model, and a tool plugin
(``plugin_site/``) that writes every call it starts to a ledger.

Also real system databases for ``agentkit runs``: PostgreSQL servers (the session store's, loaded from
extensions/store_postgres/tests/conftest.py so that both suites start it the same way, and a second one,
started only by the tests that need it, that asks for a password), and ``make_runs``, which leaves runs of
every kind in a database as processes running them would (make_runs.py).
``system_db`` is a fresh database on the first server, as DBOS's ``postgresql://`` system database URL
(the queue and its workers)."""

from __future__ import annotations

import importlib.util
import json
import os
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


_STORE_TESTS = Path(__file__).resolve().parents[2] / "store_postgres" / "tests" / "conftest.py"
_spec = importlib.util.spec_from_file_location("_store_postgres_conftest", _STORE_TESTS)
assert _spec is not None and _spec.loader is not None
_store = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_store)

postgresql_server_process = _store.postgresql_server_process
postgresql_database = _store.postgresql_database
postgresql_server = _store.postgresql_server
dsn = _store.dsn

#: The password of the server that asks for one.
PASSWORD = "hunter2-durable-secret"
_password_server_process = factories.postgresql_proc(
    port=None, password=PASSWORD, postgres_options="-c fsync=off -c synchronous_commit=off")


@pytest.fixture(scope="session")
def password_server(request: pytest.FixtureRequest, postgresql_server: Any,
                    tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A running server whose user must give :data:`PASSWORD` (``.user``, ``.port``, ``.password``).

    Started with the first server's pg_ctl, through a wrapper that lets the user the server runs as
    read the password file pytest-postgresql hands initdb (it is the test process's, mode 0600).
    """
    option = request.config.option
    inner = option.postgresql_exec
    wrapper = tmp_path_factory.mktemp("pg_ctl_password") / "pg_ctl"
    wrapper.write_text(_READABLE_PWFILE.format(python=sys.executable, inner=inner))
    wrapper.chmod(0o700)
    option.postgresql_exec = str(wrapper)
    try:
        return request.getfixturevalue("_password_server_process")
    finally:
        option.postgresql_exec = inner


_READABLE_PWFILE = """#!{python}
import os, re, sys
for argument in sys.argv[1:]:
    for path in re.findall(r"--pwfile=(\\S+)", argument):
        os.chmod(path, 0o644)
os.execv({inner!r}, [{inner!r}, *sys.argv[1:]])
"""


MAKE_RUNS = Path(__file__).with_name("make_runs.py")


def _make_runs(url: str, runs: list[tuple[str, dict[str, Any]]], *, version: str | None = None,
               ledger: Path | None = None) -> None:
    from agentkit_durable._versions import current_version

    version = current_version() if version is None else version  # this installation's, unless said
    env = {**os.environ, "LEDGER": str(ledger)} if ledger is not None else dict(os.environ)
    done = subprocess.run([sys.executable, str(MAKE_RUNS), url, version, json.dumps(runs)], capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="session")
def make_runs() -> Any:
    """``make_runs(url, [(run_id, spec), ...], version=..., ledger=...)``: leave those runs (of this installation's
    application version unless ``version`` says another) in the database at
    ``url``, as processes running them would (see make_runs.py): the finished ones finished, the others pending."""
    return _make_runs


@pytest.fixture
def system_db(postgresql_database: Any) -> str:
    """A ``postgresql://`` URL of a fresh, empty database for DBOS's system tables, dropped after the test."""
    info = postgresql_database.info
    return f"postgresql://{info.user}@{info.host}:{info.port}/{info.dbname}"
