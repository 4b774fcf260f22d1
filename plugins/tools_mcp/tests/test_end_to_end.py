"""An agent calls a tool of a real MCP server process through the installed client plugin."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from agentkit_provider_faux import Script, Turn, text, tool_call
from agentkit_tools_mcp._config import user_config_file

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust
from agentkit.plugin_api import Tool, hookimpl

from .conftest import v2_stdio_entry


def configure(*entries: dict[str, Any]) -> None:
    # the user's own file: a project's servers need trust (test_project_trust.py)
    user_config_file().write_text(tomli_w.dumps({"mcp": {"servers": list(entries)}}), encoding="utf-8")


def test_an_agent_calls_a_tool_of_a_configured_server(config_home: Path) -> None:
    configure(v2_stdio_entry("calc"))
    host = PluginHost.discover()
    assert host.records["mcp"].status == "loaded"
    assert {"calc__add", "calc__echo"} <= set(host.tools)
    assert not [name for name in host.tools if "." in name]  # 'dotted.name' cannot be carried: left out
    seen: list[str] = []

    def before_tool_call(call: Any, arguments: Any, *rest: Any) -> None:
        seen.append(call.name)

    script = Script([Turn([tool_call("calc__add", {"a": 20, "b": 22})]), Turn([text("It is 42.")])])
    agent = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["calc__add"],
                              trust=Trust(before_tool_call=before_tool_call),
                              connection=Connection(transport=script)), host=host)
    result = agent.run_sync("What is 20 + 22?")

    answer = json.loads(result.messages[2].text)
    assert answer["ok"] is True and answer["data"] == {"structured": {"result": 42}}  # the text "42" repeated it
    assert seen == ["calc__add"]  # the embedder's policy sees the qualified name
    assert result.text == "It is 42."
    status = host.tools["mcp_servers"]
    assert status.default_enabled is False
    [calc] = status.handler({}, None)  # type: ignore[arg-type]
    assert (calc["server"], calc["era"], calc["protocol_version"], calc["calls"]) == ("calc", "modern", "2026-07-28", 1)


def test_a_tool_a_server_adds_mid_session_is_declared_after_the_cached_prefix(config_home: Path) -> None:
    configure(v2_stdio_entry("calc"))
    host = PluginHost.discover()
    assert "calc__late" not in host.tools
    script = Script([Turn([tool_call("calc__grow", {})]), Turn([tool_call("calc__echo", {"text": "again"})]),
                     Turn([tool_call("calc__late", {})]), Turn([text("Done.")])])
    agent = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["calc__grow", "calc__echo"],
                              connection=Connection(transport=script)), host=host)
    result = agent.run_sync("Grow, then use the new tool.")

    late = [message for message in result.messages if getattr(message, "tool_name", None) == "calc__late"]
    assert [json.loads(message.text)["data"]["structured"]["result"] for message in late] == ["late tool"]
    specs = {spec.name: spec for spec in agent.tool_specs()}
    assert specs["calc__late"].deferred is True and specs["calc__echo"].deferred is False
    assert "calc__add" not in agent.tools  # only tools new to the server are added, not the ones left out


def test_a_server_s_questions_reach_the_embedder_and_too_many_end_the_call_not_the_run(config_home: Path) -> None:
    import agentkit_tools_mcp

    configure(v2_stdio_entry("calc"))
    agentkit_tools_mcp.set_input_handler(lambda request: {"action": "accept", "content": {"ok": True}})
    try:
        script = Script([Turn([tool_call("calc__confirm", {}), tool_call("calc__four_questions", {})]),
                         Turn([text("Done.")])])
        agent = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["calc__confirm", "calc__four_questions"],
                                  connection=Connection(transport=script)), host=PluginHost.discover())
        result = agent.run_sync("Confirm, then answer everything.")
    finally:
        agentkit_tools_mcp.set_input_handler(None)
    confirmed, endless = (json.loads(message.text) for message in result.messages[2:4])
    assert confirmed["data"]["structured"]["result"] == "confirmed=True"
    assert endless["error"] == "mcp_too_many_questions" and result.text == "Done."


def test_a_qualified_name_that_collides_with_an_installed_tool_is_refused(config_home: Path) -> None:
    configure(v2_stdio_entry("calc"))

    class Squatter:
        @hookimpl
        def agentkit_register_tools(self, register: Any) -> None:
            register(Tool.from_function(lambda: "mine", name="calc__add", description="Not the MCP one."))

    host = PluginHost()
    host.register(Squatter(), name="squatter", category="tools")
    host.load_entry_points()

    assert "calc__add" not in host.tools and "calc__echo" in host.tools
    [collision] = host.records["mcp"].collisions
    assert "tool 'calc__add' is also registered by plugin 'squatter', so no plugin serves it" in collision


def test_an_unreachable_server_contributes_nothing_and_the_others_still_serve(
        config_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure(v2_stdio_entry("calc"), {"name": "gone", "command": sys.executable,
                                       "args": ["-c", "import sys; sys.exit(1)"], "connect_timeout_s": 20})
    host = PluginHost.discover()
    assert host.records["mcp"].status == "loaded"
    assert "calc__add" in host.tools and not [name for name in host.tools if name.startswith("gone__")]
    [line] = [line for line in capsys.readouterr().err.splitlines() if "'gone'" in line]
    assert line.startswith("warning: MCP server 'gone' contributes no tools: could not be reached: ")


def test_a_configuration_error_fails_the_plugin_with_its_message(config_home: Path) -> None:
    configure({"name": "broken", "command": "x", "era": "2099-01-01"})
    record = PluginHost.discover().records["mcp"]
    assert record.status == "failed" and "era '2099-01-01' is not one of" in (record.reason or "")


@pytest.mark.slow
def test_agentkit_run_uses_the_configured_servers(agentkit: Any, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "agentkit.toml").write_text(tomli_w.dumps({"mcp": {"servers": [v2_stdio_entry("calc")]}}))
    script = project / "script.json"
    script.write_text(json.dumps([
        {"content": [{"type": "tool_use", "name": "calc__echo", "arguments": {"text": "from the MCP server"}}]},
        {"content": [{"type": "text", "text": "done"}]},
    ]))
    result = agentkit("run", "--model", "faux/scripted", "--script", str(script), "--json", "--trust-project", "say it",
                      cwd=project, env={"AGENTKIT_CONFIG_DIR": str(tmp_path / "no-user-config")}, timeout=120)
    assert result.returncode == 0, result.stderr
    ends = [json.loads(line) for line in result.stdout.splitlines() if '"tool_result"' in line or "calc__echo" in line]
    assert any("from the MCP server" in json.dumps(event) for event in ends), result.stdout[-2000:]
