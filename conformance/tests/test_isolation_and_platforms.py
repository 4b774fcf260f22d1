"""Each plugin is checked in its own process; registration must not depend on sys.platform.

The plugins here are real installed distributions (a ``.dist-info`` on the
path); the checks processes find them through ``PYTHONPATH``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentkit.conformance import PluginReport, check_plugin
from agentkit.conformance._serve import AVAILABLE as SERVER_AVAILABLE
from agentkit.conformance._serve import Server
from agentkit.conformance.validate import Target, check_in_subprocess, validate

needs_server = pytest.mark.skipif(not SERVER_AVAILABLE, reason="the checks server forks: POSIX only")

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
#: A tool whose handler first says it was called (so every check before the call has been reported),
#: then never returns: the checks' timeout is what ends it.
HANGS = """
import pathlib, threading
from agentkit.plugin_api import Tool, hookimpl

def nap(arguments, context):
    pathlib.Path({called!r}).touch()
    threading.Event().wait()

@hookimpl
def agentkit_register_tools(register):
    register(Tool("nap", "Sleep.", {{"type": "object"}}, nap))
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


def _timed_out_inside_the_handler(server: Server | None, called: Path) -> tuple[PluginReport, float]:
    """The report of checks that reached the hanging handler before their timeout fired, and that timeout.

    The timeout starts short; a box too busy to start the process and get to the handler in time (the
    handler did not say it was called) gets another try with twice the time, so the timeout never
    decides which checks this test sees. A child forked from the server starts its clock with the
    suite already imported, so it starts shorter than a new interpreter, which imports it first.
    """
    timeout = 0.5 if server is not None else 2.0
    while True:
        called.unlink(missing_ok=True)
        report = check_in_subprocess(Target("hangs", ["tools"]), timeout=timeout, lint=False, server=server)
        if called.exists() or timeout >= 128:
            return report, timeout
        timeout *= 2


@needs_server
@pytest.mark.parametrize("forked", [True, False], ids=["forked-from-the-checks-server", "own-interpreter"])
def test_a_hanging_handler_times_out_and_keeps_what_was_found(on_path, tmp_path, forked):
    called = tmp_path / "called"
    on_path("hangs", "tools", HANGS.format(called=str(called)))
    server = Server(None) if forked else None
    try:
        report, timeout = _timed_out_inside_the_handler(server, called)
    finally:
        if server is not None:
            server.close()
    assert called.exists(), "the checks never reached the tool's handler"
    assert not report.ok
    [isolation] = [check for check in report.failures if check.check == "isolation"]
    assert f"did not finish within {timeout:g}s" in isolation.message
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



@pytest.fixture
def assorted(on_path) -> list[Target]:
    """Plugins that exit, fail a check, fail the platform check and pass, beside a built-in."""
    on_path("aaa_exits", "tools", "import os\nos._exit(7)\n")
    on_path("perplatform", "tools", PER_PLATFORM)
    on_path("zzz_empty_skill", "skills", EMPTY_SKILL)
    return [Target("aaa_exits", ["tools"]), Target("perplatform", ["tools"]), Target("wordcount", ["tools"]),
            Target("zzz_empty_skill", ["skills"])]


@pytest.mark.slow
def test_checked_at_once_or_one_by_one_the_reports_are_the_same(assorted):
    finished: list[PluginReport] = []
    at_once = validate(assorted, jobs=len(assorted), on_report=finished.append)
    one_by_one = validate(assorted, jobs=1)
    assert [report.to_dict() for report in at_once] == [report.to_dict() for report in one_by_one]
    assert [report.name for report in at_once] == [target.name for target in assorted]
    # Each report was handed over once, as it is returned.
    assert sorted((r.name, r.to_dict()["result"]) for r in finished) == sorted(
        (r.name, r.to_dict()["result"]) for r in at_once)
    assert {r.name: r.ok for r in at_once} == {"aaa_exits": False, "perplatform": False, "wordcount": True,
                                                "zzz_empty_skill": False}


@pytest.mark.slow
@needs_server
def test_forked_from_the_checks_server_a_plugin_gets_the_report_its_own_interpreter_gives(assorted):
    """One that ends the interpreter, and one linted against the index the server built."""
    targets = [target for target in assorted if target.name in ("aaa_exits", "wordcount")]
    server = Server(None)
    try:
        served = [check_in_subprocess(target, server=server).to_dict() for target in targets]
    finally:
        server.close()
    assert served == [check_in_subprocess(target).to_dict() for target in targets]
    assert [report["result"] for report in served] == ["FAIL", "PASS"]


def test_checking_a_plugin_in_process_leaves_the_callers_modules_as_they_were():
    """The platform check imports the plugin afresh; the caller keeps the modules it had, so
    objects it made before the check are still instances of its classes after it."""
    from agentkit_provider_faux import FauxProvider

    made_before = FauxProvider()
    report = check_plugin("faux", lint=False)
    assert report.ok, report.failures
    from agentkit_provider_faux import FauxProvider as after

    assert isinstance(made_before, after)
