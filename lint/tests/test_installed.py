"""Linting installed distributions: wheels (RECORD) and editable installs (.pth,
setuptools finders, direct_url.json), found by name with importlib.metadata.

Real distributions of this environment are linted as they are; the other install
shapes are laid out as dist-info directories in a temporary directory put on
sys.path for the test, so nothing is installed into the environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agentkit.lint import lint_distribution


def test_a_wheel_installed_distribution_is_read_from_its_record():
    """pluggy is installed from a wheel: its files come from RECORD."""
    report = lint_distribution("pluggy")

    assert report.plugin == "pluggy"
    assert report.files >= 5
    assert report.imports > 0
    assert report.could_not_lint == []
    assert report.ok, report.findings


def test_an_editable_workspace_install_is_read_through_its_pth_file():
    """agentkit-tools-files is installed editable by uv: RECORD lists only a .pth
    naming its src/ directory. Whatever its code says today, it must have been read."""
    report = lint_distribution("agentkit_tools_files")  # any spelling of the name

    assert report.plugin == "agentkit-tools-files"
    assert report.source.endswith("plugins/tools_files/src")
    assert report.files >= 1
    assert report.could_not_lint == []


def test_a_namespace_portion_owns_only_itself():
    """agentkit-plugin-api is the agentkit.plugin_api portion of the namespace: its
    private modules are its own business, and the portion is all it owns."""
    report = lint_distribution("agentkit-plugin-api")

    assert report.files >= 5
    assert report.ok, report.findings


# -- install shapes laid out by hand --------------------------------------------------------


def _dist_info(site: Path, name: str, record: list[str], *, requires=(), extra_files=None):
    info = site / f"{name.replace('-', '_')}-1.2.0.dist-info"
    info.mkdir(parents=True)
    metadata = ["Metadata-Version: 2.1", f"Name: {name}", "Version: 1.2.0"]
    metadata += [f"Requires-Dist: {r}" for r in requires]
    (info / "METADATA").write_text("\n".join(metadata) + "\n")
    for filename, text in (extra_files or {}).items():
        (info / filename).write_text(text)
    rows = [*record, f"{info.name}/METADATA,,", f"{info.name}/RECORD,,"]
    (info / "RECORD").write_text("\n".join(f"{r},," if "," not in r else r for r in rows) + "\n")
    return info


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


PLUGIN_FILES = {
    "shape_plugin/__init__.py": "from agentkit.plugin_api import Tool\nfrom . import _impl\n",
    "shape_plugin/_impl.py": "import httpx\nfrom agentkit.host import Agent\n",
}
EXPECTED = [
    ("undeclared-dependency", "shape_plugin._impl", "httpx", 1),
    ("forbidden-import", "shape_plugin._impl", "agentkit.host", 2),
]


def _seen(report):
    return sorted((f.kind, f.module, f.imported, f.line) for f in report.findings)


@pytest.fixture
def site(tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    return site


def test_a_wheel_lists_its_modules_in_record(site):
    _write(site, PLUGIN_FILES)
    _dist_info(site, "shape-wheel", list(PLUGIN_FILES), requires=["agentkit-plugin-api>=0.1"])

    report = lint_distribution("shape-wheel")

    assert report.files == 2
    assert _seen(report) == sorted(EXPECTED)
    assert {f.file for f in report.findings} == {"shape_plugin/_impl.py"}


def test_an_editable_install_through_a_pth_file(site, tmp_path):
    src = tmp_path / "project" / "src"
    _write(src, PLUGIN_FILES)
    (site / "_shape_pth.pth").write_text(f"{src}\n")
    _dist_info(site, "shape-pth", ["_shape_pth.pth"], requires=["agentkit-plugin-api"])

    report = lint_distribution("shape-pth")

    assert report.files == 2
    assert _seen(report) == sorted(EXPECTED)


def test_an_editable_install_through_a_setuptools_finder(site, tmp_path):
    """setuptools' strict editable mode installs a finder module holding a MAPPING of
    package to directory; the lint reads the mapping as data and never runs the finder."""
    package_dir = tmp_path / "checkout" / "shape_plugin"
    _write(tmp_path / "checkout", PLUGIN_FILES)
    finder = "__editable___shape_finder_1_2_0_finder.py"
    (site / finder).write_text(
        f"import sys\nMAPPING = {{'shape_plugin': {str(package_dir)!r}}}\n"
        "raise SystemExit('a finder is never run by the lint')\n"
    )
    _dist_info(site, "shape-finder", [finder], requires=["agentkit-plugin-api"])

    report = lint_distribution("shape-finder")

    assert report.files == 2
    assert _seen(report) == sorted(EXPECTED)


def test_an_editable_install_known_only_by_direct_url(site, tmp_path):
    project = tmp_path / "project"
    _write(project / "src", PLUGIN_FILES)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "shape-url"\n\n[tool.agentkit.lint]\nallow = ["httpx"]\n'
    )
    direct_url = json.dumps({"url": project.as_uri(), "dir_info": {"editable": True}})
    _dist_info(site, "shape-url", [], extra_files={"direct_url.json": direct_url})

    report = lint_distribution("shape-url")

    assert report.files == 2
    # Its project's allowances apply; the plugin API import is undeclared in METADATA.
    assert _seen(report) == [
        ("forbidden-import", "shape_plugin._impl", "agentkit.host", 2),
        ("undeclared-dependency", "shape_plugin", "agentkit.plugin_api", 1),
    ]


def test_an_installed_distribution_without_source_is_reported(site):
    _dist_info(
        site,
        "shape-empty",
        [],
        extra_files={"entry_points.txt": "[agentkit.tools]\nshape = shape_plugin\n"},
    )

    report = lint_distribution("shape-empty")

    assert not report.ok
    assert [f.kind for f in report.could_not_lint] == ["no-source"]


def test_a_real_third_party_wheel_gets_findings_only_for_what_it_leaves_undeclared():
    """httpx 0.28.1, as installed from PyPI: it declares anyio, certifi, httpcore and idna,
    and also imports trio and sniffio (optionally, inside its ASGI transport) without
    declaring either. The lint must report exactly those two, at their lines."""
    import importlib_metadata

    if importlib_metadata.version("httpx") != "0.28.1":
        pytest.skip("the expectations below were read from httpx 0.28.1")

    report = lint_distribution("httpx")

    assert report.files >= 20
    assert {(f.kind, f.imported) for f in report.findings} == {
        ("undeclared-dependency", "trio"),
        ("undeclared-dependency", "sniffio"),
    }
    assert {f.file for f in report.findings} == {"httpx/_transports/asgi.py"}


def test_a_distribution_whose_record_cannot_be_read_is_reported_not_raised(tmp_path):
    """An undecodable RECORD makes importlib.metadata.packages_distributions() raise for
    the whole environment; the damaged plugin is reported, and others still lint."""
    site = tmp_path / "site-packages"
    info = _dist_info(site, "shape-damaged", [])
    (info / "RECORD").write_bytes(b"\xff\xfe,,\n")
    code = (
        "from agentkit.lint import lint_distribution\n"
        "print([f.kind for f in lint_distribution('shape-damaged').findings])\n"
        "print(lint_distribution('pluggy').ok)\n"
    )

    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(site)},
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["['no-source']", "True"]


def test_a_module_that_is_only_an_extension_file_is_known_by_its_distribution(tmp_path, make_plugin):
    """A distribution named unlike what it ships, whose modules are compiled files only (a
    top-level extension module, a directory holding one): the index still says which
    distribution provides them, so a plugin that declares it is kept and one that does not
    is told its name. The index is built once per process: a new process sees this site."""
    import importlib.machinery

    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    site = tmp_path / "site-packages"
    compiled = [f"fastext{suffix}", f"nativepkg/_core{suffix}"]
    _write(site, {name: "not a real extension: the lint never loads it" for name in compiled})
    _dist_info(site, "shape-native", compiled)
    imports = "import fastext\nfrom nativepkg import _core\n"
    declares = make_plugin({"declares_it/__init__.py": imports}, name="declares-it",
                           dependencies=("shape-native",))
    forgets = make_plugin({"forgets_it/__init__.py": imports}, name="forgets-it", dependencies=())
    code = (
        "import sys\n"
        "from agentkit.lint import lint_path\n"
        "for project in sys.argv[1:]:\n"
        "    print(sorted(f.message.split(';')[0] for f in lint_path(project).findings))\n"
    )

    result = subprocess.run(
        [sys.executable, "-c", code, str(declares), str(forgets)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(site)},
        timeout=600,
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "[]",
        "['`from nativepkg import _core` needs shape-native', '`import fastext` needs shape-native']",
    ]
