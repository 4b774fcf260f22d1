"""``agentkit new-plugin``: the project it writes passes validate-plugins and its own tests as it is."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
@pytest.mark.parametrize("category", ["tools", "hooks", "skills", "providers"])
def test_a_new_plugin_passes_validate_plugins_and_its_own_tests(agentkit, author_pytest, category, tmp_path):
    created = agentkit("new-plugin", category, "sample", "--dir", "sample-plugin", cwd=tmp_path)
    assert created.returncode == 0, created.stderr
    project = tmp_path / "sample-plugin"
    assert (project / "pyproject.toml").is_file() and (project / "README.md").is_file()

    validated = agentkit("validate-plugins", "--path", str(project), cwd=tmp_path)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert validated.stdout.splitlines()[0].endswith(f"[{category}] PASS (0 warnings)")

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(project / "src"), os.environ.get("PYTHONPATH")]))}
    tested = author_pytest(project, env, "-q")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "passed" in tested.stdout and "failed" not in tested.stdout


@pytest.mark.slow
def test_a_new_guardrail_plugin_is_a_hooks_plugin_that_passes_validate_plugins_and_its_own_tests(
        agentkit, author_pytest, tmp_path):
    created = agentkit("new-plugin", "guardrail", "keep_secrets", cwd=tmp_path)
    assert created.returncode == 0, created.stderr
    project = tmp_path / "agentkit-hooks-keep-secrets"
    assert '[project.entry-points."agentkit.hooks"]' in (project / "pyproject.toml").read_text()

    validated = agentkit("validate-plugins", "--path", str(project), "--json", cwd=tmp_path)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    [report] = json.loads(validated.stdout)["plugins"]
    assert report["result"] == "PASS" and report["categories"] == ["hooks"]
    guardrail_checks = [(check["check"], check["outcome"]) for check in report["checks"]
                        if check["check"].startswith("guardrails.")]
    assert guardrail_checks == [("guardrails.narrow", "pass")] * 2 + [("guardrails.fail-closed", "pass")] * 2

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(project / "src"), os.environ.get("PYTHONPATH")]))}
    tested = author_pytest(project, env, "-q")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "4 passed" in tested.stdout and "failed" not in tested.stdout


def test_the_default_directory_is_named_after_the_distribution(agentkit, tmp_path):
    assert agentkit("new-plugin", "providers", "acme_chat", cwd=tmp_path).returncode == 0
    text = (tmp_path / "agentkit-provider-acme-chat" / "pyproject.toml").read_text()
    assert 'name = "agentkit-provider-acme-chat"' in text
    assert '[project.entry-points."agentkit.providers"]\nacme_chat = "agentkit_provider_acme_chat"' in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tools", "Bad-Name"], "invalid plugin name 'Bad-Name'"),
        (["tools", "1st"], "invalid plugin name '1st'"),
        (["gadgets", "x"], "invalid category 'gadgets'"),
        (["tools", "fine", "--dir", "occupied"], "occupied already exists and is not empty"),
    ],
)
def test_bad_input_is_refused_in_one_line_with_exit_2(agentkit, args, message, tmp_path):
    (tmp_path / "occupied").mkdir()
    (tmp_path / "occupied" / "keep.txt").write_text("mine")
    result = agentkit("new-plugin", *args, cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert (tmp_path / "occupied" / "keep.txt").read_text() == "mine"


def test_an_existing_empty_directory_is_used(agentkit, tmp_path):
    (tmp_path / "empty").mkdir()
    assert agentkit("new-plugin", "skills", "notes", "--dir", "empty", cwd=tmp_path).returncode == 0
    assert (tmp_path / "empty" / "src" / "agentkit_skills_notes" / "__init__.py").is_file()


def installed(*projects: Path, site: Path) -> Path:
    """A site directory in which ``projects`` look pip-installed: a dist-info and a RECORD of the sources each."""
    from agentkit.conformance._source import read_project, write_dist_info

    for project in projects:
        info = write_dist_info(read_project(project), site)
        shutil.copytree(project / "src", site, dirs_exist_ok=True)
        sources = [path.relative_to(project / "src").as_posix() for path in (project / "src").rglob("*.py")]
        (info / "RECORD").write_text("".join(f"{source},,\n" for source in sources))
    return site


@pytest.mark.slow
def test_one_name_in_two_categories_installs_loads_and_validates(agentkit, tmp_path):
    for category in ("provider", "skills"):  # the singular works too
        assert agentkit("new-plugin", category, "x", cwd=tmp_path).returncode == 0
    projects = [tmp_path / "agentkit-provider-x", tmp_path / "agentkit-skills-x"]
    site = installed(*projects, site=tmp_path / "site")
    listed = agentkit("plugins", "--check", "--json", site=site)
    records = {record["name"]: record for record in json.loads(listed.stdout)}
    assert records["x[providers]"]["status"] == "loaded", records["x[providers]"]
    assert records["x[skills]"]["status"] == "loaded", records["x[skills]"]
    validated = agentkit("validate-plugins", "x", site=site)  # both plugins answer to the name
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert "Plugins: 2 passed, 0 failed." in validated.stdout


@pytest.mark.parametrize(("singular", "group"), [("provider", "providers"), ("tool", "tools"),
                                                 ("skill", "skills"), ("hook", "hooks")])
def test_the_singular_category_is_accepted(agentkit, singular, group, tmp_path):
    assert agentkit("new-plugin", singular, "one", "--dir", "one", cwd=tmp_path).returncode == 0
    assert f'[project.entry-points."agentkit.{group}"]' in (tmp_path / "one" / "pyproject.toml").read_text()


@pytest.mark.skipif(shutil.which("uv") is None, reason="uv is not installed")
def test_the_install_command_it_prints_works_in_a_venv_without_pip(tmp_path):
    """Like the project's own .venv: made by uv, no pip in it."""
    repo = Path(__file__).resolve().parents[2]
    venv = tmp_path / "venv"
    offline = {**os.environ, "UV_OFFLINE": "1", "VIRTUAL_ENV": ""}
    setup = [["uv", "venv", "--python", sys.executable, str(venv)],
             ["uv", "pip", "install", "--python", str(venv / "bin" / "python"), "-e", str(repo / "plugin_api")]]
    for command in setup:
        done = subprocess.run(command, capture_output=True, text=True, env=offline, timeout=600)
        if done.returncode != 0:
            pytest.skip(f"no offline uv cache for a throwaway venv: {done.stderr.strip()[-200:]}")
    python = venv / "bin" / "python"
    # agentkit itself runs from that venv (its sys.executable), found through a .pth
    site = next((venv / "lib").glob("python*/site-packages"))
    own = next(Path(sys.prefix, "lib").glob("python*/site-packages")).as_posix()
    (site / "agentkit-under-test.pth").write_text(f"import site; site.addsitedir({own!r})\n")
    assert subprocess.run([str(python), "-c", "import pip"], capture_output=True).returncode != 0, "the venv has pip"
    created = subprocess.run([str(python), "-c", "import sys; from agentkit.host.cli import main; sys.exit(main())",
                              "new-plugin", "tool", "pipless"], cwd=tmp_path,
                             capture_output=True, text=True, env=offline, timeout=600)
    assert created.returncode == 0, created.stderr
    command = created.stdout.splitlines()[-1].split("   and   ", 1)[1]
    done = subprocess.run(command, shell=True, cwd=tmp_path, capture_output=True, text=True, env=offline, timeout=600)
    if done.returncode != 0 and "network" in done.stderr:
        pytest.skip(f"the build backend is not in the offline uv cache: {done.stderr.strip()[-200:]}")
    assert done.returncode == 0, (command, done.stderr)
    found = subprocess.run([str(python), "-c", "import importlib.metadata as m; "
                            "print([ep.name for ep in m.entry_points(group='agentkit.tools')])"],
                           capture_output=True, text=True, timeout=600)
    assert "pipless" in found.stdout, found.stdout + found.stderr


def test_a_new_plugin_ships_py_typed(agentkit, tmp_path):
    assert agentkit("new-plugin", "tools", "typed", cwd=tmp_path).returncode == 0
    assert (tmp_path / "agentkit-tools-typed" / "src" / "agentkit_tools_typed" / "py.typed").is_file()
