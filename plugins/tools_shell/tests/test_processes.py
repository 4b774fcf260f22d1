"""execute and run_command as the model uses them: shells, exit codes, working directory."""

from __future__ import annotations

import os
import stat

import pytest

from agentkit.plugin_api import ToolError


def test_run_command_does_not_go_through_a_shell(run):
    result = run("run_command", {"argv": ["echo", "$HOME; echo injected", "*"]})
    assert result.ok
    assert result.data["output"] == "$HOME; echo injected *\n"


def test_execute_runs_bash_even_when_shell_names_something_else(run, monkeypatch):
    monkeypatch.setenv("SHELL", "/bin/false")
    result = run(
        "execute", {"command": 'echo "bash=${BASH_VERSION:+yes}" && [[ 1 == 1 ]] && echo ok'}
    )
    assert result.ok, result
    assert result.data == {
        "exit_code": 0,
        "output": "bash=yes\nok\n",
        "timed_out": False,
        "aborted": False,
        "truncated": False,
    }


def test_a_nonzero_exit_is_a_result_not_an_error(run):
    result = run("execute", {"command": "echo failing; exit 3"})
    assert result.ok
    assert result.data["exit_code"] == 3
    assert result.data["output"] == "failing\n"


@pytest.mark.parametrize(("signal_name", "expected"), [("KILL", 137), ("TERM", 143)])
def test_a_signal_death_reports_128_plus_the_signal_number(run, signal_name, expected):
    result = run("execute", {"command": f"kill -{signal_name} $$"})
    assert result.ok
    assert result.data["exit_code"] == expected


def test_stdout_and_stderr_are_interleaved_as_produced(run):
    result = run("execute", {"command": "echo out1; echo err1 >&2; echo out2; echo err2 >&2"})
    assert result.data["output"] == "out1\nerr1\nout2\nerr2\n"


@pytest.fixture
def stdin_with_input():
    """Our own stdin is a pipe holding a line, so an inherited stdin would be readable."""
    read_end, write_end = os.pipe()
    os.write(write_end, b"typed by someone\n")
    saved = os.dup(0)
    os.dup2(read_end, 0)
    try:
        yield
    finally:
        os.dup2(saved, 0)
        for fd in (saved, read_end, write_end):
            os.close(fd)


def test_standard_input_is_closed(run, stdin_with_input):
    result = run("execute", {"command": 'read line; echo "read=$? line=$line"', "timeout_s": 60})
    assert result.ok, result
    assert result.data["output"] == "read=1 line=\n"


def test_the_working_directory_is_the_embedders_root(run, tmp_path):
    (tmp_path / "here.txt").write_text("x")
    assert run("execute", {"command": "pwd -P"}).data["output"].strip() == str(tmp_path.resolve())
    assert run("run_command", {"argv": ["ls"]}).data["output"] == "here.txt\n"


def test_a_missing_root_is_reported_not_run_elsewhere(tools, tmp_path):
    from agentkit.plugin_api import ToolContext

    context = ToolContext(root=tmp_path / "gone")
    with pytest.raises(ToolError) as caught:
        tools["execute"].handler({"command": "pwd"}, context)
    assert caught.value.error == "invalid_root"


def test_run_command_names_a_missing_program(run):
    with pytest.raises(ToolError) as caught:
        run("run_command", {"argv": ["agentkit-no-such-program-xyz"]})
    assert caught.value.error == "command_not_found"
    assert "agentkit-no-such-program-xyz" in caught.value.detail


@pytest.mark.parametrize("bad", [0, -1, "10", True, float("nan")])
def test_timeout_must_be_a_positive_number(run, bad):
    with pytest.raises(ToolError) as caught:
        run("execute", {"command": "true", "timeout_s": bad})
    assert caught.value.error == "invalid_arguments"
    assert "timeout_s" in caught.value.detail


def test_powershell_reports_a_clear_error_where_it_is_not_installed(run, tmp_path):
    result_or_error = None
    with pytest.raises(ToolError) as caught:
        run("powershell", {"command": "Get-Date"}, options={"env": {"PATH": str(tmp_path)}})
    result_or_error = caught.value
    assert result_or_error.error == "interpreter_not_found"
    assert "PowerShell is not installed" in result_or_error.detail


def test_powershell_is_looked_up_when_called(run, tmp_path):
    """A pwsh that appears after registration is the one used: no probing at load time."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "pwsh"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do echo "[$a]"; done\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    result = run(
        "powershell",
        {"command": "Write-Output 'hi'"},
        options={"env": {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}},
    )
    assert result.ok, result
    assert result.data["output"].splitlines() == [
        "[-NoLogo]",
        "[-NoProfile]",
        "[-NonInteractive]",
        "[-Command]",
        "[Write-Output 'hi']",
    ]


def test_shell_ladder_prefers_bin_bash_then_bash_then_sh():
    from agentkit_tools_shell._shells import InterpreterNotFound, find_bash

    def which_only(*names):
        return lambda name, path: f"/opt/{name}" if name in names else None

    assert find_bash({}, which=which_only("bash", "sh"), is_file=lambda p: True) == "/bin/bash"
    no_file = lambda p: False  # noqa: E731
    assert find_bash({}, which=which_only("bash", "sh"), is_file=no_file) == "/opt/bash"
    assert find_bash({}, which=which_only("sh"), is_file=no_file) == "/opt/sh"
    with pytest.raises(InterpreterNotFound):
        find_bash({"SHELL": "/bin/zsh"}, which=which_only(), is_file=no_file)


def test_windows_ladder_skips_the_wsl_launcher_in_system32():
    from agentkit_tools_shell._shells import InterpreterNotFound, find_bash

    env = {"SystemRoot": r"C:\Windows", "PATH": "x"}
    wsl = lambda name, path: r"C:\Windows\System32\bash.exe"  # noqa: E731
    with pytest.raises(InterpreterNotFound, match="Git for Windows"):
        find_bash(env, which=wsl, is_file=lambda p: False, windows=True)
    git_bash = r"C:\Program Files\Git\bin\bash.exe"
    found = find_bash(env, which=wsl, is_file=lambda p: p == git_bash, windows=True)
    assert found == git_bash
