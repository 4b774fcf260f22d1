"""`python -m agentkit.lint`: the report on stdout, exit 0 kept, 1 broken, 2 usage.

The command's ``main`` is called in this process where a test is about the report and the exit
status (the index of installed distributions is built once per process, not once per run); the
usage errors run the real ``python -m agentkit.lint`` process, whose stderr must stay one line.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agentkit.lint.__main__ import main


@pytest.fixture
def run(capsys, monkeypatch):
    """``run(*args, cwd=None)``: the command's exit status and output, as a finished process has them."""

    def run(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["python", "-m", "agentkit.lint", *args], code, out, err)

    return run


def run_process(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentkit.lint", *args], capture_output=True, text=True, timeout=600
    )


GOOD = {"good_plugin/__init__.py": "from agentkit.plugin_api import Tool\n"}
BROKEN = {"bad_plugin/__init__.py": "from agentkit.plugin_api import _tools\n"}


def test_kept_plugins_exit_zero(run, make_plugin):
    result = run(str(make_plugin(GOOD, name="good-plugin")), "pluggy")

    assert result.returncode == 0, result.stderr
    assert "Plugins: 2 kept, 0 broken." in result.stdout.splitlines()


def test_a_broken_plugin_exits_one(run, make_plugin):
    result = run(str(make_plugin(BROKEN, name="bad-plugin")))

    assert result.returncode == 1
    assert "bad-plugin 0.3.1 BROKEN" in result.stdout.splitlines()
    assert "-   bad_plugin -> agentkit.plugin_api._tools (src/bad_plugin/__init__.py:1)" in (
        result.stdout.splitlines()
    )


def test_a_relative_path_is_linted_as_a_path(run, make_plugin, tmp_path):
    make_plugin(GOOD, name="good-plugin")

    result = run("./good-plugin", cwd=tmp_path)

    assert result.returncode == 0, result.stderr


def test_json_output(run, make_plugin):
    result = run("--json", str(make_plugin(BROKEN, name="bad-plugin")))

    data = json.loads(result.stdout)
    assert (data["kept"], data["broken"]) == (0, 1)
    assert data["plugins"][0]["findings"][0]["kind"] == "forbidden-import"


def test_allow_on_the_command_line(run, make_plugin):
    project = str(make_plugin(BROKEN, name="bad-plugin"))

    assert run("--allow", "agentkit.plugin_api._tools", project).returncode == 0
    unused = run(
        "--allow", "nothing.imports.this", "--allow", "agentkit.plugin_api._tools", project
    )
    assert unused.returncode == 1
    assert "-   bad-plugin -> nothing.imports.this (<allow>)" in unused.stdout.splitlines()


def test_usage_errors_exit_two_with_one_line_and_no_traceback(tmp_path):
    for args in [(), ("agentkit-no-such-plugin",), (str(tmp_path / "missing"),), ("--bogus", "x")]:
        result = run_process(*args)

        assert result.returncode == 2, args
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1, result.stderr
        assert "Traceback" not in result.stderr
        assert result.stderr.startswith("error: ")
