"""The review skill is installed, passes the conformance checks, and reaches the model."""

from __future__ import annotations

from pathlib import Path

import agentkit_skills_review
import agentkit_tools_files
import pytest
from agentkit_provider_faux import FauxProvider, Script, Turn, text, tool_call

from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.plugin_api import hookimpl


def test_plugin_is_installed():
    host = PluginHost.discover()
    assert host.plugin_of("skill", "code-review") == "review"


def test_the_instructions_keep_the_authoring_contract():
    text = agentkit_skills_review.INSTRUCTIONS.read_text(encoding="utf-8")
    for section in ("## Charter", "Not in scope", "## Hard prohibitions", "Incident:", "## Mechanical gates",
                    "## Output contract", "## Carve-outs against false positives", "## Pointers, not copies"):
        assert section in text


class Faux:
    @hookimpl
    def agentkit_register_providers(self, register):
        register(FauxProvider())


def test_the_model_is_shown_the_skill_and_can_read_its_instructions(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    host = PluginHost()
    for name, plugin in (("faux", Faux()), ("files", agentkit_tools_files), ("review", agentkit_skills_review)):
        host.register(plugin, name=name)
    location = str(agentkit_skills_review.INSTRUCTIONS.resolve())
    script = Script([Turn([tool_call("read_file", {"path": location})]), Turn([text("Verdict: approve")])])
    agent = Agent(AgentConfig(model="faux/scripted", root=tmp_path,
                              connection=Connection(transport=script)), host=host)
    result = agent.run_sync("Review my change.")
    assert "<name>code-review</name>" in script.requests[0].system
    assert f"<location>{location}</location>" in script.requests[0].system
    answer = result.messages[2]
    assert not answer.is_error and "Careful code review" in answer.text


@pytest.mark.slow
def test_validate_plugins_passes_it(agentkit):
    result = agentkit("validate-plugins", "review")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Plugins: 1 passed, 0 failed." in result.stdout
