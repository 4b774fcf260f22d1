"""The agentkit command: its output and exit code, through its ``main`` in this process (``validate-plugins``,
whose checks start processes of their own, as a real process)."""

from __future__ import annotations

import json

import pytest

BROKEN = "raise RuntimeError('this plugin is broken on purpose')"
ECHO = """
from agentkit.plugin_api import Tool, hookimpl

def shout(text: str) -> str:
    '''Upper-case the text.'''
    return text.upper()

@hookimpl
def agentkit_register_tools(register):
    register(Tool.from_function(shout))
"""
BLOCKER = """
from agentkit.plugin_api import Block, hookimpl

@hookimpl
def agentkit_before_tool_call(call, arguments):
    if arguments.get("text") == "forbidden":
        return Block("no shouting that")
"""


@pytest.fixture
def plugins(site_dir):
    site_dir("broken-plugin", entry_points={"agentkit.tools": {"brokenplugin": "brokenplugin"}},
             requires=["agentkit-plugin-api>=0.1"], files={"brokenplugin.py": BROKEN})
    site_dir("shout-plugin", entry_points={"agentkit.tools": {"shout": "shoutplugin"}},
             requires=["agentkit-plugin-api>=0.1"], files={"shoutplugin.py": ECHO})
    site_dir("blocker-plugin", entry_points={"agentkit.hooks": {"blocker": "blockerplugin"}},
             requires=["agentkit-plugin-api>=0.1"], files={"blockerplugin.py": BLOCKER})
    return site_dir.site


def test_help_works_with_a_broken_plugin_installed(agentkit, plugins):
    result = agentkit.inline("--help", site=plugins)
    assert result.returncode == 0 and "validate-plugins" in result.stdout


def test_plugins_lists_every_installed_plugin_without_importing_any(agentkit, plugins, site_dir, tmp_path):
    marker = tmp_path / "imported"
    site_dir("marker-plugin", entry_points={"agentkit.tools": {"marker": "markerplugin"}},
             files={"markerplugin.py": f"open({str(marker)!r}, 'w').close()"})
    result = agentkit.inline("plugins", site=plugins)
    assert result.returncode == 0, result.stderr
    assert "shout  shout-plugin 0.1.0  [tools]  enabled" in result.stdout
    assert "brokenplugin  broken-plugin 0.1.0  [tools]  enabled" in result.stdout
    assert "blocker  blocker-plugin 0.1.0  [hooks]  enabled" in result.stdout
    assert "entry point: agentkit.tools: marker = markerplugin" in result.stdout
    assert "agentkit plugins --check" in result.stdout and "broken on purpose" not in result.stdout
    listed = {row["name"]: row for row in json.loads(agentkit.inline("plugins", "--json", site=plugins).stdout)}
    assert listed["marker"] == {
        "name": "marker", "status": "enabled", "categories": ["tools"], "distribution": "marker-plugin",
        "version": "0.1.0", "module": "markerplugin", "reason": None,
        "entry_points": [{"group": "agentkit.tools", "name": "marker", "value": "markerplugin"}],
    }
    assert not marker.exists()  # neither listing imported the plugin ...
    assert agentkit.inline("plugins", "--check", site=plugins).returncode == 0
    assert marker.exists()  # ... which loading does


def test_the_listing_names_what_check_loads(agentkit, plugins):
    """Metadata alone gives each plugin's name, categories, distribution, version and object, as loading does."""
    keys = ("name", "categories", "distribution", "version", "module")
    listed = json.loads(agentkit.inline("plugins", "--json", site=plugins).stdout)
    checked = json.loads(agentkit.inline("plugins", "--check", "--json", site=plugins).stdout)
    assert [[row[key] for key in keys] for row in listed] == [[row[key] for key in keys] for row in checked]
    assert {"shout", "brokenplugin", "blocker", "files", "faux"} <= {row["name"] for row in listed}


def test_plugins_check_lists_loaded_and_failed_with_the_reason(agentkit, plugins):
    result = agentkit.inline("plugins", "--check", site=plugins)
    assert result.returncode == 0
    assert "shout  shout-plugin 0.1.0  [tools]  loaded" in result.stdout
    assert "brokenplugin  broken-plugin 0.1.0  [tools]  failed" in result.stdout
    assert "this plugin is broken on purpose" in result.stdout
    listed = json.loads(agentkit.inline("plugins", "--check", "--json", site=plugins).stdout)
    broken = next(entry for entry in listed if entry["name"] == "brokenplugin")
    assert broken["status"] == "failed" and "RuntimeError" in broken["reason"]


def test_tools_lists_what_plugins_provide(agentkit, plugins):
    result = agentkit.inline("tools", "--json", site=plugins)
    shout = next(row for row in json.loads(result.stdout) if row["name"] == "shout")
    assert shout["plugin"] == "shout" and shout["input_schema"]["required"] == ["text"]


def test_tool_run_goes_through_validation_authorization_and_the_envelope(agentkit, plugins, tmp_path):
    ok = agentkit.inline("tool", "run", "shout", "--args", '{"text": "hi"}', "--root", str(tmp_path), site=plugins)
    assert ok.returncode == 0
    assert json.loads(ok.stdout) == {"tool": "shout", "is_error": False, "result": {"ok": True, "data": "HI"}}
    invalid = agentkit.inline("tool", "run", "shout", "--args", '{"text": 3}', site=plugins)
    assert invalid.returncode == 1 and json.loads(invalid.stdout)["result"]["error"] == "invalid_arguments"
    blocked = agentkit.inline("tool", "run", "shout", "--args", '{"text": "forbidden"}', site=plugins)
    assert blocked.returncode == 1 and json.loads(blocked.stdout)["result"]["detail"] == "no shouting that"


@pytest.mark.slow
def test_validate_plugins_fails_on_a_broken_plugin(agentkit, plugins):
    # Every enabled plugin, as without names; the switch keeps "every" to the three installed here.
    these = {"AGENTKIT_LOAD_PLUGINS": "brokenplugin,shout,blocker"}
    result = agentkit("validate-plugins", site=plugins, env=these)
    assert result.returncode == 1
    assert "broken-plugin 0.1.0 [tools] FAIL (0 warnings)" in result.stdout
    assert "shout-plugin 0.1.0 [tools] PASS (0 warnings)" in result.stdout
    assert "Plugins: 2 passed, 1 failed." in result.stdout and "this plugin is broken on purpose" in result.stdout
    only_good = agentkit("validate-plugins", "shout-plugin", site=plugins)
    assert only_good.returncode == 0 and "Plugins: 1 passed, 0 failed." in only_good.stdout
    report = json.loads(agentkit("validate-plugins", "--json", "broken-plugin", site=plugins).stdout)
    assert (report["passed"], report["failed"]) == (0, 1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bogus"], "invalid choice: 'bogus'"),
        (["tool", "run", "shout", "--args", "{"], "--args is not valid JSON"),
        (["tool", "run", "shout", "--args", "[" * 50_000 + "]" * 50_000], "--args is not valid JSON"),
        (["tool", "run", "nope"], "no tool named 'nope'"),
        (["tool", "run", "shout", "--root", "/no/such/dir"], "is not a directory"),
        (["validate-plugins", "not-installed"], "no installed plugin named not-installed"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(agentkit, plugins, args, message):
    result = agentkit.inline(*args, site=plugins)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_disabled_plugins_are_not_loaded(agentkit, plugins):
    for check in ((), ("--check",)):
        result = agentkit.inline("plugins", *check, site=plugins, env={"AGENTKIT_DISABLE_PLUGINS": "brokenplugin"})
        assert "brokenplugin  broken-plugin 0.1.0  [tools]  disabled" in result.stdout
        assert "reason: disabled by AGENTKIT_DISABLE_PLUGINS" in result.stdout


def test_demo_shows_the_loop_behaviours(agentkit):
    result = agentkit.inline("demo")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "call_1_1 -> sunny in Oslo" in out
    assert "handlers finished in the order: Kyiv, Pune, Lima" in out
    assert out.index("sunny in Lima") < out.index("sunny in Pune") < out.index("sunny in Kyiv")
    assert "handlers run: 0\n" in out and "was not executed" in out
    assert "handlers run: 0 of 3; results: 3" in out and "run outcome: aborted" in out
    assert "ERROR blocked: the demo policy plugin protects /etc" in out
