"""Each plugin is checked in its own process; registration must not depend on sys.platform.

The plugins here are real installed distributions (a ``.dist-info`` on the
path); the checks processes find them through ``PYTHONPATH``.
"""

from __future__ import annotations

import os

import pytest

from agentkit.conformance import check_plugin
from agentkit.conformance.validate import Target, check_in_subprocess, validate

API = ["agentkit-plugin-api>=0.1,<0.2"]
PER_PLATFORM = """
import sys
from agentkit.plugin_api import Tool, hookimpl

@hookimpl
def agentkit_register_tools(register):
    register(Tool("where", "Say where.", {"type": "object"}, lambda arguments, context: sys.platform))
    if sys.platform == "win32":
        register(Tool("dir_listing", "List (Windows only).", {"type": "object"}, lambda arguments, context: []))
"""
HANGS = """
import time
from agentkit.plugin_api import Tool, hookimpl

@hookimpl
def agentkit_register_tools(register):
    register(Tool("nap", "Sleep.", {"type": "object"}, lambda arguments, context: time.sleep(3600)))
"""
EMPTY_SKILL = """
from agentkit.plugin_api import Skill, hookimpl

@hookimpl
def agentkit_register_skills(register):
    register(Skill("terse", "Be terse.", "   "))
"""


@pytest.fixture
def on_path(site_dir, monkeypatch):
    def install(name: str, category: str, source: str) -> None:
        site_dir(f"plugin-{name}", entry_points={f"agentkit.{category}": {name: name}}, requires=API,
                 files={f"{name}.py": source})
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(site_dir.site), os.environ.get("PYTHONPATH")])))

    return install


def test_a_tool_registered_only_on_windows_fails_the_platform_check(on_path):
    on_path("perplatform", "tools", PER_PLATFORM)
    report = check_plugin("perplatform", lint=False)
    [platforms] = [check for check in report.checks if check.check == "platforms"]
    assert platforms.outcome == "fail"
    assert "win32: tools +['dir_listing']" in platforms.message and "lazily" in platforms.fix


@pytest.mark.slow
def test_a_hanging_handler_times_out_and_keeps_what_was_found(on_path):
    on_path("hangs", "tools", HANGS)
    report = check_in_subprocess(Target("hangs", ["tools"]), timeout=20, lint=False)
    assert not report.ok
    [isolation] = [check for check in report.failures if check.check == "isolation"]
    assert "did not finish within 20s" in isolation.message
    assert any(check.check == "tools.name" and check.outcome == "pass" for check in report.checks)


def test_a_plugin_that_ends_the_interpreter_cannot_hide_its_neighbours(on_path):
    on_path("aaa_exits", "tools", "import os\nos._exit(7)\n")
    on_path("zzz_empty_skill", "skills", EMPTY_SKILL)
    reports = {r.name: r for r in validate([Target("aaa_exits", ["tools"]), Target("zzz_empty_skill", ["skills"])])}
    assert next(c.message for c in reports["aaa_exits"].failures if c.check == "isolation").startswith(
        "the checks process ended with exit code 7")
    # The neighbour's own verdict arrives, and the collision check still ran (no warning about it).
    assert [c.message for c in reports["zzz_empty_skill"].failures] == [
        "plugin 'zzz_empty_skill': skill 'terse' has no instructions"]
    assert reports["zzz_empty_skill"].warnings == []



def test_checking_a_plugin_in_process_leaves_the_callers_modules_as_they_were():
    """The platform check imports the plugin afresh; the caller keeps the modules it had, so
    objects it made before the check are still instances of its classes after it."""
    from agentkit_provider_faux import FauxProvider

    made_before = FauxProvider()
    report = check_plugin("faux", lint=False)
    assert report.ok, report.failures
    from agentkit_provider_faux import FauxProvider as after

    assert isinstance(made_before, after)
