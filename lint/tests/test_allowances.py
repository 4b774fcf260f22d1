"""Allowances excuse named imports; one that excuses nothing is itself an error."""

from __future__ import annotations

from agentkit.lint import lint_path

FILES = {"sample_plugin/__init__.py": "import os\nimport pydantic_core\n"}


def _seen(report):
    return [(f.kind, f.imported, f.file, f.line) for f in report.findings]


def test_a_declared_allowance_excuses_the_import_it_names(make_plugin):
    """pydantic_core arrives with pydantic; a plugin may say so instead of declaring it."""
    project = make_plugin(FILES, dependencies=("pydantic",), allow=["pydantic_core"])

    report = lint_path(project)

    assert report.ok
    assert report.findings == []


def test_an_allowance_covers_submodules_of_the_module_it_names(make_plugin):
    project = make_plugin(
        {"sample_plugin/__init__.py": "from pydantic_core.core_schema import any_schema\n"},
        allow=["pydantic_core"],
    )

    assert lint_path(project).findings == []


def test_an_unused_allowance_in_pyproject_is_an_error_at_its_line(make_plugin):
    project = make_plugin(FILES, allow=["pydantic_core", "requests"])

    report = lint_path(project)

    lines = (project / "pyproject.toml").read_text().splitlines()
    line = lines.index('    "requests",') + 1
    assert not report.ok
    assert _seen(report) == [("unused-allowance", "requests", "pyproject.toml", line)]
    assert "remove it" in report.findings[0].message


def test_allowances_passed_to_the_api_work_the_same_way(make_plugin):
    project = make_plugin(FILES)

    used = lint_path(project, allow=["pydantic_core"])
    unused = lint_path(project, allow=["pydantic_core", "yaml"])

    assert used.ok
    assert _seen(unused) == [("unused-allowance", "yaml", "<allow>", 0)]


def test_an_allowance_does_not_excuse_a_module_that_merely_shares_a_prefix(make_plugin):
    project = make_plugin(FILES, allow=["pydantic"])

    assert [(kind, imported) for kind, imported, _, _ in _seen(lint_path(project))] == [
        ("unused-allowance", "pydantic"),
        ("undeclared-dependency", "pydantic_core"),
    ]


def test_an_allowance_may_excuse_a_forbidden_import_and_the_report_stays_explicit(make_plugin):
    project = make_plugin(
        {"sample_plugin/__init__.py": "from agentkit.conformance import run\n"},
        allow=["agentkit.conformance"],
    )

    assert lint_path(project).findings == []


def test_an_allowance_for_a_submodule_excuses_importing_it_from_its_parent(make_plugin):
    project = make_plugin(
        {"sample_plugin/__init__.py": "from google import auth\n"}, allow=["google.auth"]
    )

    assert lint_path(project).findings == []
