"""Real system databases for the durable runs' tests: SQLite files in temporary folders, and PostgreSQL servers.

The PostgreSQL server is the session store's (extensions/store_postgres/tests/conftest.py: one per test
process, on a free loopback port), loaded from its file so that both suites start it the same way.
A second server, started only by the tests that need it, asks for a password (``--auth=password``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pytest_postgresql import factories

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
