"""The report: import-linter's shape in text, and the same facts as JSON."""

from __future__ import annotations

import json

import agentkit.lint
from agentkit.lint import format_report, lint_path

BROKEN = {
    "broken_plugin/__init__.py": "from . import tools\n",
    "broken_plugin/tools.py": "import os\nfrom agentkit.host import Agent\nimport httpx\n",
    "broken_plugin/bad.py": "def f(:\n",
    "broken_plugin/dyn.py": "import importlib\nimportlib.import_module(__name__ + 'x')\n",
}
GOOD = {"good_plugin/__init__.py": "from agentkit.plugin_api import Tool\n"}


def test_the_public_surface_is_pinned():
    assert set(agentkit.lint.__all__) == {
        "KINDS",
        "Finding",
        "LintReport",
        "LintUsageError",
        "format_report",
        "lint_distribution",
        "lint_path",
    }


def test_the_text_report_reads_like_import_linter(make_plugin):
    good = lint_path(make_plugin(GOOD, name="good-plugin"))
    broken = lint_path(make_plugin(BROKEN, name="broken-plugin"))

    text = format_report([good, broken])
    lines = text.splitlines()

    assert "good-plugin 0.3.1 KEPT" in lines
    assert "broken-plugin 0.3.1 BROKEN" in lines
    assert "Plugins: 1 kept, 1 broken." in lines
    assert "-   broken_plugin.tools -> agentkit.host (src/broken_plugin/tools.py:2)" in lines
    assert "-   broken_plugin.tools -> httpx (src/broken_plugin/tools.py:3)" in lines
    assert "-   broken_plugin.bad (src/broken_plugin/bad.py:1)" in lines
    assert "-   broken_plugin.dyn -> <dynamic> (src/broken_plugin/dyn.py:2)" in lines
    # Every finding is followed by the message naming the fix.
    host = lines.index("-   broken_plugin.tools -> agentkit.host (src/broken_plugin/tools.py:2)")
    assert "agentkit.plugin_api" in lines[host + 1]
    # The verdict lines come before the details, warnings last.
    assert lines.index("Plugins: 1 kept, 1 broken.") < lines.index("Broken plugins")
    assert lines.index("Broken plugins") < lines.index("Warnings")
    assert text.endswith("\n")


def test_a_report_of_kept_plugins_has_no_broken_section(make_plugin):
    text = format_report([lint_path(make_plugin(GOOD, name="good-plugin"))])

    assert "Plugins: 1 kept, 0 broken." in text.splitlines()
    assert "Broken plugins" not in text


def test_the_report_as_json_carries_every_finding(make_plugin):
    report = lint_path(make_plugin(BROKEN, name="broken-plugin"))

    data = json.loads(json.dumps(report.to_dict()))

    assert (data["plugin"], data["version"], data["ok"]) == ("broken-plugin", "0.3.1", False)
    kinds = sorted(f["kind"] for f in data["findings"])
    assert kinds == [
        "forbidden-import",
        "syntax-error",
        "undeclared-dependency",
        "unverifiable-import",
    ]
    assert [f["file"] for f in data["could_not_lint"]] == ["src/broken_plugin/bad.py"]
    first = data["findings"][0]
    assert set(first) == {"kind", "module", "imported", "file", "line", "severity", "message"}
