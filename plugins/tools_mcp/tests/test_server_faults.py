"""What a server gets wrong costs only what it got wrong, and says so in one line.

The server is ``servers/raw_server.py``, written by hand to send what no SDK
server would: schemas that are not JSON Schema, names agentkit cannot carry,
silence at connect, a line that is not JSON-RPC, a malformed result.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call

from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.plugin_api import ToolResultMessage

from .conftest import SERVERS, configure

RAW_SERVER = SERVERS / "raw_server.py"
#: Far under the servers' own call deadline (timeout_s below): a call answered within it was not timed out.
BOUND_S = 60


def raw_entry(name: str, mode: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "command": sys.executable, "args": [str(RAW_SERVER), mode], "era": "legacy",
            "connect_timeout_s": 30, **extra}


def warnings_in(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning: MCP")]


def test_a_bad_schema_or_name_leaves_out_only_that_tool_each_with_one_line(
        config_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure(raw_entry("raw", "tools"))
    host = PluginHost.discover()

    record = host.records["mcp"]
    assert record.status == "loaded"
    assert sorted(name for name in host.tools if name.startswith("raw__")) == ["raw__fine"]
    assert not [item for item in record.contributions if item.startswith("tool:raw__") and item != "tool:raw__fine"]
    lines = warnings_in(capsys.readouterr().err)
    assert len(lines) == 3, lines
    for tool, why in [("dotted.name", "not a tool name agentkit can carry"), ("bad_schema", "not valid JSON Schema"),
                      ("not_an_object", "inputSchema")]:
        [line] = [line for line in lines if f"MCP tool {tool!r} of server 'raw' is left out" in line]
        assert why in line


def test_agentkit_tools_plugins_check_run_and_chat_show_the_problems(agentkit: Any, tmp_path: Path) -> None:
    home = tmp_path / "config"
    home.mkdir()
    (home / "agentkit.toml").write_text(
        f'[[mcp.servers]]\nname = "raw"\ncommand = {json.dumps(sys.executable)}\n'
        f'args = [{json.dumps(str(RAW_SERVER))}, "tools"]\nera = "legacy"\n', encoding="utf-8")
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"content": [{"type": "text", "text": "done"}]}]))
    env = {"AGENTKIT_CONFIG_DIR": str(home)}

    for args in (["plugins", "--check"], ["run", "--model", "faux/scripted", "--script", str(script), "hello"],
                 ["chat", "--model", "faux/scripted", "--script", str(script)], ["tools"]):
        result = agentkit.inline(*args, env=env, cwd=tmp_path, input="hello\n")
        assert result.returncode == 0, result.stderr
        assert len(warnings_in(result.stderr)) == 3, (args, result.stderr)
        assert "Traceback" not in result.stderr
    # The last of four hosts built in this process: the server's good tool is still served.
    assert "raw__fine  (mcp; sequential)" in result.stdout


def test_a_server_that_never_answers_at_connect_is_one_line_without_tracebacks(agentkit: Any, tmp_path: Path) -> None:
    home = tmp_path / "config"
    home.mkdir()
    (home / "agentkit.toml").write_text(
        f'[[mcp.servers]]\nname = "mute"\ncommand = {json.dumps(sys.executable)}\n'
        f'args = [{json.dumps(str(RAW_SERVER))}, "silent"]\nconnect_timeout_s = 2\n', encoding="utf-8")
    # A process of its own: what it prints as its futures are collected, at exit, is what is tested.
    result = agentkit("tools", env={"AGENTKIT_CONFIG_DIR": str(home)}, cwd=tmp_path, timeout=120)

    assert result.returncode == 0, result.stderr
    assert warnings_in(result.stderr) == [
        "warning: MCP server 'mute' contributes no tools: did not finish connecting within 2 s (connect_timeout_s)"]
    assert "Traceback" not in result.stderr and "never retrieved" not in result.stderr, result.stderr


def test_a_tool_a_server_adds_with_a_bad_schema_costs_only_itself(
        config_home: Path, caplog: pytest.LogCaptureFixture) -> None:
    configure(raw_entry("raw", "grow"))
    script = Script([Turn([tool_call("raw__grow", {})]), Turn([tool_call("raw__late_fine", {})]), Turn([text("Done.")])])
    agent = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["raw__grow"],
                              connection=Connection(transport=script)), host=PluginHost.discover())
    result = agent.run_sync("Grow, then use the new tool.")

    envelopes = [json.loads(message.content[0].text) for message in result.messages
                 if isinstance(message, ToolResultMessage)]
    assert [envelope.get("data") for envelope in envelopes] == ["grown", "fine"], envelopes
    assert "raw__late_bad" not in agent.tools
    assert "MCP tool 'late_bad' of server 'raw' is left out" in caplog.text


def run_one_turn(*calls: Any, tools: list[str]) -> list[dict[str, Any]]:
    """The envelopes of ``calls``, made together in one turn, within :data:`BOUND_S`."""
    script = Script([Turn(list(calls)), Turn([text("Done.")])])
    agent = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=tools,
                              connection=Connection(transport=script)), host=PluginHost.discover())

    async def bounded() -> Any:
        return await asyncio.wait_for(agent.run("Go."), BOUND_S)

    result = asyncio.run(bounded())
    return [json.loads(message.content[0].text) for message in result.messages
            if isinstance(message, ToolResultMessage)]


def test_a_line_that_is_not_json_rpc_fails_every_call_in_flight_at_once(config_home: Path) -> None:
    configure(raw_entry("raw", "garbage", timeout_s=600))
    # 'wait' is never answered: only the garbage line 'garble' makes the server send can end it before timeout_s.
    envelopes = run_one_turn(tool_call("raw__wait", {}), tool_call("raw__garble", {}),
                             tools=["raw__wait", "raw__garble"])

    assert [envelope.get("error") for envelope in envelopes] == ["mcp_error", "mcp_error"], envelopes
    assert all("not JSON-RPC" in envelope["detail"] for envelope in envelopes), envelopes


def test_a_malformed_result_is_a_protocol_error(config_home: Path) -> None:
    configure(raw_entry("raw", "garbage", timeout_s=600))
    [envelope] = run_one_turn(tool_call("raw__malformed", {}), tools=["raw__malformed"])

    assert envelope["error"] == "mcp_error", envelope
    assert "malformed" in envelope["detail"] and "\n" not in envelope["detail"]


def test_agentkit_run_says_why_in_one_line_per_call_and_prints_no_traceback(agentkit: Any, tmp_path: Path) -> None:
    home = tmp_path / "config"
    home.mkdir()
    (home / "agentkit.toml").write_text(
        f'[[mcp.servers]]\nname = "raw"\ncommand = {json.dumps(sys.executable)}\n'
        f'args = [{json.dumps(str(RAW_SERVER))}, "garbage"]\nera = "legacy"\ntimeout_s = 600\n', encoding="utf-8")
    script = tmp_path / "script.json"
    script.write_text(json.dumps([
        {"content": [{"type": "tool_use", "name": "raw__garble", "arguments": {}}]},
        {"content": [{"type": "text", "text": "done"}]},
    ]))
    # A process of its own: the SDK logs the line it could not parse, which unconfigured logging prints.
    result = agentkit("run", "--model", "faux/scripted", "--script", str(script), "go",
                      env={"AGENTKIT_CONFIG_DIR": str(home)}, cwd=tmp_path, timeout=BOUND_S * 2)

    assert result.returncode == 0, result.stderr
    assert "[tool] raw__garble failed" in result.stderr
    assert "Traceback" not in result.stderr, result.stderr
