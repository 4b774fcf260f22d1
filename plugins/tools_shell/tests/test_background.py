"""Background processes after a normal exit: killed by default, kept and reported on request.

``sleep 1000 &`` must not outlive the call, nor a descendant that left the
process group with ``setsid`` (Linux, where a supervisor process is a child
subreaper). ``keep_background`` leaves them running on purpose, and the result
names the pids left behind; these tests kill whatever they kept.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys

import pytest
from agentkit_tools_shell import _tree
from shell_test_processes import alive, gone

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads process states from /proc"
)
needs_setsid = pytest.mark.skipif(
    shutil.which("setsid") is None or not _tree.supervisor_available(),
    reason="needs the setsid program and the Linux supervisor",
)

# `sleep` under a name no other test uses, so a stray one is easy to recognise.
SLEEP = "sleep 1000.5"






@pytest.fixture
def kill_afterwards():
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _pid(output: str) -> int:
    return int(output.split()[-1])


@linux_only
def test_a_background_sleep_does_not_outlive_the_call(run, kill_afterwards):
    result = run("execute", {"command": f"{SLEEP} >/dev/null 2>&1 & echo $!"})
    pid = _pid(result.data["output"])
    kill_afterwards.append(pid)
    assert result.ok and result.data["exit_code"] == 0
    assert gone(pid)


@linux_only
@needs_setsid
def test_a_background_process_that_calls_setsid_is_killed_too(run, kill_afterwards):
    result = run("execute", {"command": f"setsid {SLEEP} >/dev/null 2>&1 & echo $!"})
    pid = _pid(result.data["output"])
    kill_afterwards.append(pid)
    assert os.getsid(pid) == pid if alive(pid) else True  # it did leave the session
    assert gone(pid)


@linux_only
@needs_setsid
def test_a_daemon_that_double_forks_into_its_own_session_is_killed(run, kill_afterwards, tmp_path):
    """Its parent exits at once: the orphan is re-parented to the supervisor, not to init."""
    command = (
        f"(setsid sh -c 'echo $$ > daemon.pid; exec {SLEEP}' >/dev/null 2>&1 &); "
        "while [ ! -s daemon.pid ]; do sleep 0.01; done; cat daemon.pid"
    )
    result = run("execute", {"command": command, "timeout_s": 60})
    pid = _pid(result.data["output"])
    kill_afterwards.append(pid)
    assert gone(pid)


@linux_only
@needs_setsid
@pytest.mark.parametrize("keep", [False, True])
def test_a_command_that_kills_its_supervisor_still_loses_its_setsid_descendants(
    run, kill_afterwards, tmp_path, keep
):
    """Without the subreaper the orphan goes to init; the call still finds it and ends or lists it."""
    command = (
        f"setsid {SLEEP} >/dev/null 2>&1 & echo $! > escaped.pid; "
        "while [ ! -s escaped.pid ]; do sleep 0.01; done; kill -9 $PPID; sleep 1000.25"
    )
    result = run("execute", {"command": command, "keep_background": keep})
    pid = int((tmp_path / "escaped.pid").read_text())
    kill_afterwards.append(pid)
    assert "killed its supervisor" in result.data["output"]
    if keep:
        kill_afterwards.extend(result.data["left_running"])  # the shell's own sleep too
        assert pid in result.data["left_running"] and alive(pid)
    else:
        assert gone(pid)


@linux_only
def test_run_command_kills_the_background_of_the_program_it_ran(run, kill_afterwards):
    result = run("run_command", {"argv": ["sh", "-c", f"{SLEEP} >/dev/null 2>&1 & echo $!"]})
    pid = _pid(result.data["output"])
    kill_afterwards.append(pid)
    assert gone(pid)


@linux_only
def test_keep_background_leaves_the_server_running_and_reports_its_pid(run, kill_afterwards):
    command = f"{SLEEP} >/dev/null 2>&1 & echo $!"
    result = run("execute", {"command": command, "keep_background": True})
    pid = _pid(result.data["output"])
    kill_afterwards.append(pid)
    assert result.ok
    assert result.data["left_running"] == [pid]
    assert alive(pid)


@linux_only
@needs_setsid
def test_keep_background_reports_a_process_in_its_own_session_too(run, kill_afterwards):
    command = f"setsid {SLEEP} >/dev/null 2>&1 & {SLEEP} >/dev/null 2>&1 & echo $!"
    result = run("execute", {"command": command, "keep_background": True})
    kept = result.data["left_running"]
    kill_afterwards.extend(kept)
    assert len(kept) == 2 and _pid(result.data["output"]) in kept
    assert all(alive(pid) for pid in kept)


@linux_only
def test_without_the_supervisor_the_process_group_is_still_killed(
    run, kill_afterwards, monkeypatch
):
    """The path macOS takes, and Linux where no Python can be started for the supervisor."""
    monkeypatch.setattr(_tree, "supervisor_available", lambda: False)
    result = run("execute", {"command": f"{SLEEP} >/dev/null 2>&1 & echo $!"})
    pid = _pid(result.data["output"])
    kill_afterwards.append(pid)
    assert gone(pid)
    kept = run(
        "execute", {"command": f"{SLEEP} >/dev/null 2>&1 & echo $!", "keep_background": True}
    )
    pid = _pid(kept.data["output"])
    kill_afterwards.append(pid)
    assert kept.data["left_running"] == [pid] and alive(pid)


@linux_only
def test_a_python_that_cannot_be_started_falls_back_to_the_process_group(
    run, kill_afterwards, monkeypatch, tmp_path
):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    result = run("execute", {"command": f"{SLEEP} >/dev/null 2>&1 & echo $!"})
    pid = _pid(result.data["output"])
    kill_afterwards.append(pid)
    assert result.ok and gone(pid)


def test_keep_background_must_be_a_boolean(run):
    from agentkit.plugin_api import ToolError

    with pytest.raises(ToolError) as caught:
        run("execute", {"command": "true", "keep_background": "yes"})
    assert caught.value.error == "invalid_arguments"
    assert "keep_background" in caught.value.detail
