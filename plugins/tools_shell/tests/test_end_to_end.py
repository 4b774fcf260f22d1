"""The verification cycle through the real agent loop and the scripted provider.

A failing test command, a read, an edit, the test command passing: the shell
tools together with the file tools (``agentkit-tools-files``), all loaded from
their entry points the way an embedder's agent loads them.
"""

from __future__ import annotations

import json
import sys

import pytest

host = pytest.importorskip(
    "agentkit.host", reason="the agentkit host is needed for the end-to-end run"
)
faux = pytest.importorskip("agentkit_provider_faux", reason="the scripted provider is needed")

from agentkit_provider_faux import Script, Turn, text, tool_call  # noqa: E402
from agentkit_tools_shell import read_only_commands  # noqa: E402

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all  # noqa: E402
from agentkit.plugin_api import ToolResultMessage  # noqa: E402

CHECK = "from calc import add\nassert add(2, 3) == 5, f'add(2, 3) returned {add(2, 3)}'\nprint('all good')\n"


@pytest.fixture(scope="module")
def plugin_host() -> PluginHost:
    discovered = PluginHost.discover()
    missing = {"execute", "run_command", "read_file", "edit_file"} - set(discovered.tools)
    if missing:
        pytest.skip(f"tools not installed: {sorted(missing)}")
    return discovered


def _results(messages) -> dict[str, dict]:
    return {
        m.tool_use_id: {"is_error": m.is_error, **json.loads(m.text)}
        for m in messages
        if isinstance(m, ToolResultMessage)
    }


def test_a_failing_test_is_read_fixed_and_passes(plugin_host, tmp_path):
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (tmp_path / "check.py").write_text(CHECK)
    run_check = {"argv": [sys.executable, "check.py"], "timeout_s": 120}
    fix = {"path": "calc.py", "edits": [{"old_string": "a - b", "new_string": "a + b"}]}
    script = Script(
        [
            Turn([tool_call("run_command", run_check, id="run-1")]),
            Turn([tool_call("read_file", {"path": "calc.py"}, id="read")]),
            Turn([tool_call("edit_file", fix, id="edit")]),
            Turn([tool_call("execute", {"command": f"'{sys.executable}' check.py"}, id="run-2")]),
            Turn([text("Fixed: add now adds.")]),
        ]
    )
    no_bytecode = {"env": {"PYTHONDONTWRITEBYTECODE": "1"}}
    agent = Agent(
        AgentConfig(
            model="faux/scripted",
            root=tmp_path,
            trust=Trust(before_tool_call=allow_all),
            connection=Connection(transport=script),
            # The fix keeps calc.py's size and may land in the second its
            # bytecode was cached: Python would run the stale .pyc.
            tool_options={name: no_bytecode for name in ("execute", "run_command")},
        ),
        host=plugin_host,
    )
    result = agent.run_sync("check.py fails; fix it")

    assert result.outcome == "completed"
    results = _results(result.messages)
    failing = results["run-1"]
    assert failing["ok"] and failing["data"]["exit_code"] == 1
    assert "AssertionError: add(2, 3) returned -1" in failing["data"]["output"]
    assert "a - b" in json.dumps(results["read"])
    assert results["edit"]["ok"], results["edit"]
    passing = results["run-2"]
    assert passing["ok"] and passing["data"]["exit_code"] == 0, passing
    assert passing["data"]["output"] == "all good\n"
    assert (tmp_path / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"

    offered = {tool["name"] for tool in script.requests[0].tools}
    assert {"execute", "run_command", "powershell"} <= offered
    assert "fetch_url" not in offered


def test_an_agent_with_a_shell_tool_and_no_policy_is_refused(plugin_host, tmp_path):
    config = AgentConfig(model="faux/scripted", root=tmp_path, connection=Connection(transport=Script([])))
    with pytest.raises(host.ConfigError) as caught:
        Agent(config, host=plugin_host)
    message = str(caught.value)
    assert "allow_all" in message and "restrictive" in message
    for name in ("execute", "run_command", "powershell"):
        assert name in message


def test_the_shipped_restrictive_policy_blocks_in_the_loop(plugin_host, tmp_path):
    (tmp_path / "keep.txt").write_text("precious")
    script = Script(
        [
            Turn(
                [
                    tool_call("run_command", {"argv": ["rm", "keep.txt"]}, id="rm"),
                    tool_call("execute", {"command": "ls"}, id="ls"),
                ]
            ),
            Turn([text("done")]),
        ]
    )
    agent = Agent(
        AgentConfig(
            model="faux/scripted",
            root=tmp_path,
            trust=Trust(before_tool_call=read_only_commands),
            connection=Connection(transport=script),
        ),
        host=plugin_host,
    )
    result = agent.run_sync("tidy up")
    by_id = {m.tool_use_id: m for m in result.messages if isinstance(m, ToolResultMessage)}
    assert by_id["rm"].is_error and "'rm' is not an allowed program" in by_id["rm"].text
    assert not by_id["ls"].is_error and "keep.txt" in by_id["ls"].text
    assert (tmp_path / "keep.txt").read_text() == "precious"


@pytest.mark.slow
def test_the_shell_plugin_is_listed_and_passes_validation(agentkit):
    listing = agentkit("plugins", "--check", "--json")
    assert listing.returncode == 0, listing.stderr
    listed = {p["name"]: p for p in json.loads(listing.stdout)}
    assert listed["shell"]["status"] == "loaded"
    assert set(listed["shell"]["contributions"]) == {
        "tool:execute",
        "tool:run_command",
        "tool:powershell",
    }
    validation = agentkit("validate-plugins", "--json", "shell")
    assert validation.returncode == 0, validation.stdout + validation.stderr
    [validated] = json.loads(validation.stdout)["plugins"]
    assert (validated["name"], validated["result"]) == ("shell", "PASS"), validated
