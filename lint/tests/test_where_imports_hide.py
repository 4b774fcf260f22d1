"""The lint sees imports wherever they are written, and import-by-name calls too."""

from __future__ import annotations

import pytest

from agentkit.lint import lint_path

HIDING_PLACES = {
    "inside a function": """
        def load():
            import agentkit.host
            return agentkit.host
        """,
    "inside a method": """
        class Loader:
            def load(self):
                from agentkit.host import Agent
        """,
    "under TYPE_CHECKING": """
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from agentkit.host import Agent
        """,
    "in a try block": """
        try:
            import agentkit.host
        except ImportError:
            pass
        """,
    "importlib.import_module with a literal": """
        import importlib
        def load():
            return importlib.import_module("agentkit.host")
        """,
    "importlib imported under another name": """
        import importlib as il
        mod = il.import_module("agentkit.host")
        """,
    "import_module imported after the call": """
        def load():
            return load_module("agentkit.host")
        from importlib import import_module as load_module
        """,
    "importlib.import_module where importlib arrives from elsewhere": """
        from typing import *
        mod = importlib.import_module("agentkit.host")
        """,
    "__import__ with a literal": """
        mod = __import__("agentkit.host")
        """,
    "__import__ with a fromlist": """
        mod = __import__("agentkit", fromlist=["host"])
        """,
    "a relative import_module anchored at the package": """
        import importlib
        mod = importlib.import_module("..host", __package__)
        """,
}


@pytest.mark.parametrize("where", list(HIDING_PLACES))
def test_a_forbidden_import_is_found_wherever_it_hides(make_plugin, where):
    files = {"agentkit/contrib_x/__init__.py": HIDING_PLACES[where]}
    report = lint_path(make_plugin(files))

    assert not report.ok
    assert {(f.module, f.imported) for f in report.errors} <= {
        ("agentkit.contrib_x", "agentkit.host")
    }
    kinds = {f.kind for f in report.errors}
    assert kinds in ({"forbidden-import"}, {"relative-import-escape"})


def test_an_undeclared_import_inside_a_function_is_found_at_its_line(make_plugin):
    project = make_plugin(
        {"sample_plugin/__init__.py": "import os\n\ndef fetch():\n    import httpx\n"}
    )

    (found,) = lint_path(project).findings
    assert (found.kind, found.imported, found.line) == ("undeclared-dependency", "httpx", 4)


def test_syntax_newer_than_this_python_still_gets_each_import_at_its_line(make_plugin):
    """LibCST reads what this Python's own parser may not (a 3.12 ``type`` statement on 3.11)."""
    project = make_plugin(
        {"sample_plugin/__init__.py": "type Pair = tuple[int, int]\n\nimport os\nimport httpx\n"}
    )

    (found,) = lint_path(project).findings
    assert (found.kind, found.imported, found.line) == ("undeclared-dependency", "httpx", 4)


def test_a_literal_import_module_of_a_declared_module_is_kept(make_plugin):
    project = make_plugin(
        {
            "sample_plugin/__init__.py": """
                import importlib
                json = importlib.import_module("json")
                api = importlib.import_module("agentkit.plugin_api")
                sibling = importlib.import_module(".helpers", __name__)
                """,
            "sample_plugin/helpers.py": "",
        }
    )

    assert lint_path(project).findings == []


@pytest.mark.parametrize(
    "call",
    [
        "importlib.import_module(name)",
        'importlib.import_module(f"agentkit.{name}")',
        'importlib.import_module("agentkit." + name)',
        "__import__(name)",
        'importlib.import_module(".x", package=name)',
    ],
)
def test_a_name_computed_at_run_time_is_reported_unverifiable(make_plugin, call):
    """Unverifiable is a warning: the plugin is kept, and the report says what could
    not be checked rather than calling it clean."""
    project = make_plugin(
        {"sample_plugin/__init__.py": f"import importlib\n\ndef load(name):\n    return {call}\n"}
    )

    report = lint_path(project)

    assert report.ok
    (found,) = report.findings
    assert (found.kind, found.severity, found.imported, found.line) == (
        "unverifiable-import",
        "warning",
        "<dynamic>",
        4,
    )
    assert call in found.message
