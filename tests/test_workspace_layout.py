"""The workspace's layout by kind and its one naming rule (docs/decisions/0038-layout-by-kind.md).

The members are read from ``uv.lock``, which uv writes from the workspace and ``make`` keeps in
step (``uv sync --locked``): each member's folder, ``pyproject.toml`` and source are then held
to the rule a newcomer reads in docs/architecture.md.
"""

from __future__ import annotations

import ast
import importlib.util
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORE = {"plugin_api", "host", "lint", "conformance", "testing"}
#: A plugin's folder starts with its category, the entry-point group it registers in.
CATEGORIES = {"provider": "agentkit.providers", "tools": "agentkit.tools", "skills": "agentkit.skills",
              "hooks": "agentkit.hooks"}
KINDS = ("plugins", "extensions", "apps")
#: Names other projects hold on PyPI: a distribution of ours under one would install their code.
TAKEN = {"agentkit", "agentkit-mcp"}


def locked_members() -> dict[str, Path]:
    """Each workspace member's distribution name and folder, as uv locked them."""
    lock = tomllib.loads((REPO / "uv.lock").read_text(encoding="utf-8"))
    names = set(lock["manifest"]["members"])
    return {package["name"]: REPO / package["source"]["editable"]
            for package in lock["package"] if package["name"] in names and "editable" in package["source"]}


MEMBERS = locked_members()


def project(folder: Path) -> dict:
    return tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))


def wheel_packages(folder: Path) -> list[str]:
    """The import packages the member's wheel ships, dotted (``agentkit`` is a namespace: its
    subpackages are the member's own)."""
    packages = []
    for path in project(folder)["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]:
        root = folder / path
        if (root / "__init__.py").is_file():
            packages.append(root.name)
        else:
            packages += [f"{root.name}.{init.parent.name}" for init in sorted(root.glob("*/__init__.py"))]
    return packages


def expected_names(folder: Path) -> tuple[str, str]:
    """The distribution and import package the rule gives the member in ``folder``."""
    name = folder.name
    if folder.parent == REPO and name in CORE:
        return "agentkit-" + name.replace("_", "-"), "agentkit." + name
    if folder.parent.name == "examples":  # a user's project: its folder is free, its names are not
        dist = project(folder)["project"]["name"]
        return dist, dist.replace("-", "_")
    return "agentkit-" + name.replace("_", "-"), "agentkit_" + name


def agentkit_imports(folder: Path) -> set[str]:
    """The first two parts of each ``agentkit.*`` module the member's source imports."""
    found = set()
    for path in (folder / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                       else [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level
                       else [])
            found |= {".".join(module.split(".")[:2]) for module in modules if module.startswith("agentkit.")}
    return found


def test_every_member_has_its_place():
    places = {member.relative_to(REPO).parts[0] if member.parent != REPO else "core" for member in MEMBERS.values()}
    assert places <= {"core", *KINDS, "examples"}, places
    assert len(MEMBERS) >= 17


@pytest.mark.parametrize("dist", sorted(MEMBERS))
def test_the_distribution_and_its_import_package_follow_the_naming_rule(dist):
    folder = MEMBERS[dist]
    expected_dist, expected_package = expected_names(folder)
    where = folder.relative_to(REPO)
    assert dist == expected_dist, f"{where}: name the distribution {expected_dist!r} (or the folder after it)"
    assert dist not in TAKEN, f"{dist!r} belongs to another project on PyPI: choose another name"
    assert expected_package in wheel_packages(folder), f"{where}: its import package is {expected_package!r}"


@pytest.mark.parametrize("dist", sorted(d for d, folder in MEMBERS.items() if folder.parent.name in ("plugins", "examples")))
def test_a_plugins_name_starts_with_the_category_it_registers_in(dist):
    groups = set(project(MEMBERS[dist]).get("project", {}).get("entry-points", {}))
    category = dist.removeprefix("agentkit-").split("-")[0]
    assert CATEGORIES.get(category) in groups, (
        f"{dist}: a plugin is named agentkit-<category>-<name>, <category> one of {sorted(CATEGORIES)} "
        f"for the entry-point group it registers in (it registers in {sorted(groups)})")


@pytest.mark.parametrize("dist", sorted(d for d, folder in MEMBERS.items() if folder.parent.name in KINDS))
def test_each_kind_imports_what_makes_it_that_kind(dist):
    """Plugins import only the plugin API of agentkit's core; extensions and applications embed the host."""
    folder = MEMBERS[dist]
    imported = agentkit_imports(folder)
    if folder.parent.name == "plugins":
        assert imported <= {"agentkit.plugin_api"}, f"{dist} imports {sorted(imported)}: move it to extensions/"
    else:
        assert "agentkit.host" in imported, f"{dist} does not embed the host: move it to plugins/"


def test_every_member_is_type_checked():
    spec = importlib.util.spec_from_file_location("typecheck", REPO / "scripts" / "typecheck.py")
    assert spec is not None and spec.loader is not None
    typecheck = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(typecheck)
    with_source = {folder / "src" for folder in MEMBERS.values() if (folder / "src").is_dir()}
    assert set(typecheck.source_roots()) == with_source
