"""The pytest plugin, used the way a plugin author uses it: pytest in a project of their own."""

from __future__ import annotations

import os
import subprocess

import pytest

API = ["agentkit-plugin-api>=0.1,<0.2"]
BAD_SCHEMA = """
from agentkit.plugin_api import Tool, hookimpl

@hookimpl
def agentkit_register_tools(register):
    register(Tool("tagger", "Tag things.", {"type": "object", "properties": {"tags": {"type": "array"}}},
                  lambda arguments, context: "ok"))
"""


@pytest.fixture
def project(site_dir, tmp_path, author_pytest):
    site_dir("plugin-tagger", entry_points={"agentkit.tools": {"tagger": "tagger"}}, requires=API,
             files={"tagger.py": BAD_SCHEMA})
    directory = tmp_path / "project"
    directory.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site_dir.site), os.environ.get("PYTHONPATH")]))}

    def pytest_in_project(*args: str) -> subprocess.CompletedProcess:
        return author_pytest(directory, env, *args)

    pytest_in_project.directory = directory
    return pytest_in_project


@pytest.mark.slow
def test_the_option_turns_each_check_into_a_test_item(project):
    result = project("-q", "-rA", "--agentkit-plugin=tagger")
    assert result.returncode == 1, result.stdout
    assert "PASSED agentkit-conformance::tagger::loads" in result.stdout
    assert "FAILED agentkit-conformance::tagger::tools.schema[tagger]" in result.stdout
    assert "array-items: #/properties/tags is an array without 'items'" in result.stdout
    assert "fix: change the input_schema" in result.stdout


@pytest.mark.slow
def test_the_option_passes_a_good_plugin(project):
    result = project("-q", "--agentkit-plugin=wordcount")
    assert result.returncode == 0, result.stdout
    assert " passed" in result.stdout and "failed" not in result.stdout


@pytest.mark.slow
def test_the_fixture_fails_the_test_with_every_failure_and_its_fix(project):
    (project.directory / "test_conformance.py").write_text(
        "def test_tagger(agentkit_conformance):\n    agentkit_conformance('tagger')\n\n"
        "def test_wordcount(agentkit_conformance):\n"
        "    [report] = agentkit_conformance('agentkit-tools-wordcount')\n    assert report.ok\n"
    )
    result = project("-q")
    assert result.returncode == 1, result.stdout
    assert "1 failed, 1 passed" in result.stdout
    assert "plugin-tagger 0.1.0 [tools] FAIL (0 warnings)" in result.stdout
    assert "tools.schema [tagger]: array-items" in result.stdout


def test_loaded_in_every_pytest_run_it_adds_nothing_unasked(project):
    (project.directory / "test_plain.py").write_text("def test_plain():\n    assert True\n")
    result = project("-q")
    assert result.returncode == 0 and "1 passed" in result.stdout


def test_the_distribution_is_installed_with_its_pytest11_entry_point():
    from importlib.metadata import distribution

    [entry] = [ep for ep in distribution("agentkit-conformance").entry_points if ep.group == "pytest11"]
    assert (entry.name, entry.value) == ("agentkit_conformance", "agentkit.conformance.pytest_plugin")
    assert hasattr(entry.load(), "agentkit_conformance")
