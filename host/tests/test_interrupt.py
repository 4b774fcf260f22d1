"""Ctrl-C, for real: SIGINT sent to a subprocess whose tool never returns.

``agentkit run`` and ``agentkit tool run`` exit 130 with one line and no
traceback, on the first press and on two quick presses; a script calling
``run_sync`` gets ``KeyboardInterrupt`` after the run ended with a well-formed
history, and exits without hanging on the stuck handler's thread.

The stuck tool is planted by a small driver that adds a plugin to what the
command discovers, then runs the real command's ``main``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from agentkit.testing import Turn, tool_call, write_script

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")

GENEROUS = 20.0  # seconds for the process to end: a hang blows through it, a slow machine does not

STUCK_PLUGIN = textwrap.dedent('''
    import os, pathlib, threading
    from agentkit.plugin_api import Tool, hookimpl

    def stuck(arguments, context):
        pathlib.Path(os.environ["STARTED_FILE"]).write_text("started")
        threading.Event().wait()  # ignores context.cancel: only abandoning it ends the run

    class StuckPlugin:
        @hookimpl
        def agentkit_register_tools(self, register):
            register(Tool("stuck", "never returns", {"type": "object"}, stuck))
''')

CLI_DRIVER = STUCK_PLUGIN + textwrap.dedent('''
    import sys
    from agentkit.host import PluginHost
    from agentkit.host.cli import main

    discover = PluginHost.discover.__func__

    def with_stuck(cls, env=None, project=None):
        host = discover(cls, env, project)
        host.register(StuckPlugin(), name="stuck")
        return host

    PluginHost.discover = classmethod(with_stuck)
    sys.exit(main(sys.argv[1:]))
''')

RUN_SYNC_SCRIPT = STUCK_PLUGIN + textwrap.dedent('''
    import json, sys
    from agentkit_provider_faux import FauxProvider, Script, Turn, text, tool_call
    from agentkit.host import Agent, AgentConfig, PluginHost
    from agentkit.plugin_api import ToolResultMessage

    class Faux:
        @hookimpl
        def agentkit_register_providers(self, register):
            register(FauxProvider())

    host = PluginHost()
    host.register(Faux(), name="faux")
    host.register(StuckPlugin(), name="stuck")
    ends = []
    agent = Agent(AgentConfig(model="faux/scripted", tools=["stuck"],
                              transport=Script([Turn([tool_call("stuck")]), Turn([text("never")])])), host=host)
    agent.subscribe(lambda event: ends.append(event.outcome) if event.type == "agent_end" else None)
    try:
        agent.run_sync("go")
        raised = False
    except KeyboardInterrupt:
        raised = True
    calls = [call.id for message in agent.history if message.role == "assistant" for call in message.tool_calls]
    answered = [m.tool_use_id for m in agent.history if isinstance(m, ToolResultMessage)]
    print(json.dumps({"raised": raised, "ends": ends, "calls": calls, "answered": answered,
                      "outcome": agent.last_result.outcome}))
''')


def start(tmp_path: Path, source: str, *args: str) -> tuple[subprocess.Popen, Path]:
    script = tmp_path / "driver.py"
    script.write_text(source, encoding="utf-8")
    started = tmp_path / "started"
    env = {**os.environ, "STARTED_FILE": str(started), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen([sys.executable, str(script), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env, cwd=tmp_path)
    return process, started


def interrupt_when_started(process: subprocess.Popen, started: Path, presses: int) -> tuple[int, str, str]:
    deadline = time.monotonic() + GENEROUS
    while not started.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            _, err = process.communicate()
            pytest.fail(f"the tool never started (exit {process.returncode}): {err}")
        time.sleep(0.02)
    return press_ctrl_c(process, presses)


def press_ctrl_c(process: subprocess.Popen, presses: int) -> tuple[int, str, str]:
    """Send ``presses`` SIGINTs and wait for the process to exit: ``(returncode, stdout, stderr)``."""
    for _ in range(presses):
        process.send_signal(signal.SIGINT)
        time.sleep(0.05)
    try:
        out, err = process.communicate(timeout=GENEROUS)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"still running {GENEROUS}s after Ctrl-C; stderr: {err}")
    return process.returncode, out, err


def script_file(tmp_path: Path) -> Path:
    return write_script(tmp_path / "turns.json", [Turn([tool_call("stuck", {})]), "never"])


@pytest.mark.parametrize("presses", [1, 2])
def test_agentkit_run_exits_130_with_one_line_on_ctrl_c(tmp_path: Path, presses: int) -> None:
    process, started = start(tmp_path, CLI_DRIVER, "run", "go", "--model", "faux/scripted",
                             "--script", str(script_file(tmp_path)))
    code, out, err = interrupt_when_started(process, started, presses)
    assert code == 130, err
    assert "Traceback" not in err and "Traceback" not in out
    assert [line for line in err.splitlines() if not line.startswith(("[tool]", "note:"))] == ["agentkit: aborted"]


@pytest.mark.parametrize("presses", [1, 2])
def test_agentkit_tool_run_exits_130_with_one_line_on_ctrl_c(tmp_path: Path, presses: int) -> None:
    process, started = start(tmp_path, CLI_DRIVER, "tool", "run", "stuck")
    code, out, err = interrupt_when_started(process, started, presses)
    assert code == 130, err
    assert "Traceback" not in err and "Traceback" not in out
    assert err.splitlines() == ["agentkit: aborted"]


@pytest.mark.parametrize("presses", [1, 2])
def test_run_sync_raises_keyboard_interrupt_after_a_well_formed_end(tmp_path: Path, presses: int) -> None:
    process, started = start(tmp_path, RUN_SYNC_SCRIPT)
    code, out, err = interrupt_when_started(process, started, presses)
    assert code == 0 and "Traceback" not in err, err
    report = json.loads(out)
    assert report["raised"] is True
    assert report["ends"] == ["aborted"] and report["outcome"] == "aborted"
    assert report["calls"] == report["answered"] == ["call_1_1"]


LINGERING_CLI_DRIVER = CLI_DRIVER.replace("sys.exit(main(sys.argv[1:]))", textwrap.dedent('''
    import atexit, time

    def linger():  # the interpreter takes a moment to exit: a press may land then
        pathlib.Path(os.environ["STARTED_FILE"] + ".exiting").write_text("exiting")
        pressed, deadline = pathlib.Path(os.environ["STARTED_FILE"] + ".pressed"), time.monotonic() + 60
        while not pressed.exists() and time.monotonic() < deadline:  # the press lands while we wait
            time.sleep(0.01)

    atexit.register(linger)
    sys.exit(main(sys.argv[1:]))
'''))


@pytest.mark.parametrize("command", ["run", "tool"])
def test_a_press_after_the_aborted_run_ended_changes_nothing(tmp_path: Path, command: str) -> None:
    args = (["run", "go", "--model", "faux/scripted", "--script", str(script_file(tmp_path))] if command == "run"
            else ["tool", "run", "stuck"])
    process, started = start(tmp_path, LINGERING_CLI_DRIVER, *args)
    exiting = Path(str(started) + ".exiting")
    deadline = time.monotonic() + GENEROUS
    while not started.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    while not exiting.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)  # the run is over and the command returned: nothing left to stop
    Path(str(started) + ".pressed").write_text("pressed")  # sent: the exiting process may go on
    out, err = process.communicate(timeout=GENEROUS)
    assert process.returncode == 130, err
    assert "Traceback" not in err and "Traceback" not in out, err
    assert [line for line in err.splitlines() if not line.startswith(("[tool]", "note:"))] == ["agentkit: aborted"]


@pytest.mark.parametrize("presses", [1, 2])
def test_agentkit_run_exits_130_with_one_line_while_a_response_streams(tmp_path: Path, presses: int) -> None:
    turns = [{"content": [{"type": "text", "text": "Counting sheep, one, two, three"}], "hang": True}]
    path = tmp_path / "turns.json"
    path.write_text(json.dumps(turns), encoding="utf-8")
    process, _ = start(tmp_path, CLI_DRIVER, "run", "go", "--model", "faux/scripted", "--script", str(path))
    assert process.stdout is not None
    first = os.read(process.stdout.fileno(), 1).decode()  # streaming now, and it will never end by itself
    returncode, out, err = press_ctrl_c(process, presses)
    assert returncode == 130, err
    assert "Counting sheep, one, two, three".startswith((first + out).strip())  # what arrived, then one newline
    assert "Traceback" not in err
    assert [line for line in err.splitlines() if not line.startswith(("[tool]", "note:"))] == ["agentkit: aborted"]
