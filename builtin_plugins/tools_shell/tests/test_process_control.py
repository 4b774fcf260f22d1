"""Timeouts, aborts and stragglers: the whole process tree goes, the outcome says why."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path

from agentkit.plugin_api import CancelToken

# The grandchild outlives its parent by this much before it writes the marker.
_GRANDCHILD_DELAY_S = 1.0


def _wait_for(path: Path, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if path.exists():
            return True
        time.sleep(0.05)
    return path.exists()


def _grandchild_then_hang(marker: Path) -> str:
    return f"(sleep {_GRANDCHILD_DELAY_S}; touch '{marker}') & sleep 60"


def test_the_marker_test_can_see_a_surviving_grandchild(run, tmp_path):
    """Control: with its background kept, the grandchild does write its marker."""
    marker = tmp_path / "marker"
    command = f"(sleep 0.2; touch '{marker}') >/dev/null 2>&1 &"
    result = run("execute", {"command": command, "keep_background": True})
    assert result.ok
    assert _wait_for(marker, 10)


def test_a_background_grandchild_is_killed_when_the_command_exits(run, tmp_path):
    marker = tmp_path / "marker"
    result = run("execute", {"command": f"(sleep 0.2; touch '{marker}') >/dev/null 2>&1 &"})
    assert result.ok
    assert "left_running" not in result.data
    assert not _wait_for(marker, 1.5)


def test_a_timeout_kills_the_grandchild_too(run, tmp_path):
    marker = tmp_path / "marker"
    result = run("execute", {"command": _grandchild_then_hang(marker), "timeout_s": 0.3})
    assert not result.ok
    assert result.error == "timeout"
    assert result.data["timed_out"] and not result.data["aborted"]
    assert result.data["exit_code"] == 137
    assert not _wait_for(marker, _GRANDCHILD_DELAY_S * 3)


def test_an_abort_kills_the_grandchild_too(run, tmp_path):
    marker = tmp_path / "marker"
    cancel = CancelToken()
    started = tmp_path / "started"
    command = f"touch '{started}'; " + _grandchild_then_hang(marker)

    def abort_once_started() -> None:
        _wait_for(started, 30)
        cancel.cancel()

    threading.Thread(target=abort_once_started, daemon=True).start()
    result = run("execute", {"command": command}, cancel=cancel)
    assert not result.ok
    assert result.error == "aborted"
    assert result.data["aborted"] and not result.data["timed_out"]
    assert not _wait_for(marker, _GRANDCHILD_DELAY_S * 3)


def test_run_command_kills_its_tree_on_timeout(run, tmp_path):
    marker = tmp_path / "marker"
    argv = ["sh", "-c", _grandchild_then_hang(marker)]
    result = run("run_command", {"argv": argv, "timeout_s": 0.3})
    assert result.error == "timeout"
    assert not _wait_for(marker, _GRANDCHILD_DELAY_S * 3)


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
    """The idle timer re-arms on each chunk: the ticks span longer than one idle period."""
    command = "(for i in 1 2 3 4 5 6; do sleep 0.3; echo tick$i; done) & echo started"
    result = run(
        "execute",
        {"command": command, "keep_background": True},
        options={"drain_idle_s": 1.0, "drain_max_s": 60},
    )
    assert result.ok
    assert result.data["output"].split() == ["started"] + [f"tick{i}" for i in range(1, 7)]
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
