"""The SKILL.md example in examples/ loads as written and reaches the model from the user's skills folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import agentkit_tools_files
from agentkit_provider_faux import FauxProvider, Script, Turn, text

from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.host.skills import read_skill_folder
from agentkit.plugin_api import hookimpl

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "skill_folder" / "release-notes"


class Faux:
    @hookimpl
    def agentkit_register_providers(self, register):
        register(FauxProvider())


def test_the_example_reads_without_warnings():
    skill, warnings = read_skill_folder(EXAMPLE)
    assert warnings == []
    assert (skill.name, skill.version, skill.author) == ("release-notes", "1.0", "agentkit examples")
    assert (EXAMPLE / "scripts" / "changes.sh").is_file()  # the instructions' relative path resolves


def test_copied_to_the_user_folder_it_is_in_the_request(tmp_path: Path, monkeypatch):
    home = tmp_path / "home"
    shutil.copytree(EXAMPLE, home / ".agentkit" / "skills" / "release-notes")
    monkeypatch.setenv("HOME", str(home))
    host = PluginHost()
    host.register(Faux(), name="faux")
    host.register(agentkit_tools_files, name="files")
    script = Script([Turn([text("ok")])])
    Agent(AgentConfig(model="faux/scripted", root=tmp_path,
                      connection=Connection(transport=script)), host=host).run_sync("notes?")
    location = (home / ".agentkit/skills/release-notes/SKILL.md").resolve()
    assert "<name>release-notes</name>" in script.requests[0].system
    assert f"<location>{location}</location>" in script.requests[0].system
