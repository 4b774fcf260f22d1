"""``agentkit skills list|show`` and ``agentkit run --dry-run`` show what the model gets."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest


def write_skill(folder: Path, name: str, description: str, body: str, extra: str = "") -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}")


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    home, root = tmp_path / "home", tmp_path / "project"
    write_skill(home / ".agentkit/skills/tidy", "tidy", "Tidy a repository.", "Remove build output.\n")
    write_skill(home / ".agentkit/skills/quiet", "quiet", "Not for the model.", "Q.\n",
                "disable-model-invocation: true\n")
    write_skill(root / ".agentkit/skills/release", "release", "Cut a release.", "Tag, then publish.\n")
    return home, root


def rows(result: subprocess.CompletedProcess) -> dict[str, dict]:
    assert result.returncode == 0, result.stderr
    return {row["name"]: row for row in json.loads(result.stdout)["skills"]}


def test_skills_list_shows_tier_source_invocable_and_trust(agentkit, tree):
    home, root = tree
    untrusted = rows(agentkit.inline("skills", "list", "--json", "--root", str(root), env={"HOME": str(home)}))
    assert set(untrusted) >= {"tidy", "quiet"} and "release" not in untrusted
    tidy = untrusted["tidy"]
    assert (tidy["tier"], tidy["source"], tidy["description"], tidy["invocable"], tidy["trusted"]) == (
        "user", str((home / ".agentkit/skills/tidy").resolve()), "Tidy a repository.", True, True)
    assert untrusted["quiet"]["invocable"] is False
    trusted = rows(agentkit.inline("skills", "list", "--json", "--root", str(root), "--trust-project", env={"HOME": str(home)}))
    assert trusted["release"]["tier"] == "project" and trusted["release"]["trusted"] is True


def test_skills_list_in_text_says_whether_the_project_is_trusted(agentkit, tree):
    home, root = tree
    result = agentkit.inline("skills", "list", "--root", str(root), env={"HOME": str(home)})
    assert result.returncode == 0
    assert "tidy  [user:" in result.stdout and "quiet" in result.stdout and "(not shown to the model)" in result.stdout
    assert "project skills: not trusted (pass --trust-project)" in result.stdout
    assert "project skills not loaded: the project is not trusted" in result.stderr


def test_skills_show_prints_the_skill_and_its_instructions(agentkit, tree):
    home, root = tree
    result = agentkit.inline("skills", "show", "tidy", "--root", str(root), env={"HOME": str(home)})
    assert result.returncode == 0, result.stderr
    assert "name: tidy" in result.stdout and "tier: user" in result.stdout
    assert result.stdout.rstrip().endswith("Remove build output.")


def test_skills_show_of_an_unknown_skill_is_a_usage_error(agentkit, tree):
    home, root = tree
    result = agentkit.inline("skills", "show", "nope", "--root", str(root), env={"HOME": str(home)})
    assert result.returncode == 2
    assert "no skill named 'nope'" in result.stderr and "Traceback" not in result.stderr


def dry_run(agentkit, root: Path, home: Path, *flags: str) -> tuple[dict, str]:
    script = root.parent / "turns.json"
    script.write_text(json.dumps([{"content": [{"type": "text", "text": "ok"}]}]))
    result = agentkit.inline("run", "hi", "--model", "faux/scripted", "--script", str(script), "--root", str(root),
                      "--dry-run", *flags, env={"HOME": str(home)})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["body"], result.stderr


def test_run_dry_run_shows_the_skills_block_and_trusts_the_project_only_when_asked(agentkit, tree):
    home, root = tree
    body, stderr = dry_run(agentkit, root, home)
    assert "<name>tidy</name>" in body["system"] and "<name>release</name>" not in body["system"]
    assert "quiet" not in body["system"]
    assert "project is not trusted" in stderr
    body, _ = dry_run(agentkit, root, home, "--trust-project")
    assert "<name>release</name>" in body["system"]
    assert f"<location>{(root / '.agentkit/skills/release/SKILL.md').resolve()}</location>" in body["system"]


def test_a_skill_made_by_new_plugin_reaches_the_model(agentkit, tmp_path, monkeypatch):
    import importlib

    import agentkit_tools_files
    from agentkit_provider_faux import Turn, text, tool_call
    from host_helpers import make_agent

    project = tmp_path / "agentkit-skills-careful"
    result = agentkit.inline("new-plugin", "skills", "careful", "--dir", str(project), env={"HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.syspath_prepend(str(project / "src"))
    module = importlib.import_module("agentkit_skills_careful")
    instructions = (project / "src/agentkit_skills_careful/instructions.md").resolve()
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    agent, script = make_agent(
        [Turn([tool_call("read_file", {"path": str(instructions)})]), Turn([text("done")])],
        agentkit_tools_files, module, root=workspace,
    )
    run = agent.run_sync("be careful")
    first = script.requests[0].system
    assert "<name>careful</name>" in first and f"<location>{instructions}</location>" in first
    [answer] = [m for m in run.messages if getattr(m, "role", "") == "tool_result"]
    assert not answer.is_error and "The steps the model follows" in answer.text
