"""Start one command's process tree, and end it (or list what is left) afterwards.

Every command starts in a process group of its own (a new session on POSIX, a
new process group on Windows). After the command exits, the group is killed,
so ``sleep 1000 &`` does not outlive the call, unless the caller keeps the
background processes on purpose; then their pids are reported.

A descendant can leave the group with ``setsid``. On Linux the command runs
under a small supervisor process (``_supervise.py``) that is a child
subreaper: such a descendant is re-parented to it once its parent exits, so
the supervisor still finds and kills it. The supervisor also watches this
process and ends the tree when it dies, even by SIGKILL.

What the command can do to its supervisor does not weaken the call:

- timeouts and aborts are enforced here: this process kills every descendant
  of the supervisor, then the supervisor's process group, so a supervisor the
  command stopped (``kill -STOP $PPID``) cannot stretch them; a stopped
  supervisor is also continued, so a call without timeout does not hang;
- the report comes over a socket pair of which the command holds no end and
  which ``/proc/<pid>/fd`` cannot reopen (a pipe it can), so the command
  cannot forge its exit code;
- a command can kill its supervisor (``kill -9 $PPID``); then its orphans go
  to init, and this process finds them by a token the supervisor's environment
  carries (:data:`CALL_TOKEN`), which every descendant inherits unless it
  replaces its environment on purpose.

Elsewhere (macOS, Windows, or where no Python executable can be started) a
process that left the group escapes.
"""

from __future__ import annotations

import contextlib
import json
import ntpath
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

IS_WINDOWS = sys.platform == "win32"

_SUPERVISOR = Path(__file__).with_name("_supervise.py")
_POLL_S = 0.01
#: The variable naming one supervised call, so its processes are found even without the supervisor.
CALL_TOKEN = "AGENTKIT_SHELL_CALL"
# Killing a process hands its children to init: sweep until none is left, within a bound.
_SWEEP_BOUND_S = 10.0
# A report is a few dozen bytes and a list of pids; anything longer is not one.
_REPORT_LIMIT = 1 << 20
# What a tree killed on timeout or abort reports, as a shell would.
_KILLED = 128 + signal.SIGKILL

# Supervisors that stay after their call to end the kept background processes
# with this process; polled at each new call so none stays a zombie for long.
_kept_supervisors: set[subprocess.Popen[bytes]] = set()
_kept_lock = threading.Lock()


def supervisor_available() -> bool:
    """True where a descendant that left the process group is still found."""
    return sys.platform.startswith("linux") and bool(sys.executable) and _SUPERVISOR.is_file()


class ProcessTree:
    """One command and everything it starts.

    :param keep_background: after a normal exit, leave the command's
        background processes running and report their pids instead of
        killing them. Supervised, they still end when this process does.
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
        self._report: _Report | None = None
        self._killed = False
        self._token = f"{CALL_TOKEN}={uuid.uuid4().hex}"
        _forget_ended_supervisors()
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
        supervisor_end = None
        if self.supervised:
            ours, supervisor_end = socket.socketpair()
            self._report = _Report(ours)
            mode = "keep" if self.keep_background else "end"
            command = [sys.executable, "-I", "-S", str(_SUPERVISOR), str(os.getpid())]
            command += [str(supervisor_end.fileno()), mode, "--", *argv]
            pass_fds = (supervisor_end.fileno(),)
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
            if supervisor_end is not None:
                supervisor_end.close()

    def has_exited(self) -> bool:
        """True once the command exited (supervised: once its report is in); the
        process this object started is not reaped yet, so its pid, the group's
        id, cannot be reused while the group is killed."""
        if self._report is not None:
            self._resume_if_stopped()
            return self._report.poll() or self._process_exited()
        return self._process_exited()

    def _process_exited(self) -> bool:
        if IS_WINDOWS or not hasattr(os, "waitid"):
            return self.process.poll() is not None
        try:
            flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
            return os.waitid(os.P_PID, self.process.pid, flags) is not None
        except ChildProcessError:
            return True  # already reaped

    def _resume_if_stopped(self) -> None:
        # The command may stop its supervisor (kill -STOP $PPID); it would then never report.
        try:
            flags = os.WSTOPPED | os.WNOHANG
            if os.waitid(os.P_PID, self.process.pid, flags) is not None:
                os.kill(self.process.pid, signal.SIGCONT)
        except (ChildProcessError, ProcessLookupError):
            pass  # gone: the report's end of file says so

    def terminate(self) -> None:
        """Kill the whole tree now (timeout or abort), whatever state the supervisor is in."""
        self._killed = True
        if self.supervised:
            # While the supervisor lives, the orphans of the killed go to it: all are found.
            _kill_descendants_of(self.process.pid)
        kill_tree(self.process)

    def finish(self) -> tuple[int, list[int] | None]:
        """After the command exited or the tree was killed: end or list its background processes.

        :returns: the exit code (128 + N for a death by signal N) and, when
            background processes are kept, the pids left running (``None``
            where they cannot be listed).
        :raises OSError: the supervised command could not be started.
        """
        if self._report is None:
            return self._finish_unsupervised()
        report = self._report.read(until=self._process_exited)
        self._report = None
        if "spawn_error" in report:
            self.process.wait()
            number, message = report["spawn_error"]
            raise OSError(number, message)
        if self._killed or not self.keep_background:
            kill_tree(self.process)  # a backstop: the supervisor ended the tree
            self.process.wait()
        elif "exit_code" in report:
            # It stays to end the kept processes when this process ends.
            with _kept_lock:
                _kept_supervisors.add(self.process)
        else:
            with contextlib.suppress(OSError):
                self.process.kill()  # only the supervisor: what the command kept stays
            self.process.wait()
        if self._killed:
            return _KILLED, self._sweep(kill=True)
        if "exit_code" in report:
            return report["exit_code"], report.get("left_running")
        self.supervisor_lost = True
        exit_code = _exit_code(self.process.wait())
        return exit_code, self._sweep(kill=not self.keep_background)

    def _finish_unsupervised(self) -> tuple[int, list[int] | None]:
        left_running: list[int] | None = None
        if not self.keep_background:
            if not IS_WINDOWS:
                kill_tree(self.process)
        elif not IS_WINDOWS:
            left_running = _group_members(self.process.pid)
        return _exit_code(self.process.wait()), left_running

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

    def _close_report(self) -> None:
        if self._report is not None:
            self._report.close()
            self._report = None


class _Report:
    """The supervisor's one line, read as it arrives, over a socket only the two ends hold."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        self._sock = sock
        self._data = bytearray()
        self._complete = False

    def poll(self) -> bool:
        """Read what has arrived; true once the line is whole or the supervisor is gone."""
        while not self._complete:
            try:
                chunk = self._sock.recv(64 * 1024)
            except BlockingIOError:
                return False
            except OSError:
                chunk = b""  # reset: the supervisor died
            self._data += chunk
            # The end of the line, not of the file: a process the embedder forked meanwhile
            # may hold a copy of the supervisor's end.
            if not chunk or b"\n" in chunk or len(self._data) > _REPORT_LIMIT:
                self._complete = True
                self.close()
        return True

    def read(self, *, until: Callable[[], bool]) -> dict[str, Any]:
        """The whole report, or what came before ``until()`` (the supervisor exited) held.

        ``{}`` when the supervisor died before writing one.
        """
        while not self.poll() and not until():
            select.select([self._sock], [], [], _POLL_S)
        self.poll()  # what it wrote just before it exited
        self.close()
        try:
            report = json.loads(self._data)
        except ValueError:
            return {}
        return report if isinstance(report, dict) else {}

    def close(self) -> None:
        self._sock.close()


def _forget_ended_supervisors() -> None:
    with _kept_lock:
        for process in [p for p in _kept_supervisors if p.poll() is not None]:
            _kept_supervisors.discard(process)


def _kill_descendants_of(root: int) -> None:
    """SIGKILL every live descendant of ``root`` (not ``root``), until none is left or a bound passes."""
    deadline = time.monotonic() + _SWEEP_BOUND_S
    while time.monotonic() < deadline:
        live = _live_descendants(root)
        if not live:
            return
        for pid in live:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(_POLL_S)


def _processes() -> Iterator[tuple[int, list[bytes]]]:
    """Each process's pid and the fields of its ``/proc/<pid>/stat`` after the command name
    (state, parent, process group, ...); one that ends meanwhile is left out."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            data = Path("/proc", name, "stat").read_bytes()
        except OSError:
            continue  # gone meanwhile
        # The command name is in parentheses and may itself hold spaces or ")".
        yield int(name), data[data.rindex(b")") + 2 :].split()


def _live_descendants(root: int) -> list[int]:
    children: dict[int, list[tuple[int, bytes]]] = {}
    for pid, fields in _processes():
        children.setdefault(int(fields[1]), []).append((pid, fields[0]))
    live, pending = [], [root]
    while pending:
        for pid, state in children.get(pending.pop(), ()):
            pending.append(pid)
            if state != b"Z":
                live.append(pid)
    return live


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
        return sorted(pid for pid, fields in _processes() if int(fields[2]) == group and fields[0] != b"Z")
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
