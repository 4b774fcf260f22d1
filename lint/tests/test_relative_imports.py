"""Relative imports resolve against the file's package and must stay in the plugin."""

from __future__ import annotations

from agentkit.lint import lint_path


def _seen(report):
    return [(f.kind, f.module, f.imported, f.line) for f in report.findings]


def test_relative_imports_inside_the_package_are_the_plugins_business(make_plugin):
    project = make_plugin(
        {
            "sample_plugin/__init__.py": "from . import a\nfrom .sub import b\n",
            "sample_plugin/a.py": "from .sub.b import VALUE\n",
            "sample_plugin/sub/__init__.py": "from .. import a\nfrom . import b\n",
            "sample_plugin/sub/b.py": "from ..a import *\nfrom ..sub import b as me\n",
        }
    )

    assert lint_path(project).findings == []


def test_a_relative_import_above_the_top_package_is_a_finding(make_plugin):
    project = make_plugin(
        {
            "sample_plugin/__init__.py": "",
            "sample_plugin/tools.py": "import os\nfrom .. import something\n",
        }
    )

    report = lint_path(project)

    assert not report.ok
    assert _seen(report) == [("relative-import-escape", "sample_plugin.tools", "..", 2)]


def test_a_relative_import_out_of_a_namespace_portion_is_a_finding(make_plugin):
    """In agentkit/contrib_x, `from .. import host` is agentkit.host: the dots climbed
    out of the plugin's own portion into ours."""
    project = make_plugin(
        {
            "agentkit/contrib_x/__init__.py": "",
            "agentkit/contrib_x/tools.py": "from .. import host\nfrom ..host import _agent\n",
        }
    )

    report = lint_path(project)

    assert _seen(report) == [
        ("relative-import-escape", "agentkit.contrib_x.tools", "agentkit", 1),
        ("relative-import-escape", "agentkit.contrib_x.tools", "agentkit.host", 2),
    ]
    assert "agentkit.contrib_x" in report.findings[0].message
