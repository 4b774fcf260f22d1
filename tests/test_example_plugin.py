"""The example third-party plugin, installed like any plugin and used by an agent."""

from __future__ import annotations

import json

import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all
from agentkit.lint import lint_distribution


def test_the_example_plugin_is_discovered_through_its_entry_point():
    record = PluginHost.discover().records["wordcount"]
    assert (record.status, record.distribution, record.contributions) == (
        "loaded", "agentkit-tools-wordcount", ["tool:word_count"])


def test_an_agent_uses_the_example_plugin(tmp_path):
    (tmp_path / "poem.txt").write_text("roses are red\nviolets are blue\n")
    script = Script([Turn([tool_call("word_count", {"path": "poem.txt"})]), Turn([text("Six words.")])])
    agent = Agent(AgentConfig(model="faux/scripted", root=tmp_path, tools=["word_count"],
                              trust=Trust(before_tool_call=allow_all),
                              connection=Connection(transport=script)), host=PluginHost.discover())
    result = agent.run_sync("How long is the poem?")
    assert json.loads(result.messages[2].text) == {"ok": True, "data": {"lines": 2, "words": 6, "characters": 31}}
    assert result.text == "Six words."


def test_the_example_plugin_keeps_to_the_plugin_api():
    assert lint_distribution("agentkit-tools-wordcount").ok


@pytest.mark.slow
def test_the_example_plugin_passes_validate_plugins(agentkit):
    result = agentkit("validate-plugins", "agentkit-tools-wordcount")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "agentkit-tools-wordcount 1.0.0 [tools] PASS" in result.stdout
