"""Start one command's process tree, and end it (or list what is left) afterwards.

Every command starts in a process group of its own (a new session on POSIX, a
new process group on Windows). After the command exits, the group is killed,
so ``sleep 1000 &`` does not outlive the call, unless the caller keeps the
background processes on purpose; then their pids are reported.

A descendant can leave the group with ``setsid``. On Linux the command runs
under a small supervisor process (``_supervise.py``) that is a child
subreaper: such a descendant is re-parented to it once its parent exits, so
the supervisor still finds and kills it. A command can kill its supervisor
(``kill -9 $PPID``); then its orphans go to init, and this process finds them
by a token the supervisor's environment carries (:data:`CALL_TOKEN`), which
every descendant inherits unless it replaces its environment on purpose.
Elsewhere (macOS, Windows, or where no Python executable can be started) a
process that left the group escapes.
"""

from __future__ import annotations

import contextlib
import json
import ntpath
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

IS_WINDOWS = sys.platform == "win32"

_SUPERVISOR = Path(__file__).with_name("_supervise.py")
# How long the supervisor has to end the tree after SIGTERM before the group
# is killed without it.
_SUPERVISOR_GRACE_S = 15.0
_POLL_S = 0.01
#: The variable naming one supervised call, so its processes are found even without the supervisor.
CALL_TOKEN = "AGENTKIT_SHELL_CALL"
# Killing a process hands its children to init: sweep until none is left, within a bound.
_SWEEP_BOUND_S = 10.0


def supervisor_available() -> bool:
    """True where a descendant that left the process group is still found."""
    return sys.platform.startswith("linux") and bool(sys.executable) and _SUPERVISOR.is_file()


class ProcessTree:
    """One command and everything it starts.

    :param keep_background: after a normal exit, leave the command's
        background processes running and report their pids instead of
        killing them.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        keep_background: bool,
    ) -> None:
        self.keep_background = keep_background
        self.supervised = supervisor_available()
        #: True when the command killed its supervisor before it could end or list the tree.
        self.supervisor_lost = False
        self._report: int | None = None
        self._token = f"{CALL_TOKEN}={uuid.uuid4().hex}"
        if self.supervised:
            try:
                self.process = self._start(argv, cwd, env)
                return
            except OSError:
                # This process's Python cannot be started (an embedding binary,
                # a removed venv): run the command without the supervisor.
                self.supervised = False
        self.process = self._start(argv, cwd, env)

    def _start(
        self, argv: Sequence[str], cwd: Path, env: Mapping[str, str]
    ) -> subprocess.Popen[bytes]:
        command = list(argv)
        pass_fds: tuple[int, ...] = ()
        report_write = None
        if self.supervised:
            self._report, report_write = os.pipe()
            mode = "keep" if self.keep_background else "end"
            command = [sys.executable, "-I", "-S", str(_SUPERVISOR), str(report_write), mode, "--"]
            command += argv
            pass_fds = (report_write,)
            env = {**env, CALL_TOKEN: self._token.partition("=")[2]}
        try:
            return subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=str(cwd),
                env=dict(env),
                bufsize=0,
                pass_fds=pass_fds,
                **_new_group_arguments(),
            )
        except BaseException:
            self._close_report()
            raise
        finally:
            if report_write is not None:
                os.close(report_write)

    def has_exited(self) -> bool:
        """True once the command (or its supervisor) exited; it is not reaped yet,
        so its pid, the group's id, cannot be reused while the group is killed."""
        if IS_WINDOWS or not hasattr(os, "waitid"):
            return self.process.poll() is not None
        try:
            flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
            return os.waitid(os.P_PID, self.process.pid, flags) is not None
        except ChildProcessError:
            return True  # already reaped

    def terminate(self) -> None:
        """Kill the whole tree now (timeout or abort)."""
        if self.supervised and not self.has_exited():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.process.pid, signal.SIGTERM)
            deadline = time.monotonic() + _SUPERVISOR_GRACE_S
            while not self.has_exited() and time.monotonic() < deadline:
                time.sleep(_POLL_S)
        kill_tree(self.process)

    def finish(self) -> tuple[int, list[int] | None]:
        """After the command exited: end or list its background processes, reap it.

        :returns: the exit code (128 + N for a death by signal N) and, when
            background processes are kept, the pids left running (``None``
            where they cannot be listed).
        :raises OSError: the supervised command could not be started.
        """
        left_running: list[int] | None = None
        if not self.keep_background:
            if not IS_WINDOWS:
                # Where supervised this is a backstop: the supervisor ended the tree.
                kill_tree(self.process)
        elif not self.supervised and not IS_WINDOWS:
            left_running = _group_members(self.process.pid)
        exit_code = _exit_code(self.process.wait())
        report = self._read_report()
        if "spawn_error" in report:
            number, message = report["spawn_error"]
            raise OSError(number, message)
        if "exit_code" in report:
            exit_code = report["exit_code"]
        if self.keep_background and self.supervised:
            left_running = report.get("left_running")
        if self.supervised and not report:
            self.supervisor_lost = True
            left_running = self._sweep(kill=not self.keep_background)
        return exit_code, left_running

    def _sweep(self, *, kill: bool) -> list[int]:
        """The processes carrying this call's token, killed unless kept (the supervisor is gone)."""
        deadline = time.monotonic() + _SWEEP_BOUND_S
        found = _carrying(self._token.encode())
        while kill and found and time.monotonic() < deadline:
            for pid in found:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(_POLL_S)
            found = _carrying(self._token.encode())
        return found

    def _read_report(self) -> dict[str, Any]:
        if self._report is None:
            return {}
        try:
            with os.fdopen(self._report, "rb") as source:
                data = source.read()
        finally:
            self._report = None
        try:
            report = json.loads(data)
        except ValueError:
            return {}  # the supervisor was killed before it could write
        return report if isinstance(report, dict) else {}

    def _close_report(self) -> None:
        if self._report is not None:
            os.close(self._report)
            self._report = None


def _carrying(token: bytes) -> list[int]:
    """Live processes whose environment holds ``token`` (``NAME=value``), from /proc."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            environ = Path("/proc", name, "environ").read_bytes()
            stat = Path("/proc", name, "stat").read_bytes()
        except OSError:
            continue  # gone meanwhile, or not ours to read
        if token in environ.split(b"\0") and stat[stat.rindex(b")") + 2 :].split()[0] != b"Z":
            found.append(int(name))
    return sorted(found)


def _exit_code(returncode: int) -> int:
    # Popen reports death by signal N as -N; shells report it as 128 + N.
    return 128 - returncode if returncode < 0 else returncode


def _new_group_arguments() -> dict[str, Any]:
    if IS_WINDOWS:
        # Windows-only constants, which typeshed hides when checking for another platform.
        flags = subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.CREATE_NO_WINDOW  # type: ignore[attr-defined]  # see above
        return {"creationflags": flags}
    # A new session is also a new process group whose id is the child's pid,
    # and it detaches the tree from our controlling terminal.
    return {"start_new_session": True}


def _group_members(group: int) -> list[int]:
    """Pids in process group ``group``, from /proc where there is one, else ``ps``."""
    if Path("/proc/self/stat").exists():
        members = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                data = Path("/proc", name, "stat").read_bytes()
            except OSError:
                continue
            state, _, pgrp = data[data.rindex(b")") + 2 :].split()[:3]
            if int(pgrp) == group and state != b"Z":
                members.append(int(name))
        return sorted(members)
    try:
        listing = subprocess.run(
            ["ps", "-A", "-o", "pid=,pgid=,stat="],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    rows = (line.split() for line in listing.splitlines())
    return sorted(
        int(row[0])
        for row in rows
        if len(row) >= 3 and row[1] == str(group) and not row[2].startswith("Z")
    )


def kill_tree(process: subprocess.Popen[bytes]) -> None:
    """Kill ``process`` and every descendant that stayed in its group."""
    if IS_WINDOWS:
        _kill_tree_windows(process)
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # the group is already gone
    except PermissionError:
        # macOS answers EPERM for a group whose leader is a zombie.
        _kill_quietly(process)


def _kill_tree_windows(process: subprocess.Popen[bytes]) -> None:
    # The absolute path: a taskkill.exe planted in the working directory or
    # on PATH must not be the one that runs.
    system_root = os.environ.get("SYSTEMROOT", r"C:\Windows")
    taskkill = ntpath.join(system_root, "System32", "taskkill.exe")
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        subprocess.run(
            [taskkill, "/F", "/T", "/PID", str(process.pid)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=30,
            check=False,
        )
    _kill_quietly(process)


def _kill_quietly(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        process.kill()
