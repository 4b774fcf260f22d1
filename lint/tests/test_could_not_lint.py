"""What the lint cannot read is reported, never passed; what cannot import is still read."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agentkit.lint import LintUsageError, lint_distribution, lint_path


def test_a_file_that_does_not_parse_is_reported_with_its_line(make_plugin):
    project = make_plugin(
        {
            "sample_plugin/__init__.py": "import os\n",
            "sample_plugin/broken.py": "import json\n\ndef run(:\n    pass\n",
            "sample_plugin/other.py": "from agentkit.host import Agent\n",
        }
    )

    report = lint_path(project)

    assert not report.ok
    (syntax,) = report.could_not_lint
    assert (syntax.kind, syntax.module, syntax.file, syntax.line) == (
        "syntax-error",
        "sample_plugin.broken",
        "src/sample_plugin/broken.py",
        3,
    )
    assert syntax.severity == "error"
    # The other files are still linted.
    assert [f.imported for f in report.findings if f.kind == "forbidden-import"] == [
        "agentkit.host"
    ]


def test_an_unused_allowance_is_not_claimed_while_a_file_could_not_be_read(make_plugin):
    """The import the allowance excuses may be in the file that did not parse."""
    project = make_plugin(
        {"sample_plugin/__init__.py": "import pydantic_core\nclass :\n"}, allow=["pydantic_core"]
    )

    assert [f.kind for f in lint_path(project).findings] == ["syntax-error"]


def test_a_plugin_with_no_source_is_reported_not_passed(make_plugin):
    project = make_plugin({})

    report = lint_path(project)

    assert not report.ok
    (found,) = report.could_not_lint
    assert (found.kind, found.module) == ("no-source", "agentkit-tools-sample")


def test_an_entry_point_without_source_is_reported(make_plugin):
    project = make_plugin(
        {"sample_plugin/__init__.py": ""}, entry_point="sample_plugin.tools:plugin"
    )

    report = lint_path(project)

    assert [(f.kind, f.imported) for f in report.findings] == [("no-source", "sample_plugin.tools")]


def test_a_plugin_that_cannot_import_or_build_against_us_is_still_linted(make_plugin):
    """The lint reads; it never imports. A module that raises on import, or that uses a
    name this plugin API does not have, is linted all the same, and no module of the
    plugin ends up loaded."""
    project = make_plugin(
        {
            "sample_plugin/__init__.py": """
                raise SystemExit("this module must never be imported")
                """,
            "sample_plugin/tools.py": """
                from agentkit.plugin_api import NameFromAFutureVersion
                from agentkit.host._internal import thing
                import definitely_not_installed_anywhere
                """,
        }
    )
    code = (
        "import sys\n"
        "from agentkit.lint import lint_path\n"
        f"report = lint_path({str(project)!r})\n"
        "print(sorted(f.imported for f in report.findings))\n"
        "from agentkit.lint import lint_distribution\n"
        "lint_distribution('agentkit-tools-files')\n"
        "prefixes = ('sample_plugin', 'agentkit.host', 'agentkit_')\n"
        "print(sorted(m for m in sys.modules if m.startswith(prefixes)))\n"
    )

    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )

    found, loaded = result.stdout.splitlines()
    assert found == "['agentkit.host._internal', 'definitely_not_installed_anywhere']"
    assert loaded == "[]"


def test_a_package_directory_without_a_project_is_linted_and_says_what_is_missing(tmp_path):
    package = tmp_path / "loose_plugin"
    package.mkdir()
    (package / "__init__.py").write_text("import httpx\nfrom . import sub\n")
    (package / "sub.py").write_text("from agentkit.plugin_api import Tool\n")

    report = lint_path(package)

    assert report.plugin == "loose_plugin"
    assert [(f.kind, f.imported) for f in report.findings] == [
        ("undeclared-dependency", "httpx"),
        ("undeclared-dependency", "agentkit.plugin_api"),
    ]
    assert "no pyproject.toml" in report.findings[0].message


def test_a_package_directory_inside_a_project_uses_the_projects_metadata(make_plugin):
    project = make_plugin({"sample_plugin/__init__.py": "from agentkit.plugin_api import Tool\n"})

    report = lint_path(project / "src" / "sample_plugin")

    assert (report.plugin, report.version, report.findings) == (
        "agentkit-tools-sample",
        "0.3.1",
        [],
    )


@pytest.mark.parametrize("call", [lambda p: lint_path(p / "nope"), lambda p: lint_path(p)])
def test_a_path_that_is_no_plugin_is_a_usage_error(tmp_path, call):
    with pytest.raises(LintUsageError, match=r"pyproject\.toml"):
        call(tmp_path)


def test_an_unknown_distribution_is_a_usage_error():
    with pytest.raises(LintUsageError, match="no installed distribution"):
        lint_distribution("agentkit-no-such-plugin")
