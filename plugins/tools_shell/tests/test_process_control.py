"""Timeouts, aborts and stragglers: the whole process tree goes, the outcome says why."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from shell_test_processes import alive, gone

from agentkit.plugin_api import CancelToken

#: A grandchild under a name no other test uses, so a stray one is easy to recognise.
_GRANDCHILD = "sleep 1000.75"






@pytest.fixture
def grandchild(tmp_path: Path):
    """``(command, pid)``: a command that starts a grandchild and then hangs, and that grandchild's pid.

    The command hangs only once the grandchild's pid is on disk, and touches ``started`` then,
    so a test that waits for ``started`` knows which process must go. Killed afterwards in any case.
    """
    pid_file, started = tmp_path / "grandchild.pid", tmp_path / "started"
    command = (f"sh -c 'echo $$ > \"{pid_file}\"; exec {_GRANDCHILD}' >/dev/null 2>&1 & "
               f"while [ ! -s '{pid_file}' ]; do sleep 0.01; done; touch '{started}'; sleep 60")
    pids: list[int] = []

    def pid() -> int:
        assert _wait_for(started, 60), "the command never started its grandchild"
        pids.append(int(pid_file.read_text()))
        return pids[-1]

    yield command, pid
    for number in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(number, signal.SIGKILL)


def _wait_for(path: Path, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if path.exists():
            return True
        time.sleep(0.05)
    return path.exists()


def test_the_liveness_check_can_see_a_surviving_background_process(run):
    """Control: with its background kept, the subshell is still running after the call."""
    result = run("execute", {"command": f"({_GRANDCHILD}) >/dev/null 2>&1 & echo $!", "keep_background": True})
    pid = int(result.data["output"].split()[-1])
    try:
        assert result.ok
        assert alive(pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_a_background_grandchild_is_killed_when_the_command_exits(run):
    result = run("execute", {"command": f"({_GRANDCHILD}) >/dev/null 2>&1 & echo $!"})
    pid = int(result.data["output"].split()[-1])
    try:
        assert result.ok
        assert "left_running" not in result.data
        assert gone(pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_a_timeout_kills_the_grandchild_too(run, grandchild):
    command, pid = grandchild
    result = run("execute", {"command": command, "timeout_s": 3})  # time enough to start the grandchild
    assert not result.ok
    assert result.error == "timeout"
    assert result.data["timed_out"] and not result.data["aborted"]
    assert result.data["exit_code"] == 137
    assert gone(pid())


def test_an_abort_kills_the_grandchild_too(run, grandchild, tmp_path):
    command, pid = grandchild
    cancel = CancelToken()
    started: list[int] = []

    def abort_once_started() -> None:
        started.append(pid())
        cancel.cancel()

    aborter = threading.Thread(target=abort_once_started, daemon=True)
    aborter.start()
    result = run("execute", {"command": command}, cancel=cancel)
    aborter.join()
    assert not result.ok
    assert result.error == "aborted"
    assert result.data["aborted"] and not result.data["timed_out"]
    assert gone(started[0])


def test_run_command_kills_its_tree_on_timeout(run, grandchild):
    command, pid = grandchild
    result = run("run_command", {"argv": ["sh", "-c", command], "timeout_s": 3})
    assert result.error == "timeout"
    assert gone(pid())


class _CancelWhenTheTimeoutExpires(CancelToken):
    """Cancels itself while the handler waits past its deadline: both causes hold."""

    def __init__(self, after_s: float) -> None:
        super().__init__()
        self._after_s = after_s

    def wait(self, timeout: float | None = None) -> bool:
        if not self.cancelled:
            time.sleep(self._after_s)
            self.cancel()
        return True


def test_abort_takes_precedence_over_timeout(run):
    cancel = _CancelWhenTheTimeoutExpires(after_s=0.5)
    result = run("execute", {"command": "sleep 60", "timeout_s": 0.2}, cancel=cancel)
    assert result.error == "aborted"
    assert result.data["aborted"] and not result.data["timed_out"]


def test_an_abort_before_the_start_runs_nothing(run, tmp_path):
    cancel = CancelToken()
    cancel.cancel()
    result = run("execute", {"command": f"touch '{tmp_path / 'ran'}'"}, cancel=cancel)
    assert result.error == "aborted"
    assert not (tmp_path / "ran").exists()


def test_a_detached_descendants_output_is_drained_while_it_keeps_coming(run):
    """The idle timer re-arms on each chunk: the ticks span longer than one idle period.

    A tick comes every 0.2 s and the idle period is 1.5 s: a loaded machine would have to stall
    the loop for over a second between two ticks to cut the output.
    """
    command = "(for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.2; echo tick$i; done) & echo started"
    result = run(
        "execute",
        {"command": command, "keep_background": True},
        options={"drain_idle_s": 1.5, "drain_max_s": 60},
    )
    assert result.ok
    assert result.data["output"].split() == ["started"] + [f"tick{i}" for i in range(1, 11)]
    assert not result.metadata["drain_cut"]


def test_a_descendant_holding_the_pipe_is_cut_after_the_drain_bound(run):
    command = "(sleep 30; echo late) & echo early"
    result = run(
        "execute",
        {"command": command, "keep_background": True},
        options={"drain_idle_s": 0.3, "drain_max_s": 0.5},
    )
    for pid in result.data["left_running"] or ():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert result.ok
    output = result.data["output"]
    assert output.startswith("early\n")
    assert "late" not in output
    assert "a background process still held the output pipe" in output
    assert result.metadata["drain_cut"]
