"""A real PostgreSQL server for the tests, through pytest-postgresql.

One server per test process (per xdist worker), in a temporary directory, on a
free loopback port, stopped at the end of the run; each test gets a fresh
database on it. The server binaries come from the machine: without them the
tests fail and say what to install (``make test`` says so too).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pytest_postgresql import factories

INSTALL = ("PostgreSQL's server programs (initdb, pg_ctl) were not found on PATH nor by 'pg_config --bindir': "
           "install PostgreSQL 14 or newer (Debian/Ubuntu: apt install postgresql; macOS: brew install "
           "postgresql; Fedora: dnf install postgresql-server) or put its bin directory on PATH")

# A throwaway server: commits need not reach the disk (the tests are about locking, not power loss).
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
    """A pg_ctl that drops root for ``nobody``: PostgreSQL will not run as root."""
    try:
        pwd.getpwnam("nobody")
    except KeyError:
        pytest.fail("the tests run as root and PostgreSQL refuses root, but there is no user 'nobody' to run "
                    "it as: run the tests as an ordinary user")
    wrapper = folder / "pg_ctl"
    helper = Path(__file__).with_name("pg_ctl_unprivileged.py")
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{helper}" "{pg_ctl}" "$@"\n')
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
def dsn(postgresql_database) -> str:
    """The connection string of a fresh, empty database, dropped after the test."""
    info = postgresql_database.info
    return f"postgresql://{info.user}@{info.host}:{info.port}/{info.dbname}"
