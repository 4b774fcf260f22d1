"""The assembled system prompt, pinned by golden files, as the model receives it.

Set ``AGENTKIT_UPDATE_GOLDEN=1`` to rewrite the golden files after a deliberate
change, then review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import agentkit_tools_files
import pytest
from agentkit_provider_faux import Turn, text
from host_helpers import make_agent
from test_skills import SkillsPlugin, write_skill_md

from agentkit.host import Trust
from agentkit.plugin_api import Skill

GOLDEN = Path(__file__).parent / "golden"


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("AGENTKIT_UPDATE_GOLDEN") == "1":
        path.write_text(actual, encoding="utf-8")
    assert path.is_file(), f"{path} is missing; run with AGENTKIT_UPDATE_GOLDEN=1 to write it"
    assert actual == path.read_text(encoding="utf-8")


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    home = tmp_path / "home"
    root = tmp_path / "project"
    plugin = tmp_path / "plugin"
    for folder in (home, root, plugin):
        folder.mkdir()
    monkeypatch.setenv("HOME", str(home))
    write_skill_md(home / ".agentkit/skills/tidy", "name: tidy\ndescription: Tidy a repository & its <build> output.\n")
    write_skill_md(root / ".agentkit/skills/release", "name: release\ndescription: Cut a release.\n")
    write_skill_md(plugin, "name: review\ndescription: Review a diff.\n")
    (home / ".agentkit" / "AGENTS.md").write_text("Prefer small commits.\n")
    (root / "AGENTS.md").write_text("\ufeffRun `make test` before you answer.\n")
    return {"home": home.resolve(), "root": root.resolve(), "plugin": plugin.resolve()}


def system_sent(tree: dict[str, Path], **config: object) -> str:
    plugin = SkillsPlugin(Skill("review", "Review a diff.", path=tree["plugin"] / "SKILL.md"))
    agent, script = make_agent([Turn([text("ok")])], agentkit_tools_files, plugin, root=tree["root"],
                               tools=["read_file", "edit_file"], **config)
    agent.run_sync("hello")
    system = script.requests[-1].system or ""
    for name in ("home", "root", "plugin"):
        system = system.replace(str(tree[name]), "{" + name.upper() + "}")
    return system


def test_the_system_prompt_of_a_trusted_project(tree):
    check_golden("system_prompt_trusted.txt",
                 system_sent(tree, system_prompt="You are a careful engineer.", trust=Trust(project=True)))


def test_the_system_prompt_of_an_untrusted_project(tree):
    check_golden("system_prompt_untrusted.txt", system_sent(tree, system_prompt="You are a careful engineer."))


def test_the_system_prompt_without_a_base_prompt_or_skills(tree, monkeypatch):
    monkeypatch.setenv("HOME", "")
    agent, script = make_agent([Turn([text("ok")])], agentkit_tools_files, root=tree["root"], tools=["read_file"])
    agent.run_sync("hello")
    check_golden("system_prompt_bare.txt", script.requests[-1].system or "")
