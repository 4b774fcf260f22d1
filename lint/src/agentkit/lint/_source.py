"""Find a plugin's source files and metadata without importing anything of it.

This module reads source directories (a ``pyproject.toml`` with a ``src/`` or flat
layout, or a bare package directory); :mod:`._installed` reads installed distributions.
Both produce a :class:`PluginSource`: the files with the dotted module each one is, the
plugin's own packages (its business, whatever they import of each other), and its
declared requirements.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ._errors import LintUsageError

# Directories never treated as plugin code when walking a source tree.
_SKIPPED_DIRS = frozenset(
    {
        "tests",
        "test",
        "testing",
        "docs",
        "doc",
        "examples",
        "build",
        "dist",
        "venv",
        "node_modules",
        "site-packages",
        "__pycache__",
    }
)
# Top-level scripts of a flat-layout project that are build or tooling files.
_SKIPPED_TOP_MODULES = frozenset({"setup", "conftest", "noxfile", "fabfile", "tasks"})


@dataclass(frozen=True)
class SourceFile:
    """One Python file of a plugin.

    :param path: where it is on disk.
    :param display: the path shown in findings (relative to the source root).
    :param module: the dotted module name the file is.
    :param is_package: True for an ``__init__.py``.
    """

    path: Path
    display: str
    module: str
    is_package: bool


@dataclass
class PluginSource:
    """What the lint needs to know about one plugin before reading its imports."""

    name: str
    version: str | None
    location: str
    files: list[SourceFile] = field(default_factory=list)
    own_packages: set[str] = field(default_factory=set)
    requirements: list[str] = field(default_factory=list)
    # Set when the requirements cannot be known (a bare package directory, dynamic
    # dependencies): every third-party import is then undeclared, and this says why.
    requirements_unknown: str = ""
    allow: list[str] = field(default_factory=list)
    # Where the declared allowances live, for pointing at an unused one.
    allow_file: str = ""
    allow_text: str = ""
    entry_point_modules: set[str] = field(default_factory=set)


# -- walking directories ----------------------------------------------------------------


def is_identifier_path(parts: Iterable[str]) -> bool:
    return all(part.isidentifier() for part in parts)


def walk_package(directory: Path, module: str, root: Path) -> Iterator[SourceFile]:
    """Every ``.py`` file of the package in ``directory``, which is module ``module``."""
    for path in sorted(directory.rglob("*.py")):
        rel = path.relative_to(directory)
        parts = list(rel.with_suffix("").parts)
        # Inside a package every importable file is the plugin's code, tests/ and
        # build/ included: skipping one would pass code nobody read.
        if any(p.startswith(".") or p == "__pycache__" for p in parts[:-1]):
            continue
        if not is_identifier_path(parts):
            continue
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        dotted = ".".join([module, *parts])
        yield SourceFile(path, _display(path, root), dotted, is_package)


def _display(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def walk_source_root(root: Path, display_root: Path) -> tuple[list[SourceFile], set[str]]:
    """The packages and top-level modules directly importable from ``root``.

    A directory with ``__init__.py`` is a package; one without is descended into only to
    find packages inside it (a PEP 420 namespace such as ``agentkit/``), so a loose
    ``scripts/`` folder is not mistaken for plugin code. Returns the files and the own
    packages, namespace portions named in full (``agentkit.lint``, never ``agentkit``).
    """
    files: list[SourceFile] = []
    own: set[str] = set()

    def visit(directory: Path, prefix: list[str]) -> None:
        for child in sorted(directory.iterdir()):
            name = child.name
            if child.is_dir():
                if name in _SKIPPED_DIRS or name.startswith(".") or not name.isidentifier():
                    continue
                if (child / "__init__.py").is_file():
                    module = ".".join([*prefix, name])
                    own.add(module)
                    files.extend(walk_package(child, module, display_root))
                else:
                    visit(child, [*prefix, name])
            elif not prefix and child.suffix == ".py" and child.stem.isidentifier():
                if child.stem in _SKIPPED_TOP_MODULES:
                    continue
                own.add(child.stem)
                files.append(SourceFile(child, _display(child, display_root), child.stem, False))

    if root.is_dir():
        visit(root, [])
    return files, own


# -- source directories -----------------------------------------------------------------


def read_pyproject(path: Path) -> tuple[dict, str]:
    text = path.read_text(encoding="utf-8")
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as exc:
        raise LintUsageError(
            f"{path}: not valid TOML ({exc}); fix the file and lint again"
        ) from exc


def allowances_of(data: dict, pyproject: Path) -> list[str]:
    """The ``[tool.agentkit.lint] allow`` list of a parsed ``pyproject.toml``."""
    allow = data.get("tool", {}).get("agentkit", {}).get("lint", {}).get("allow", [])
    if not isinstance(allow, list) or not all(isinstance(a, str) for a in allow):
        raise LintUsageError(
            f"{pyproject}: [tool.agentkit.lint] allow must be a list of module names, "
            'e.g. allow = ["pydantic_core"]'
        )
    return allow


def _apply_pyproject(source: PluginSource, pyproject: Path) -> None:
    data, text = read_pyproject(pyproject)
    project = data.get("project", {})
    source.name = project.get("name", source.name)
    source.version = project.get("version", source.version)
    requirements = list(project.get("dependencies", []))
    # An optional extra is a declaration too: an import guarded for an extra is declared.
    for extra in project.get("optional-dependencies", {}).values():
        requirements.extend(extra)
    source.requirements = requirements
    if "dependencies" in project.get("dynamic", []):
        source.requirements_unknown = (
            f"{pyproject.name} declares its dependencies as dynamic, which only a build "
            "resolves: lint the installed distribution instead"
        )
    for group in project.get("entry-points", {}).values():
        for value in group.values():
            module = str(value).partition(":")[0].split("[")[0].strip()
            if module:
                source.entry_point_modules.add(module)
    source.allow = allowances_of(data, pyproject)
    source.allow_file = pyproject.name
    source.allow_text = text


def project_roots(project: Path) -> list[Path]:
    src = project / "src"
    return [src] if src.is_dir() else [project]


def load_path(path: str | Path) -> PluginSource:
    """Describe the plugin in a source directory or a package directory."""
    directory = Path(path).expanduser().resolve()
    if not directory.is_dir():
        raise LintUsageError(
            f"{path}: no such directory; pass a source directory with a pyproject.toml, "
            "a package directory, or an installed distribution's name"
        )
    if (directory / "pyproject.toml").is_file():
        source = PluginSource(directory.name, None, str(directory))
        _apply_pyproject(source, directory / "pyproject.toml")
        for root in project_roots(directory):
            files, own = walk_source_root(root, directory)
            source.files.extend(files)
            source.own_packages |= own
        return source
    if (directory / "__init__.py").is_file():
        return _load_package_directory(directory)
    raise LintUsageError(
        f"{path}: neither a source directory (no pyproject.toml) nor a package directory "
        "(no __init__.py); point at the project or the package"
    )


def _load_package_directory(directory: Path) -> PluginSource:
    # The nearest pyproject.toml above it declares the requirements, if there is one.
    project = next((p for p in directory.parents if (p / "pyproject.toml").is_file()), None)
    if project is not None:
        root = next((r for r in project_roots(project) if directory.is_relative_to(r)), project)
        module = ".".join(directory.relative_to(root).parts)
        source = PluginSource(directory.name, None, str(directory))
        _apply_pyproject(source, project / "pyproject.toml")
        display_root = project
    else:
        top = directory
        while (top.parent / "__init__.py").is_file():
            top = top.parent
        module = ".".join(directory.relative_to(top.parent).parts)
        source = PluginSource(directory.name, None, str(directory))
        source.requirements_unknown = (
            "no pyproject.toml above this package declares its requirements: lint the "
            "project directory or the installed distribution instead"
        )
        display_root = top.parent
    source.files = list(walk_package(directory, module, display_root))
    source.own_packages = {module}
    return source
