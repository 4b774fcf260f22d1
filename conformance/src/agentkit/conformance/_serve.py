"""The checks server (``python -m agentkit.conformance.run --serve``), and the client ``validate`` drives it with.

Starting an interpreter, importing the suite (LibCST, jsonschema, the host)
and indexing the installed distributions for the lint cost more than checking
most plugins. The server pays for them once, then forks a child per job: each
plugin still runs in a process of its own that ends with its checks, so a
plugin that calls ``os._exit``, crashes, hangs or corrupts global state
cannot hide another plugin's result. The server never imports a plugin.

The protocol is one JSON line per job on the server's stdin,
``{"id": N, "argv": [...], "cwd": DIR, "stderr": FILE, "env": {...}, "timeout": SECONDS}``
(``argv`` as for ``run``; ``env`` set over the server's environment), and one
line back once that job's child has ended, ``{"id": N, "code": C}``, ``C`` the
exit code as :mod:`subprocess` gives it, or ``null`` when the child was killed
at its timeout. Jobs run at once, as many as the caller sends; the caller
(``validate``) sends as many as it checks at once. Forking needs POSIX:
elsewhere ``validate`` starts a process per plugin.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

#: Whether this platform can fork a checks child from a server.
AVAILABLE = hasattr(os, "fork") and hasattr(signal, "SIGCHLD")


def _warm() -> None:
    """Import everything a check imports and index the installed distributions, once for every child."""
    from agentkit.lint._distributions import installed_index

    from . import _checks, _hooks, _job, _providers, _skills, _tools  # noqa: F401  (imported for the children)

    installed_index()


@dataclass
class _Running:
    job: int
    deadline: float
    expired: bool = False


def serve() -> int:
    """Serve jobs from stdin until it closes and every child has ended (see the module docstring)."""
    _warm()
    # Ctrl-C reaches the whole process group: the children stop, each answered as ended, and
    # the caller, which stops too, closes stdin; the server must not vanish with jobs unanswered.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)  # a child's end wakes the select below
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    stdin = sys.stdin.fileno()
    running: dict[int, _Running] = {}
    pending, reading = b"", True
    while reading or running:
        deadlines = [child.deadline for child in running.values() if not child.expired]
        wait = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
        ready, _, _ = select.select([stdin, wake_read] if reading else [wake_read], [], [], wait)
        if wake_read in ready:
            os.read(wake_read, 4096)
        if stdin in ready:
            chunk = os.read(stdin, 65536)
            reading = bool(chunk)
            *lines, pending = (pending + chunk).split(b"\n")
            for line in filter(None, (line.strip() for line in lines)):
                job = json.loads(line)
                pid = _fork(job, (wake_read, wake_write))
                running[pid] = _Running(job["id"], time.monotonic() + float(job["timeout"]))
        _reap(running)
        now = time.monotonic()
        for pid, child in running.items():
            if not child.expired and now >= child.deadline:
                child.expired = True
                os.kill(pid, signal.SIGKILL)  # not reaped yet, so the pid is still this child's
    return 0


def _reap(running: dict[int, _Running]) -> None:
    """Answer for every child that has ended."""
    while running:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            return
        child = running.pop(pid, None)
        if child is not None:
            code = None if child.expired else os.waitstatus_to_exitcode(status)
            sys.stdout.write(json.dumps({"id": child.job, "code": code}) + "\n")
            sys.stdout.flush()


def _fork(job: dict[str, Any], wake: tuple[int, int]) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for fd in wake:
            os.close(fd)
        _run_child(job)  # never returns
    return pid


def _run_child(job: dict[str, Any]) -> None:
    """Run one job in this forked child, then end it with the job's exit code."""
    from ._job import perform

    code = 1
    try:
        os.chdir(job["cwd"])
        null = os.open(os.devnull, os.O_RDWR)
        err = os.open(job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        for fd, target in ((0, null), (1, null), (2, err)):
            os.dup2(target, fd)
        os.close(null)
        os.close(err)
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115  (the server's buffer may hold later jobs)
        os.environ.update(job["env"])
        code = perform(job["argv"])
    except SystemExit as exc:  # the plugin (or argparse) ended the interpreter: keep its code, as Python would
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            # A plugin may have closed or replaced it; the exit code is what counts.
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


class Server:
    """A running checks server, seen from ``validate``: jobs are sent from any thread, and answered."""

    def __init__(self, path: str | None) -> None:
        # An empty working directory: ``python -m`` puts it first on sys.path, where the
        # caller's files could shadow a module.
        self._home = tempfile.TemporaryDirectory(prefix="agentkit-validate-server-")
        command = [sys.executable, "-m", "agentkit.conformance.run", "--serve", *(["--path", path] if path else [])]
        self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True, cwd=self._home.name)
        self._lock = threading.Lock()
        self._waiting: dict[int, Future[int | None]] = {}
        self._ids = itertools.count()
        self._gone = False
        self._reader = threading.Thread(target=self._read_replies, name="agentkit-validate-server", daemon=True)
        self._reader.start()

    def _read_replies(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            reply = json.loads(line)
            with self._lock:
                answered = self._waiting.pop(reply["id"])
            answered.set_result(reply["code"])
        with self._lock:
            self._gone = True
            unanswered, self._waiting = list(self._waiting.values()), {}
        for waiting in unanswered:
            waiting.set_exception(ServerGone())

    def run(self, argv: list[str], cwd: str, stderr: str, timeout: float,
            env: Mapping[str, str]) -> tuple[bool, int | None]:
        """``(served, exit code)`` of the job; ``served`` is false when the server is gone."""
        answer: Future[int | None] = Future()
        with self._lock:
            if self._gone:
                return False, None
            job = next(self._ids)
            self._waiting[job] = answer
            try:
                assert self._process.stdin is not None
                self._process.stdin.write(json.dumps({"id": job, "argv": argv, "cwd": cwd, "stderr": stderr,
                                                      "env": dict(env), "timeout": timeout}) + "\n")
                self._process.stdin.flush()
            except OSError:
                del self._waiting[job]
                return False, None
        try:
            return True, answer.result()
        except ServerGone:
            return False, None

    def close(self) -> None:
        """Let the server finish and end; kill it if it does not."""
        with self._lock, contextlib.suppress(OSError):
            if self._process.stdin is not None:
                self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._reader.join()
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._home.cleanup()


class ServerGone(Exception):
    """The checks server ended before it answered."""
