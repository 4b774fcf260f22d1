"""The Windows and macOS branches, exercised where they can be from Linux.

The suite runs on Linux; these tests pin what the other platforms' code would
do (which program kills the tree, where PowerShell is looked for) and that
importing the plugin touches no platform-only attribute.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from agentkit_tools_shell import _tree
from agentkit_tools_shell._shells import InterpreterNotFound, find_powershell

IMPORT_AS = """
import sys
sys.platform = {platform!r}
import agentkit_tools_shell
tools = []
agentkit_tools_shell.agentkit_register_tools(register=tools.append)
print(",".join(t.name for t in tools))
"""


@pytest.mark.parametrize("platform", ["win32", "darwin", "linux"])
def test_the_plugin_imports_and_registers_the_same_tools_on_every_platform(platform):
    output = subprocess.run(
        [sys.executable, "-c", IMPORT_AS.format(platform=platform)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert output.strip() == "execute,run_command,powershell"


def test_windows_kills_the_tree_with_the_system_taskkill(monkeypatch):
    calls = []
    monkeypatch.setattr(_tree, "IS_WINDOWS", True)
    monkeypatch.setenv("SYSTEMROOT", r"D:\Win")
    monkeypatch.setattr(_tree.subprocess, "run", lambda argv, **kw: calls.append(argv))

    class Process:
        pid = 4242
        killed = False

        def kill(self):
            self.killed = True

    process = Process()
    _tree.kill_tree(process)
    assert calls == [[r"D:\Win\System32\taskkill.exe", "/F", "/T", "/PID", "4242"]]
    assert process.killed


def test_windows_falls_back_to_windows_powershell():
    env = {"SystemRoot": r"C:\Windows", "PATH": ""}
    legacy = r"C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe"
    found = find_powershell(
        env, which=lambda n, p: None, is_file=lambda p: p == legacy, windows=True
    )
    assert found == legacy
    with pytest.raises(InterpreterNotFound):
        find_powershell(env, which=lambda n, p: None, is_file=lambda p: False, windows=False)
