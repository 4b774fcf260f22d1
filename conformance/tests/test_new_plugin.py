"""``agentkit new-plugin``: the project it writes passes validate-plugins and its own tests as it is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

AGENTKIT = Path(sys.executable).parent / "agentkit"


def agentkit(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(AGENTKIT), *args], capture_output=True, text=True, cwd=cwd, timeout=600)


@pytest.mark.parametrize("category", ["tools", "hooks", "skills", "providers"])
def test_a_new_plugin_passes_validate_plugins_and_its_own_tests(category, tmp_path):
    created = agentkit("new-plugin", category, "sample", "--dir", "sample-plugin", cwd=tmp_path)
    assert created.returncode == 0, created.stderr
    project = tmp_path / "sample-plugin"
    assert (project / "pyproject.toml").is_file() and (project / "README.md").is_file()

    validated = agentkit("validate-plugins", "--path", str(project), cwd=tmp_path)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert validated.stdout.splitlines()[0].endswith(f"[{category}] PASS (0 warnings)")

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(project / "src"), os.environ.get("PYTHONPATH")]))}
    tested = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"],
                            cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "passed" in tested.stdout and "failed" not in tested.stdout


def test_the_default_directory_is_named_after_the_distribution(tmp_path):
    assert agentkit("new-plugin", "providers", "acme_chat", cwd=tmp_path).returncode == 0
    text = (tmp_path / "agentkit-provider-acme-chat" / "pyproject.toml").read_text()
    assert 'name = "agentkit-provider-acme-chat"' in text
    assert '[project.entry-points."agentkit.providers"]\nacme_chat = "agentkit_provider_acme_chat"' in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tools", "Bad-Name"], "invalid plugin name 'Bad-Name'"),
        (["tools", "1st"], "invalid plugin name '1st'"),
        (["gadgets", "x"], "invalid choice: 'gadgets'"),
        (["tools", "fine", "--dir", "occupied"], "occupied already exists and is not empty"),
    ],
)
def test_bad_input_is_refused_in_one_line_with_exit_2(args, message, tmp_path):
    (tmp_path / "occupied").mkdir()
    (tmp_path / "occupied" / "keep.txt").write_text("mine")
    result = agentkit("new-plugin", *args, cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert (tmp_path / "occupied" / "keep.txt").read_text() == "mine"


def test_an_existing_empty_directory_is_used(tmp_path):
    (tmp_path / "empty").mkdir()
    assert agentkit("new-plugin", "skills", "notes", "--dir", "empty", cwd=tmp_path).returncode == 0
    assert (tmp_path / "empty" / "src" / "agentkit_skills_notes" / "__init__.py").is_file()
