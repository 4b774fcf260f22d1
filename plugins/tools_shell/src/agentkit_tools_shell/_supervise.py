"""The supervisor of one command on Linux: it runs as its own small process.

Run as ``python -I -S _supervise.py HOST_PID REPORT_FD end|keep -- ARGV...`` (a
script, never imported: it must start fast and see nothing of the plugin). It
marks itself a child subreaper (``PR_SET_CHILD_SUBREAPER``), so every
descendant orphaned by its parent, including one that called ``setsid`` to
leave the process group, is re-parented to the supervisor instead of to init,
and can be found and killed. Setting that flag on the host process instead
would hand it every orphan of every thread of a long-lived application.

When the command exits, ``end`` kills every descendant still running and
``keep`` lists them. Either way it writes one JSON object on one line to
REPORT_FD, a socket shared with the host only: ``{"exit_code": N}`` (128 + the signal
number for a signal death), plus ``"left_running": [pid, ...]`` in ``keep``
mode, or ``{"spawn_error": [errno, strerror]}`` when the command could not
start. A socket, not a pipe, because ``/proc/<pid>/fd/N`` reopens a pipe for
any process of the same user (the command included) but refuses a socket.

A thread watches the host (``HOST_PID``, this process's parent) through a
pidfd, so no process can fake its life: when the host dies, however it dies,
the watcher kills every descendant and the supervisor exits. In ``keep`` mode
the supervisor stays for that after the report, until the host dies or the
last kept process has ended. Timeouts and aborts are not the supervisor's
business: the host kills the tree itself, so a command that stops its
supervisor cannot stretch them.
"""

import contextlib
import json
import os
import select
import signal
import sys
import threading
import time

PR_SET_CHILD_SUBREAPER = 36
# What a tree killed because its host died reports, as a shell would.
KILLED = 128 + signal.SIGKILL
# Processes in uninterruptible sleep ignore even SIGKILL for a while; never hang on them.
END_BOUND_S = 10.0
# Where pidfds are missing (Linux before 5.3), how often to look whether the host is still the parent.
PARENT_POLL_S = 0.25
# Held by the watcher while it ends the tree: the main thread must not end the process meanwhile.
_ending = threading.Lock()


def main(argv):
    host_pid, report_fd = int(argv[1]), int(argv[2])
    mode, separator, command = argv[3], argv[4], argv[5:]
    if separator != "--" or mode not in ("end", "keep") or not command:
        raise SystemExit("usage: _supervise.py HOST_PID REPORT_FD end|keep -- ARGV...")
    os.set_inheritable(report_fd, False)  # the command must not hold the report channel
    _become_subreaper()
    threading.Thread(target=_end_all_when_the_host_dies, args=(host_pid,), daemon=True).start()
    try:
        _supervise(report_fd, mode, command)
    finally:
        # If the host died, the watcher is ending the tree (and may have reaped the command
        # under our wait): let it finish; it exits the process.
        with _ending:
            pass


def _supervise(report_fd, mode, command):
    report: dict[str, object] = {}
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
        _send(report_fd, report)
        return
    _let_go_of_the_output()
    report["exit_code"] = _wait_for(pid)
    if mode == "keep":
        report["left_running"] = _running_descendants()
    else:
        _end_descendants()
    _send(report_fd, report)
    if mode == "keep":
        _stay_while_descendants_run()


def _become_subreaper():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _end_all_when_the_host_dies(host_pid):
    _wait_for_the_end_of(host_pid)
    _ending.acquire()
    _end_descendants()
    os._exit(KILLED)


def _wait_for_the_end_of(host_pid):
    try:
        host = os.pidfd_open(host_pid)
    except OSError:
        host = None  # an old kernel, or the host is already gone
    # Opened before this check, the pidfd is the host's and not a later process with its pid.
    if os.getppid() != host_pid:
        return
    if host is not None:
        select.select([host], [], [])  # readable once the host has exited
        return
    while os.getppid() == host_pid:
        time.sleep(PARENT_POLL_S)


def _let_go_of_the_output():
    # The command holds the output pipe; the host reads it until the last holder closes it.
    # A supervisor that stays for kept processes must not be one of them.
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)


def _send(report_fd, report):
    with contextlib.suppress(OSError):  # the host is gone; the watcher ends the tree
        os.write(report_fd, json.dumps(report).encode() + b"\n")
    os.close(report_fd)


def _wait_for(pid):
    """Reap children until ``pid`` exits; its exit code as a shell reports it."""
    while True:
        reaped, status = os.waitpid(-1, 0)
        if reaped == pid:
            code = os.waitstatus_to_exitcode(status)
            return 128 - code if code < 0 else code


def _stay_while_descendants_run():
    # Every descendant is a child or the descendant of one: no child left, none left.
    with contextlib.suppress(ChildProcessError):
        while True:
            os.waitpid(-1, 0)


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
