"""A command cannot outlive, outwait or out-talk the process that runs it (Linux supervisor).

The attacker is the command: it stops its supervisor to stretch its timeout,
writes a fake report through ``/proc/<pid>/fd`` to change its exit code, or
simply keeps running after the agent's process is killed with SIGKILL. Each
command carries a marker variable (the ``env`` tool option), so every process
of its tree is found in /proc whatever became of its parent.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest
from agentkit_tools_shell import _tree
from shell_test_processes import carrying, kill_carrying, none_carrying

pytestmark = pytest.mark.skipif(
    not _tree.supervisor_available(), reason="needs the Linux supervisor and /proc"
)

#: A host that runs one ``execute`` call through the agent loop and the scripted provider,
#: then writes the call's result data to a file.
HOST = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from agentkit_provider_faux import Script, Turn, text, tool_call
    from agentkit.host import Agent, AgentConfig, PluginHost, allow_all
    from agentkit.plugin_api import ToolResultMessage

    root, marker, command, out = Path(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])
    arguments = {"command": command, "keep_background": sys.argv[5:] == ["keep"]}
    script = Script([Turn([tool_call("execute", arguments, id="c")]), Turn([text("done")])])
    config = AgentConfig(
        model="faux/scripted", root=root, before_tool_call=allow_all, transport=script,
        tool_options={"execute": {"env": {"TREE_MARKER": marker}}},
    )
    result = Agent(config, host=PluginHost.discover()).run_sync("run it")
    (message,) = [m for m in result.messages if isinstance(m, ToolResultMessage)]
    out.write_text(message.text)
    """
)


@pytest.fixture
def marker():
    value = f"TREE_MARKER={uuid.uuid4().hex}"
    yield value
    kill_carrying(value)


def _options(marker: str) -> dict[str, dict[str, str]]:
    return {"env": {"TREE_MARKER": marker.partition("=")[2]}}


def _start_host(
    tmp_path: Path, marker: str, command: str, *, keep: bool = False
) -> tuple[subprocess.Popen[bytes], Path]:
    pytest.importorskip("agentkit.host")
    pytest.importorskip("agentkit_provider_faux")
    script, out = tmp_path / "host.py", tmp_path / "result.json"
    script.write_text(HOST)
    host = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path), marker.partition("=")[2], command, str(out)]
        + (["keep"] if keep else []),
        stdin=subprocess.DEVNULL,
    )
    return host, out


def _wait_for(path: Path, within_s: float = 60.0) -> bool:
    end = time.monotonic() + within_s
    while not path.exists() and time.monotonic() < end:
        time.sleep(0.05)
    return path.exists()


def test_the_tree_dies_with_a_host_killed_by_sigkill(tmp_path, marker):
    host, _ = _start_host(tmp_path, marker, "sleep 30 & touch started; sleep 30")
    try:
        assert _wait_for(tmp_path / "started"), "the command never started"
        assert len(carrying(marker)) >= 3  # supervisor, shell or its exec'd sleep, background sleep
    finally:
        host.kill()
        host.wait()
    assert none_carrying(marker), f"still running after the host died: {carrying(marker)}"


def test_kept_background_processes_end_when_the_host_exits(tmp_path, marker):
    """``keep_background`` keeps a server for the rest of the agent's life, not beyond it."""
    host, out = _start_host(tmp_path, marker, "sleep 1000.375 >/dev/null 2>&1 & echo $!", keep=True)
    try:
        assert host.wait(60) == 0
    finally:
        host.kill()
    result = json.loads(out.read_text())
    (pid,) = result["data"]["left_running"]
    assert str(pid) in result["data"]["output"]
    assert none_carrying(marker), f"still running after the host exited: {carrying(marker)}"


def test_a_stopped_supervisor_does_not_stretch_the_timeout(run, marker):
    results = []
    call = threading.Thread(
        target=lambda: results.append(
            run(
                "execute",
                {"command": "kill -STOP $PPID; sleep 30", "timeout_s": 1},
                options=_options(marker),
            )
        ),
        daemon=True,
    )
    call.start()
    call.join(10.0)  # generous: the call itself takes about one second
    assert results, "the call outlived its 1 s timeout by far"
    (result,) = results
    assert result.error == "timeout" and result.data["timed_out"]
    assert none_carrying(marker)


def test_a_stopped_supervisor_does_not_hang_a_call_without_timeout(run, marker):
    results = []
    call = threading.Thread(
        target=lambda: results.append(
            run("execute", {"command": "kill -STOP $PPID; exit 7"}, options=_options(marker))
        ),
        daemon=True,
    )
    call.start()
    call.join(10.0)
    assert results, "the call never ended"
    assert results[0].data["exit_code"] == 7


# Append only (>>), and only to pipes and sockets: the attack must not truncate a real file.
_FORGE = (
    'for fd in /proc/{pid}/fd/*; do case "$(readlink "$fd")" in pipe:*|socket:*) '
    """printf '{{"exit_code": 0}}' >> "$fd";; esac; done 2>/dev/null; exit 7"""
)


def test_a_fake_report_through_the_supervisors_fds_does_not_change_the_exit_code(run, marker):
    result = run("execute", {"command": _FORGE.format(pid="$PPID")}, options=_options(marker))
    assert result.data["exit_code"] == 7, result.data


def test_a_fake_report_through_the_hosts_fds_does_not_change_the_exit_code(tmp_path, marker):
    """The host's end of the report channel is as reachable: the host is ``$PPID``'s parent."""
    host_pid = "$(sed 's/.*) //' /proc/$PPID/stat | cut -d' ' -f2)"
    host, out = _start_host(tmp_path, marker, _FORGE.format(pid=host_pid))
    try:
        assert host.wait(60) == 0
    finally:
        host.kill()
    result = json.loads(out.read_text())
    assert result["data"]["exit_code"] == 7, result


def test_the_marker_finds_the_tree(run, marker):
    """Control: the marker reaches the processes these tests look for."""
    result = run(
        "execute",
        {"command": "sleep 1000.125 >/dev/null 2>&1 & echo $!", "keep_background": True},
        options=_options(marker),
    )
    pid = int(result.data["output"].split()[-1])
    try:
        assert pid in carrying(marker)
    finally:
        os.kill(pid, signal.SIGKILL)
