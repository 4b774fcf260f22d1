"""The plugin API boundary: of agentkit, a plugin imports only agentkit.plugin_api."""

from __future__ import annotations

import pytest

from agentkit.lint import lint_path

GOOD_PLUGIN = {
    "sample_plugin/__init__.py": """
        from agentkit.plugin_api import Tool, ToolContext, hookimpl
        from agentkit.plugin_api.errors import PluginError
        from agentkit.plugin_api.hookspecs import tools as tool_specs
        import agentkit.plugin_api.hookspecs
        from agentkit import plugin_api
        from agentkit.plugin_api import __version__

        from . import _helpers
        from .internal import engine
        from sample_plugin.internal.engine import run
        """,
    "sample_plugin/_helpers.py": """
        import json
        import os.path
        from collections import abc
        from ._private_bits import CONSTANT
        """,
    "sample_plugin/_private_bits.py": "CONSTANT = 1\n",
    "sample_plugin/internal/__init__.py": "",
    "sample_plugin/internal/engine.py": """
        from .. import _helpers
        from ..internal import engine as me
        def run():
            return _helpers
        """,
}


def _seen(report):
    return [(f.kind, f.module, f.imported, f.file, f.line) for f in report.findings]


def test_a_plugin_that_keeps_the_rules_is_kept(make_plugin):
    report = lint_path(make_plugin(GOOD_PLUGIN))

    assert report.ok, report.findings
    assert report.findings == []
    assert report.plugin == "agentkit-tools-sample"
    assert report.version == "0.3.1"
    assert report.files == 5


@pytest.mark.parametrize(
    ("statement", "imported"),
    [
        ("import agentkit.host", "agentkit.host"),
        ("from agentkit.host import Agent", "agentkit.host"),
        ("from agentkit.host._registry import Registry", "agentkit.host._registry"),
        ("from agentkit import host", "agentkit.host"),
        ("import agentkit.lint", "agentkit.lint"),
        ("from agentkit.conformance import suite", "agentkit.conformance"),
        ("import agentkit", "agentkit"),
        ("from agentkit.plugin_api import _tools", "agentkit.plugin_api._tools"),
        ("import agentkit.plugin_api._tools", "agentkit.plugin_api._tools"),
        ("from agentkit.plugin_api._tools import Tool", "agentkit.plugin_api._tools"),
        ("from agentkit.plugin_api import _private_name", "agentkit.plugin_api._private_name"),
        ("from agentkit.plugin_api.hookspecs import _impl", "agentkit.plugin_api.hookspecs._impl"),
    ],
)
def test_anything_of_ours_but_the_public_plugin_api_is_forbidden(make_plugin, statement, imported):
    project = make_plugin(
        {
            "sample_plugin/__init__.py": "import os\n",
            "sample_plugin/tools.py": f"# tools\nimport os\n{statement}\n",
        }
    )

    report = lint_path(project)

    assert not report.ok
    assert _seen(report) == [
        ("forbidden-import", "sample_plugin.tools", imported, "src/sample_plugin/tools.py", 3)
    ]
    assert "agentkit.plugin_api" in report.findings[0].message


def test_a_namespace_plugin_owns_its_portion_not_the_whole_namespace(make_plugin):
    """A third-party plugin shipped as agentkit.contrib_x may import its own modules, but
    owning one portion of the namespace gives it no licence to the host's."""
    project = make_plugin(
        {
            "agentkit/contrib_x/__init__.py": """
                from agentkit.contrib_x import helpers
                from agentkit import contrib_x
                from . import helpers as again
                """,
            "agentkit/contrib_x/helpers.py": "from agentkit import host\n",
        }
    )

    report = lint_path(project)

    assert _seen(report) == [
        (
            "forbidden-import",
            "agentkit.contrib_x.helpers",
            "agentkit.host",
            "src/agentkit/contrib_x/helpers.py",
            1,
        )
    ]


def test_a_plugin_api_import_needs_agentkit_plugin_api_declared(make_plugin):
    project = make_plugin(
        {"sample_plugin/__init__.py": "from agentkit.plugin_api import Tool\n"},
        dependencies=("pluggy",),
    )

    report = lint_path(project)

    assert _seen(report) == [
        (
            "undeclared-dependency",
            "sample_plugin",
            "agentkit.plugin_api",
            "src/sample_plugin/__init__.py",
            1,
        )
    ]
    assert "agentkit-plugin-api" in report.findings[0].message
