"""The supervisor of one command on Linux: it runs as its own small process.

Run as ``python -I -S _supervise.py REPORT_FD end|keep -- ARGV...`` (a script,
never imported: it must start fast and see nothing of the plugin). It marks
itself a child subreaper (``PR_SET_CHILD_SUBREAPER``), so every descendant
orphaned by its parent, including one that called ``setsid`` to leave the
process group, is re-parented to the supervisor instead of to init, and can
be found and killed. Setting that flag on the host process instead would
hand it every orphan of every thread of a long-lived application.

When the command exits, ``end`` kills every descendant still running and
``keep`` lists them. On SIGTERM (the tool's timeout or abort) it kills the
command and every descendant. Either way it writes one JSON object to
REPORT_FD: ``{"exit_code": N}`` (128 + the signal number for a signal death),
plus ``"left_running": [pid, ...]`` in ``keep`` mode, or
``{"spawn_error": [errno, strerror]}`` when the command could not start.
"""

import contextlib
import json
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
# The command is SIGKILLed on timeout or abort: report it as a shell would.
KILLED = 128 + signal.SIGKILL
# Processes in uninterruptible sleep ignore even SIGKILL for a while; never hang on them.
END_BOUND_S = 10.0


class _Stop(Exception):
    """SIGTERM arrived: end everything now."""


def _stop(signum, frame):
    raise _Stop


def main(argv):
    report_fd, mode, separator, command = int(argv[1]), argv[2], argv[3], argv[4:]
    if separator != "--" or mode not in ("end", "keep") or not command:
        raise SystemExit("usage: _supervise.py REPORT_FD end|keep -- ARGV...")
    signal.signal(signal.SIGTERM, _stop)
    os.set_inheritable(report_fd, False)  # the command must not hold the report open
    report: dict[str, object] = {}
    try:
        _become_subreaper()
        try:
            pid = os.posix_spawnp(
                command[0],
                command,
                os.environ,
                # Python ignores these; a command must start with the defaults.
                setsigdef=(signal.SIGPIPE, signal.SIGXFSZ),
            )
        except OSError as exc:
            report["spawn_error"] = [exc.errno, exc.strerror]
            return
        report["exit_code"] = _wait_for(pid)
        if mode == "keep":
            report["left_running"] = _running_descendants()
        else:
            _end_descendants()
    except _Stop:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        _end_descendants()
        report["exit_code"] = KILLED
    finally:
        with os.fdopen(report_fd, "w") as out:
            json.dump(report, out)


def _become_subreaper():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _wait_for(pid):
    """Reap children until ``pid`` exits; its exit code as a shell reports it."""
    while True:
        reaped, status = os.waitpid(-1, 0)
        if reaped == pid:
            code = os.waitstatus_to_exitcode(status)
            return 128 - code if code < 0 else code


def _descendants():
    """``(pid, state)`` of every live or zombie descendant of this process."""
    children: dict[int, list[tuple[int, bytes]]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                data = stat.read()
        except OSError:
            continue  # gone meanwhile
        # The command name is in parentheses and may itself hold spaces or ")".
        fields = data[data.rindex(b")") + 2 :].split()
        children.setdefault(int(fields[1]), []).append((int(name), fields[0]))
    found, pending = [], [os.getpid()]
    while pending:
        for child in children.get(pending.pop(), ()):
            found.append(child)
            pending.append(child[0])
    return found


def _reap():
    """Reap every exited child; false when no child is left."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        return False
    return True


def _running_descendants():
    _reap()
    return sorted(pid for pid, state in _descendants() if state != b"Z")


def _end_descendants():
    # Killed parents hand their children to us, so kill, reap and look again
    # until no child is left.
    deadline = time.monotonic() + END_BOUND_S
    while time.monotonic() < deadline:
        for pid, state in _descendants():
            if state != b"Z":
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        if not _reap():
            return
        time.sleep(0.005)


if __name__ == "__main__":
    main(sys.argv)
