"""A throwaway PostgreSQL server for the benchmarks: initdb and pg_ctl in a temporary folder.

``with postgres() as url:`` starts a server on a free loopback port and yields a
``postgresql://`` URL of an empty database on it; the server and its folder go
away on exit. Run as root (a container), the server runs as ``nobody``, since
PostgreSQL refuses root. The same settings as the tests' server: commits need
not reach the disk, so the figures are DBOS's and ours, not the disk's.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

SETTINGS = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
#: A server whose commits reach the disk before they return, for what costs a flush per commit.
DURABLE = "-c fsync=on -c synchronous_commit=on -c max_connections=200"


def _bindir() -> Path:
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb", path=str(Path(found).resolve().parent)):
        return Path(found).resolve().parent
    try:
        bindir = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=True,
                                timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        bindir = ""
    if bindir and (Path(bindir) / "initdb").is_file():
        return Path(bindir)
    raise SystemExit("the durable benchmarks start a PostgreSQL server: install PostgreSQL 14 or newer "
                     "(initdb and pg_ctl on PATH)")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def postgres(settings: str = SETTINGS) -> Iterator[str]:
    """A running server's URL (database ``bench``, user ``bench``); stopped and removed on exit.

    :param settings: the server's options; :data:`DURABLE` for commits that wait for the disk.
    """
    bindir = _bindir()
    folder = Path(tempfile.mkdtemp(prefix="agentkit-bench-pg-"))
    demote: Callable[[], None] | None = None
    if os.geteuid() == 0:
        user = pwd.getpwnam("nobody")
        os.chown(folder, user.pw_uid, user.pw_gid)

        def demote() -> None:
            os.setgroups([])
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)

    def call(*args: str) -> None:
        subprocess.run(args, check=True, capture_output=True, cwd="/", preexec_fn=demote, timeout=120)

    port = _free_port()
    data = folder / "data"
    try:
        call(str(bindir / "initdb"), "-D", str(data), "-U", "bench", "--auth=trust", "-E", "UTF8")
        call(str(bindir / "pg_ctl"), "start", "-w", "-D", str(data), "-l", str(folder / "log"),
             "-o", f"-p {port} -k {folder} -h 127.0.0.1 {settings}")
        try:
            call(str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "bench", "bench")
            yield f"postgresql://bench@127.0.0.1:{port}/bench"
        finally:
            call(str(bindir / "pg_ctl"), "stop", "-D", str(data), "-m", "immediate")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def fresh_database(url: str, name: str) -> str:
    """A new empty database ``name`` on the server of ``url``, as a URL (each measure gets its own)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + "/" + name
