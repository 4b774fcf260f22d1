"""``agentkit validate-plugins`` over a set of deliberately broken plugins beside good ones.

Each broken plugin is a real installed distribution (a ``.dist-info`` on the
path, as pip leaves it) and must FAIL with a message naming its problem; the
good plugins installed beside them must still PASS.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust
from agentkit.plugin_api import Block

API = ["agentkit-plugin-api>=0.1,<0.2"]

GOOD_TOOL = """
from agentkit.plugin_api import Tool, hookimpl

def shout(text: str) -> str:
    '''Upper-case the text.'''
    return text.upper()

@hookimpl
def agentkit_register_tools(register):
    register(Tool.from_function(shout))
"""
GOOD_HOOK = """
from agentkit.plugin_api import Block, hookimpl

@hookimpl
def agentkit_before_tool_call(call, arguments):
    if arguments.get("value") == "forbidden":
        return Block("not that")
"""
GOOD_SKILL = """
from agentkit.plugin_api import Skill, hookimpl

@hookimpl
def agentkit_register_skills(register):
    register(Skill("tidy", "Tidy a repository.", "Remove build artefacts, then run the tests."))
"""


def _tool(name: str, schema: str) -> str:
    return f"""
from agentkit.plugin_api import Tool, hookimpl

@hookimpl
def agentkit_register_tools(register):
    register(Tool({name!r}, "A tool.", {schema}, lambda arguments, context: "ok"))
"""


#: name -> (distribution kwargs, the check that must fail, words its message must contain)
BROKEN = {
    "host_internal": (
        {"files": {"host_internal.py": "from agentkit.host._plugins import PluginHost\n" + GOOD_TOOL.replace("shout", "shout2")}},
        "lint", ["forbidden-import", "agentkit.host._plugins"]),
    "undeclared_dep": (
        {"files": {"undeclared_dep.py": "import yaml\n" + GOOD_TOOL.replace("shout", "shout3")}},
        "lint", ["undeclared-dependency", "yaml"]),
    "raises_on_import": (
        {"files": {"raises_on_import.py": "raise RuntimeError('broken on purpose')"}},
        "loads", ["raised on import", "broken on purpose"]),
    "syntax_error": (
        {"files": {"syntax_error.py": "def broken(:\n    pass\n"}},
        "lint", ["syntax-error"]),
    "misspelled_arg": (
        {"files": {"misspelled_arg.py": "from agentkit.plugin_api import hookimpl\n\n@hookimpl\n"
                   "def agentkit_before_tool_call(call, argumnets):\n    return None\n"}},
        "loads", ["argumnets"]),
    "unsendable_schema": (
        {"files": {"unsendable_schema.py": _tool("listy", '{"type": "object", "properties": {"xs": {"type": "array"}}}')}},
        "tools.schema", ["array-items", "xs"]),
    "invalid_schema": (
        {"files": {"invalid_schema.py": _tool("typo", '{"type": "object", "properties": {"n": {"type": "integr"}}}')}},
        "loads", ["not valid JSON Schema"]),
    # Sorts before "files": the order of names once handed it read_file and blamed the built-in plugin.
    "aa_duplicate": (
        {"files": {"aa_duplicate.py": _tool("read_file", '{"type": "object", "properties": {}}')}},
        "collisions", ["read_file", "also registered by plugin 'files'"]),
    "overturns_block": (
        {"files": {"overturns_block.py": "from agentkit.plugin_api import hookimpl\n\n@hookimpl\n"
                   "def agentkit_before_tool_call(call, arguments):\n    return True  # 'allow'\n"}},
        "hooks.no-allow", ["returned True", "no allow"]),
    "rewrites_args": (
        {"files": {"rewrites_args.py": "from agentkit.plugin_api import hookimpl\n\n@hookimpl\n"
                   "def agentkit_before_tool_call(call, arguments):\n    arguments['value'] = 'rewritten'\n"}},
        "hooks.no-allow", ["tried to change the arguments", "read-only"]),
    "future_api": (
        {"requires": ["agentkit-plugin-api>=9,<10"], "files": {"future_api.py": GOOD_TOOL.replace("shout", "shout4")}},
        "api-range", ["agentkit-plugin-api<10,>=9", "install a version of the plugin built for"]),
    # Skills: what a model would be shown, or could not be.
    "skill_collides_a": (
        {"files": {"skill_collides_a.py": GOOD_SKILL.replace('"tidy"', '"clash"')}},
        "collisions", ["skill 'clash'", "also registered by plugin 'skill_collides_b'"]),
    "skill_collides_b": (
        {"files": {"skill_collides_b.py": GOOD_SKILL.replace('"tidy"', '"clash"')}},
        "collisions", ["skill 'clash'", "also registered by plugin 'skill_collides_a'"]),
    "skill_no_description": (
        {"files": {"skill_no_description.py": GOOD_SKILL.replace('"tidy", "Tidy a repository."', '"bare", ""')}},
        "loads", ["skill 'bare' has no description", "say when the model should use it"]),
    "skill_no_instructions": (
        {"files": {"skill_no_instructions.py": "from agentkit.plugin_api import Skill, hookimpl\n\n@hookimpl\n"
                   "def agentkit_register_skills(register):\n"
                   "    register(Skill('ghost', 'A skill.', path='/nonexistent/ghost/instructions.md'))\n"}},
        "skills.manifest", ["instructions file /nonexistent/ghost/instructions.md is missing"]),
    "exits_on_import": (
        {"files": {"exits_on_import.py": "import os\nos._exit(3)\n"}},
        "isolation", ["exit code 3"]),
}
CATEGORY = {"overturns_block": "hooks", "rewrites_args": "hooks", "misspelled_arg": "hooks",
            "skill_collides_a": "skills", "skill_collides_b": "skills",
            "skill_no_description": "skills", "skill_no_instructions": "skills"}
GOOD = {
    "good_tool": ("tools", GOOD_TOOL),
    "good_hook": ("hooks", GOOD_HOOK),
    "good_skill": ("skills", GOOD_SKILL),
}


def install(site_dir, broken: list[str]) -> Path:
    """The good plugins and the ``broken`` ones, installed into ``site_dir``; the site."""
    for name in broken:
        kwargs = {"requires": API, **BROKEN[name][0]}
        site_dir(f"broken-{name}".replace("_", "-"),
                 entry_points={f"agentkit.{CATEGORY.get(name, 'tools')}": {name: name}}, **kwargs)
    for name, (category, source) in GOOD.items():
        site_dir(name.replace("_", "-"), entry_points={f"agentkit.{category}": {name: name}},
                 requires=API, files={f"{name}.py": source})
    return site_dir.site


@pytest.fixture
def installed(site_dir) -> Path:
    """Every broken plugin beside the good ones."""
    return install(site_dir, list(BROKEN))


@pytest.fixture
def few_installed(site_dir) -> Path:
    """The good plugins and one that fails: what the report's format and exit codes need."""
    return install(site_dir, ["raises_on_import"])


@pytest.mark.slow
def test_each_broken_plugin_fails_naming_its_problem_and_good_ones_pass(agentkit, installed):
    names = [*BROKEN, *GOOD, "wordcount", "files"]
    result = agentkit("validate-plugins", "--json", *names, site=installed)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    plugins = {plugin["name"]: plugin for plugin in report["plugins"]}
    for name, (_, check, words) in BROKEN.items():
        plugin = plugins[name]
        assert plugin["result"] == "FAIL", (name, plugin)
        messages = [f"{c['message']} {c['fix']}" for c in plugin["checks"] if c["outcome"] == "fail" and c["check"] == check]
        assert messages, (name, check, [c for c in plugin["checks"] if c["outcome"] == "fail"])
        assert any(all(word in message for word in words) for message in messages), (name, messages)
    for name in [*GOOD, "wordcount"]:
        assert plugins[name]["result"] == "PASS", plugins[name]
    # The built-in plugin fails too: read_file is served by neither side of the collision.
    clash = [c["message"] for c in plugins["files"]["checks"] if c["outcome"] == "fail"]
    assert plugins["files"]["result"] == "FAIL" and len(clash) == 1, plugins["files"]
    assert "read_file" in clash[0] and "also registered by plugin 'aa_duplicate'" in clash[0]
    assert (report["passed"], report["failed"]) == (len(GOOD) + 1, len(BROKEN) + 1)


@pytest.mark.slow
def test_the_text_report_has_a_line_per_plugin_a_summary_and_each_failure_with_its_fix(agentkit, few_installed):
    result = agentkit("validate-plugins", "good-tool", "broken-raises-on-import", site=few_installed)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert sorted(lines[:2]) == [  # in the order the plugins finished
        "broken-raises-on-import 0.1.0 [tools] FAIL (0 warnings)",
        "good-tool 0.1.0 [tools] PASS (0 warnings)",
    ]
    assert lines[2] == "Plugins: 1 passed, 1 failed."
    details = "\n".join(lines[3:])
    assert "broken-raises-on-import 0.1.0 (raises_on_import): FAIL" in details
    assert "RuntimeError: broken on purpose" in details and "fix: make the module import cleanly" in details


@pytest.mark.slow
def test_all_good_plugins_exit_0_and_usage_errors_exit_2(agentkit, few_installed, tmp_path):
    good = agentkit("validate-plugins", "good-tool", "good-hook", "good-skill", site=few_installed)
    assert good.returncode == 0, good.stdout
    assert "Plugins: 3 passed, 0 failed." in good.stdout
    for args, message in [
        (["no-such-plugin"], "no installed plugin named no-such-plugin"),
        (["--path", str(tmp_path)], "has no pyproject.toml"),
        (["good-tool", "--path", str(tmp_path)], "not both"),
    ]:
        result = agentkit("validate-plugins", *args, site=few_installed)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_hook_returning_allow_changes_nothing_the_embedder_blocked(installed, tmp_path):
    """What the overturns_block plugin is failed for is also harmless: the embedder's block stands."""
    host = PluginHost.discover(env={"AGENTKIT_LOAD_PLUGINS": "overturns_block,faux,good_tool"})
    assert host.records["overturns_block"].status == "loaded"
    script = host.providers["faux"].script([
        {"content": [{"type": "tool_use", "name": "shout", "arguments": {"text": "hi"}}]},
        {"content": [{"type": "text", "text": "done"}]},
    ])
    agent = Agent(AgentConfig(model="faux/scripted", root=tmp_path, tools=["shout"],
                              trust=Trust(before_tool_call=lambda call, arguments: Block("the embedder says no")),
                              connection=Connection(transport=script)), host=host)
    result = agent.run_sync("shout")
    assert result.messages[2].is_error and "the embedder says no" in result.messages[2].text


def test_without_the_conformance_suite_the_command_says_what_to_install(monkeypatch, capsys):
    from agentkit.host.cli import main

    monkeypatch.setitem(sys.modules, "agentkit.conformance", None)  # as if not installed
    assert main(["validate-plugins"]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and error.endswith("pip install agentkit-conformance")


@pytest.mark.slow
def test_every_plugin_of_this_workspace_passes(agentkit):
    """The built-ins get no privilege: the same lint and conformance suite as any plugin."""
    result = agentkit("validate-plugins", "--json")
    report = json.loads(result.stdout)
    failing = {p["name"]: [c for c in p["checks"] if c["outcome"] == "fail"] for p in report["plugins"] if p["result"] != "PASS"}
    assert failing == {} and result.returncode == 0
    assert {"files", "search", "shell", "web", "anthropic", "openai", "faux", "wordcount"} <= {p["name"] for p in report["plugins"]}


def _gated_tool(gate: Path) -> str:
    """A tool plugin whose handler, which the conformance checks call, returns once ``gate`` exists."""
    return f"""
import pathlib
import time

from agentkit.plugin_api import Tool, hookimpl

def wait_for_gate(arguments, context):
    while not pathlib.Path({str(gate)!r}).exists():
        time.sleep(0.01)
    return "opened"

@hookimpl
def agentkit_register_tools(register):
    register(Tool("wait_for_gate", "Wait until the gate opens.", {{"type": "object"}}, wait_for_gate))
"""


@pytest.mark.slow
def test_each_plugins_line_is_printed_as_soon_as_it_is_done_while_others_still_run(agentkit, site_dir, tmp_path):
    """The gated plugin sorts first and cannot finish before the test opens its gate, which the test does
    only once it has read a line: so that line is the other plugin's, printed while the gated one ran."""
    gate = tmp_path / "gate"
    site_dir("aa-gated", entry_points={"agentkit.tools": {"aa_gated": "aa_gated"}}, requires=API,
             files={"aa_gated.py": _gated_tool(gate)})
    site_dir("good-tool", entry_points={"agentkit.tools": {"good_tool": "good_tool"}}, requires=API,
             files={"good_tool.py": GOOD_TOOL})
    process = agentkit.start("validate-plugins", "--jobs", "2", "aa-gated", "good-tool", site=site_dir.site)
    try:
        assert process.stdout is not None
        first = process.stdout.readline().decode()
        gate.touch()
        rest = process.stdout.read().decode()
        assert process.wait(timeout=600) == 0, first + rest
    finally:
        gate.touch()
        process.kill()
        process.wait()
    assert first == "good-tool 0.1.0 [tools] PASS (0 warnings)\n"
    assert rest.splitlines()[:2] == ["aa-gated 0.1.0 [tools] PASS (0 warnings)", "Plugins: 2 passed, 0 failed."]
    # Not a terminal: plain lines, no status line and no control characters.
    assert "\r" not in first + rest and "\x1b" not in first + rest


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal needs POSIX")
def test_on_a_terminal_a_status_line_counts_the_plugins_and_is_erased_before_each_line(agentkit, few_installed):
    import pty

    controller, terminal = pty.openpty()
    with subprocess.Popen([agentkit.path(), "validate-plugins", "good-tool", "good-skill"], stdout=terminal,
                          stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                          env=agentkit.environment(site=few_installed)) as process:
        os.close(terminal)
        shown = b""
        while chunk := _read_terminal(controller):
            shown += chunk
        assert process.wait(timeout=600) == 0
    os.close(controller)
    text = shown.decode().replace("\r\n", "\n")
    assert text.startswith("[0/2] checking plugins...\r\x1b[K")
    assert "[1/2] checking plugins...\r\x1b[K" in text
    # Erased, the status lines leave the plain report.
    plain = re.sub(r"\[\d/2\] checking plugins\.\.\.\r\x1b\[K", "", text)
    assert sorted(plain.splitlines()[:2]) == ["good-skill 0.1.0 [skills] PASS (0 warnings)",
                                              "good-tool 0.1.0 [tools] PASS (0 warnings)"]
    assert plain.splitlines()[2:] == ["Plugins: 2 passed, 0 failed."]


def _read_terminal(controller: int) -> bytes:
    """What the terminal shows next; empty once the command has closed it."""
    try:
        return os.read(controller, 4096)
    except OSError:  # Linux reports a closed pseudo-terminal as EIO
        return b""
