"""Every third-party import is declared; the standard library and the plugin's own
packages need no declaration."""

from __future__ import annotations

from agentkit.lint import lint_path

API = "agentkit-plugin-api>=0.1,<0.2"


def _undeclared(report):
    return [
        (f.module, f.imported, f.file, f.line)
        for f in report.findings
        if f.kind == "undeclared-dependency"
    ]


def test_an_undeclared_third_party_import_is_a_finding(make_plugin):
    project = make_plugin(
        {
            "sample_plugin/__init__.py": "from . import net\n",
            "sample_plugin/net.py": "import json\nimport httpx\n",
        }
    )

    report = lint_path(project)

    assert not report.ok
    assert _undeclared(report) == [("sample_plugin.net", "httpx", "src/sample_plugin/net.py", 2)]
    assert "httpx" in report.findings[0].message
    assert "[project].dependencies" in report.findings[0].message


def test_the_same_import_declared_is_kept(make_plugin):
    project = make_plugin(
        {"sample_plugin/__init__.py": "import httpx\nfrom httpx import Client\n"},
        dependencies=(API, "httpx>=0.27"),
    )

    assert lint_path(project).findings == []


def test_an_import_name_maps_to_its_distribution_name(make_plugin):
    """`yaml` is provided by PyYAML: declared under any spelling of that name it passes,
    and undeclared the finding names the distribution to add."""
    files = {"sample_plugin/__init__.py": "import yaml\n"}

    declared = lint_path(make_plugin(files, name="declared", dependencies=(API, "PyYAML>=6")))
    undeclared = lint_path(make_plugin(files, name="undeclared"))

    assert declared.findings == []
    assert _undeclared(undeclared) == [
        ("sample_plugin", "yaml", "src/sample_plugin/__init__.py", 1)
    ]
    assert "pyyaml" in undeclared.findings[0].message


def test_declaring_the_import_name_instead_of_the_distribution_is_not_a_declaration(
    make_plugin,
):
    project = make_plugin(
        {"sample_plugin/__init__.py": "import yaml\n"}, dependencies=(API, "yaml")
    )

    assert _undeclared(lint_path(project)) == [
        ("sample_plugin", "yaml", "src/sample_plugin/__init__.py", 1)
    ]


def test_a_requirement_of_an_optional_extra_counts_as_declared(make_plugin):
    project = make_plugin(
        {
            "sample_plugin/__init__.py": "try:\n    import yaml\nexcept ImportError:\n    yaml = None\n"
        },
        optional={"yaml": ["pyyaml"]},
    )

    assert lint_path(project).findings == []


def test_a_namespace_distribution_not_installed_here_is_matched_by_its_portion(make_plugin):
    """google.auth comes from google-auth: a guess from the top-level name alone ("google")
    would call every namespace-package import undeclared."""
    project = make_plugin(
        {"sample_plugin/__init__.py": "from google.auth import credentials\n"},
        dependencies=(API, "google-auth>=2"),
    )

    assert lint_path(project).findings == []


def test_standard_library_modules_need_no_declaration(make_plugin):
    project = make_plugin(
        {
            "sample_plugin/__init__.py": """
                from __future__ import annotations
                import asyncio, tomllib, importlib.metadata
                from concurrent.futures import ThreadPoolExecutor
                import xml.etree.ElementTree as ET
                """
        }
    )

    assert lint_path(project).findings == []


def test_another_plugins_internals_are_third_party_not_own(make_plugin):
    """Only the plugin's own packages are its business; another plugin's `internal`
    module is an undeclared third-party import like any other."""
    project = make_plugin(
        {
            "sample_plugin/__init__.py": "from .internal import x\n",
            "sample_plugin/internal/__init__.py": "x = 1\n",
            "sample_plugin/other.py": "from agentkit_tools_other.internal import helper\n",
        }
    )

    assert _undeclared(lint_path(project)) == [
        ("sample_plugin.other", "agentkit_tools_other.internal", "src/sample_plugin/other.py", 1)
    ]


def test_a_flat_layout_project_is_read_too(make_plugin):
    project = make_plugin(
        {"sample_plugin/__init__.py": "import httpx\n", "tests/test_x.py": "import pytest\n"},
        layout="flat",
    )

    report = lint_path(project)

    assert _undeclared(report) == [("sample_plugin", "httpx", "sample_plugin/__init__.py", 1)]
    assert report.files == 1  # the project's tests/ is not plugin code


def test_a_well_known_import_name_maps_even_when_its_distribution_is_not_installed(
    make_plugin,
):
    """Neither Pillow nor beautifulsoup4 is installed where the lint runs; the import
    names PIL and bs4 still map to them."""
    project = make_plugin(
        {"sample_plugin/__init__.py": "from PIL import Image\nimport bs4\n"},
        dependencies=(API, "Pillow>=10", "beautifulsoup4"),
    )

    assert lint_path(project).findings == []


def test_every_module_inside_a_package_is_read_whatever_its_directory_is_called(make_plugin):
    """A subpackage called build/ or tests/ is importable plugin code: skipping it would
    pass code nobody read."""
    project = make_plugin(
        {
            "sample_plugin/__init__.py": "",
            "sample_plugin/build/__init__.py": "import httpx\n",
            "sample_plugin/tests/helpers.py": "import yaml\n",
        }
    )

    assert sorted(f.imported for f in lint_path(project).findings) == ["httpx", "yaml"]


def test_dynamic_dependencies_are_not_guessed_and_the_message_says_so(tmp_path):
    project = tmp_path / "dyn"
    (project / "src" / "dyn_plugin").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "dyn"\ndynamic = ["version", "dependencies"]\n'
    )
    (project / "src" / "dyn_plugin" / "__init__.py").write_text("import httpx\n")

    report = lint_path(project)

    (found,) = report.findings
    assert (report.plugin, report.version, found.imported) == ("dyn", None, "httpx")
    assert "dynamic" in found.message
