"""Untrusted text reaches the terminal with its controls shown, never interpreted (docs/decisions/0028).

Each test plays a hostile source through the command a user runs: a plugin's
metadata in ``agentkit --help`` and ``plugins --check``, a session in
``sessions show``, a skill in ``skills show``, a model's reply in ``agentkit run``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentkit.testing import write_script

#: A window retitle (OSC ... BEL), a screen clear, and a right-to-left override.
HOSTILE = "\x1b]0;pwned\x07 \x1b[2J \u202eevil"
SHOWN = "␛]0;pwned␇ ␛[2J <U+202E>evil"
#: What must never reach stdout or stderr raw: ESC, BEL, a C1 CSI, every bidirectional control.
RAW = ("\x1b", "\x07", "\x9b", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
       "\u2069", "\u200e", "\u200f", "\u061c")


def assert_nothing_raw(*outputs: str) -> None:
    for output in outputs:
        for char in RAW:
            assert char not in output, f"{char!r} reached the terminal: {output!r}"


def with_summary(info: Path, summary: str) -> None:
    """Give an installed distribution a Summary header, as its METADATA would carry it."""
    metadata = info / "METADATA"
    metadata.write_text(metadata.read_text() + f"Summary: {summary}\n", encoding="utf-8")


def test_help_shows_a_contributed_command_summary_with_its_controls_visible(agentkit, site_dir) -> None:
    info = site_dir("hostile-cmd", entry_points={"agentkit.commands": {"hostile": "hostilecmd:main"}},
                    files={"hostilecmd.py": "def main(argv):\n    return 0\n"})
    with_summary(info, f"Hostile {HOSTILE}")
    result = agentkit.inline("--help", site=site_dir.site)
    assert result.returncode == 0, result.stderr
    assert_nothing_raw(result.stdout, result.stderr)
    assert SHOWN in result.stdout


@pytest.mark.parametrize("name", ["-rf", "RUN", "Sessions", "two words", "bad\x1b[2Jname", "rtl\u202eevil"])
def test_a_command_name_that_is_an_option_a_control_or_a_built_in_by_case_is_refused(agentkit, site_dir,
                                                                                      name: str) -> None:
    site_dir("sneaky-cmd", entry_points={"agentkit.commands": {name: "sneakycmd:main", "fine": "sneakycmd:main"}},
             files={"sneakycmd.py": "def main(argv):\n    print('sneaky ran')\n    return 0\n"})
    helped = agentkit.inline("--help", site=site_dir.site)
    assert helped.returncode == 0, helped.stderr
    assert_nothing_raw(helped.stdout, helped.stderr)
    assert "fine" in helped.stdout and name not in helped.stdout  # the good one stays, the bad one is not installed
    ran = agentkit.inline(name, site=site_dir.site)
    assert "sneaky ran" not in ran.stdout
    checked = agentkit.inline("plugins", "--check", site=site_dir.site)
    assert checked.returncode == 0, checked.stderr
    assert_nothing_raw(checked.stdout, checked.stderr)
    problem = next(line for line in checked.stdout.splitlines() if "sneaky-cmd" in line and "refused" in line)
    assert "rename" in problem
    assert agentkit.inline("fine", site=site_dir.site).stdout == "sneaky ran\n"


def test_plugins_check_shows_a_plugin_name_with_its_controls_visible(agentkit, site_dir) -> None:
    site_dir("odd-plugin", entry_points={"agentkit.tools": {"odd\x1b[2Jtool": "oddplugin"}},
             files={"oddplugin.py": "x = 1\n"})
    for args in (("plugins",), ("plugins", "--check")):
        result = agentkit.inline(*args, site=site_dir.site)
        assert result.returncode == 0, result.stderr
        assert_nothing_raw(result.stdout, result.stderr)
        assert "odd␛[2Jtool" in result.stdout


def scripted_run(agentkit: Any, tmp_path: Path, turns: list[dict[str, Any]], *args: str,
                 root: Path | None = None, env: dict[str, str] | None = None) -> Any:
    script = write_script(tmp_path / "turns.json", turns)
    return agentkit.inline("run", "go", "--model", "faux/scripted", "--script", str(script),
                           "--root", str(root or tmp_path), *args, env=env)


def test_sessions_show_shows_session_fields_with_their_controls_visible(agentkit, tmp_path) -> None:
    root = tmp_path / f"project{HOSTILE}"
    root.mkdir()
    data = {"AGENTKIT_DATA_DIR": str(tmp_path / "data")}
    turns = [{"content": [{"type": "tool_use", "name": f"tool{HOSTILE}", "arguments": {}}]},
             {"content": [{"type": "text", "text": f"Done {HOSTILE}"}]}]
    ran = scripted_run(agentkit, tmp_path, turns, "--session", "new", root=root, env=data)
    session_id = next(line for line in ran.stderr.splitlines() if line.startswith("session: ")).split()[1]
    for args in (("sessions", "list"), ("sessions", "show", session_id)):
        result = agentkit.inline(*args, env=data)
        assert result.returncode == 0, result.stderr
        assert_nothing_raw(result.stdout, result.stderr)
        assert f"project{SHOWN}" in result.stdout
    shown = agentkit.inline("sessions", "show", session_id, env=data).stdout
    assert f"-> tool{SHOWN}" in shown and f"Done {SHOWN}" in shown


def test_skills_show_shows_a_skill_body_with_its_controls_visible(agentkit, tmp_path) -> None:
    home = tmp_path / "home"
    folder = home / ".agentkit" / "skills" / "hostile"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: hostile\ndescription: looks {HOSTILE}\n---\n"
                                     f"Step one {HOSTILE}\n\tstep two\n", encoding="utf-8")
    env = {"HOME": str(home)}
    for args in (("skills", "list"), ("skills", "show", "hostile")):
        result = agentkit.inline(*args, "--root", str(tmp_path), env=env)
        assert result.returncode == 0, result.stderr
        assert_nothing_raw(result.stdout, result.stderr)
        assert f"looks {SHOWN}" in result.stdout
    body = agentkit.inline("skills", "show", "hostile", "--root", str(tmp_path), env=env).stdout
    assert f"Step one {SHOWN}\n\tstep two" in body  # a body keeps its lines and tabs


@pytest.mark.parametrize("name", ["-rf", "two\nlines"])
def test_a_skill_whose_name_is_an_option_or_holds_a_newline_is_refused(agentkit, tmp_path, name: str) -> None:
    home = tmp_path / "home"
    folder = home / ".agentkit" / "skills" / "odd"
    folder.mkdir(parents=True)
    (folder / "skill.toml").write_text(f"[skill]\nname = {json.dumps(name)}\ndescription = \"odd\"\n")
    (folder / "prompt.md").write_text("Do it.\n")
    result = agentkit.inline("skills", "list", "--json", "--root", str(tmp_path), env={"HOME": str(home)})
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    assert [skill for skill in listed["skills"] if skill["location"].startswith(str(home))] == []
    assert any(repr(name) in problem and "rename" in problem for problem in listed["problems"])


@pytest.mark.parametrize("name", ["-rf", "review\n"])
def test_a_plugin_skill_named_like_an_option_or_ending_in_a_newline_is_a_problem_in_plugins_check(
        agentkit, site_dir, name: str) -> None:
    site_dir("dash-skill", entry_points={"agentkit.skills": {"dashskill": "dashskill"}},
             requires=["agentkit-plugin-api>=0.1"],
             files={"dashskill.py": "from agentkit.plugin_api import Skill, hookimpl\n\n"
                    "@hookimpl\ndef agentkit_register_skills(register):\n"
                    f"    register(Skill(name={name!r}, description='x', instructions='Do it.'))\n"})
    result = agentkit.inline("plugins", "--check", site=site_dir.site)
    assert result.returncode == 0, result.stderr
    block = result.stdout.split("dashskill", 1)[1]
    assert "failed" in block.splitlines()[0] and repr(name) in block and "rename" in block


def test_run_shows_model_output_and_tool_names_with_their_controls_visible(agentkit, tmp_path) -> None:
    turns = [{"content": [{"type": "tool_use", "name": f"tool{HOSTILE}", "arguments": {}}]},
             {"content": [{"type": "text", "text": f"Done {HOSTILE}\nline two\ttabbed"}]}]
    result = scripted_run(agentkit, tmp_path, turns)
    assert result.returncode == 0, result.stderr
    assert_nothing_raw(result.stdout, result.stderr)
    assert result.stdout == f"Done {SHOWN}\nline two\ttabbed\n"
    assert f"tool{SHOWN}" in result.stderr
    as_json = scripted_run(agentkit, tmp_path, turns, "--json")  # JSON lines stay exact: escaped by JSON itself
    texts = [event.get("delta") for event in map(json.loads, as_json.stdout.splitlines())
             if event["type"] == "block_delta"]
    assert f"Done {HOSTILE}\nline two\ttabbed" in "".join(filter(None, texts))
