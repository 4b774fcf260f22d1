"""Find a plugin's source files and metadata without importing anything of it.

Two kinds of input:

* an installed distribution, found by name with importlib.metadata. A wheel lists its
  files in RECORD. An editable install lists almost nothing there: the code is reached
  through a ``.pth`` file naming a source directory (uv, hatchling), a setuptools
  ``__editable__`` finder whose mapping we read as data, or, failing both, the project
  directory in ``direct_url.json``;
* a source directory with a ``pyproject.toml`` (``src/`` or flat layout), or a bare
  package directory.

The result is a :class:`PluginSource`: the files with the dotted module each one is, the
plugin's own packages (its business, whatever they import of each other), and its
declared requirements.
"""

from __future__ import annotations

import ast
import json
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

import importlib_metadata

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
# The namespace of the core distributions: never a plugin's own package as a whole.
_OURS = "agentkit"


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
    # False when nothing declares requirements (a bare package directory): every
    # third-party import is then undeclared, and the message says why.
    requirements_known: bool = True
    allow: list[str] = field(default_factory=list)
    # Where the declared allowances live, for pointing at an unused one.
    allow_file: str = ""
    allow_text: str = ""
    entry_point_modules: set[str] = field(default_factory=set)


# -- walking directories ----------------------------------------------------------------


def _is_identifier_path(parts: Iterable[str]) -> bool:
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
        if not _is_identifier_path(parts):
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


def _read_pyproject(path: Path) -> tuple[dict, str]:
    text = path.read_text(encoding="utf-8")
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as exc:
        raise LintUsageError(
            f"{path}: not valid TOML ({exc}); fix the file and lint again"
        ) from exc


def _apply_pyproject(source: PluginSource, pyproject: Path) -> None:
    data, text = _read_pyproject(pyproject)
    project = data.get("project", {})
    source.name = project.get("name", source.name)
    source.version = project.get("version", source.version)
    requirements = list(project.get("dependencies", []))
    # An optional extra is a declaration too: an import guarded for an extra is declared.
    for extra in project.get("optional-dependencies", {}).values():
        requirements.extend(extra)
    source.requirements = requirements
    source.requirements_known = True
    for group in project.get("entry-points", {}).values():
        for value in group.values():
            module = str(value).partition(":")[0].split("[")[0].strip()
            if module:
                source.entry_point_modules.add(module)
    allow = data.get("tool", {}).get("agentkit", {}).get("lint", {}).get("allow", [])
    if not isinstance(allow, list) or not all(isinstance(a, str) for a in allow):
        raise LintUsageError(
            f"{pyproject}: [tool.agentkit.lint] allow must be a list of module names"
        )
    source.allow = allow
    source.allow_file = pyproject.name
    source.allow_text = text


def _project_roots(project: Path) -> list[Path]:
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
        for root in _project_roots(directory):
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
        root = next((r for r in _project_roots(project) if directory.is_relative_to(r)), project)
        module = ".".join(directory.relative_to(root).parts)
        source = PluginSource(directory.name, None, str(directory))
        _apply_pyproject(source, project / "pyproject.toml")
        display_root = project
    else:
        top = directory
        while (top.parent / "__init__.py").is_file():
            top = top.parent
        module = ".".join(directory.relative_to(top.parent).parts)
        source = PluginSource(directory.name, None, str(directory), requirements_known=False)
        display_root = top.parent
    source.files = list(walk_package(directory, module, display_root))
    source.own_packages = {module}
    return source


# -- installed distributions ------------------------------------------------------------


def _module_parts(relative: str) -> list[str] | None:
    parts = relative.split("/")
    if not parts[-1].endswith(".py"):
        return None
    parts[-1] = parts[-1][:-3]
    if not _is_identifier_path(parts) or parts[0].startswith("__editable__"):
        return None
    if parts[0].startswith("_editable_impl_"):
        return None
    return parts


def _portions(modules: Iterable[list[str]]) -> set[str]:
    """The own packages of a set of installed modules: the shortest regular package (or
    top-level module) on each path, so a namespace portion is ``ns.pkg``, not ``ns``."""
    modules = list(modules)
    packages = {tuple(p[:-1]) for p in modules if p[-1] == "__init__"}
    own = set()
    for parts in modules:
        for i in range(1, len(parts) + 1):
            if tuple(parts[:i]) in packages:
                own.add(".".join(parts[:i]))
                break
        else:
            if len(parts) == 1:
                own.add(parts[0])
    return own


def _pth_directories(pth: Path) -> list[Path]:
    directories = []
    try:
        lines = pth.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    for line in lines:
        line = line.strip()
        # Lines starting with "import" are executed by site.py; we never run them.
        if not line or line.startswith(("#", "import ", "import\t")):
            continue
        candidate = Path(line)
        if not candidate.is_absolute():
            candidate = pth.parent / candidate
        if candidate.is_dir():
            directories.append(candidate)
    return directories


def _editable_finder_mapping(path: Path) -> dict[str, Path]:
    """The ``{package: directory}`` mapping a setuptools/editables finder module holds,
    read as a literal from its syntax tree, never by importing it."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return {}
    mapping: dict[str, Path] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            try:
                value = ast.literal_eval(node)
            except ValueError:
                continue
            for key, target in value.items():
                if isinstance(key, str) and isinstance(target, str) and Path(target).is_dir():
                    mapping[key] = Path(target)
    return mapping


def _editable_project(dist: importlib_metadata.Distribution) -> Path | None:
    text = dist.read_text("direct_url.json")
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not data.get("dir_info", {}).get("editable"):
        return None
    url = urlparse(data.get("url", ""))
    if url.scheme != "file":
        return None
    project = Path(url2pathname(unquote(url.path)))
    return project if project.is_dir() else None


def find_distribution(name: str) -> importlib_metadata.Distribution:
    """The installed distribution called ``name`` (any spelling PEP 503 normalizes)."""
    try:
        return importlib_metadata.distribution(name)
    except importlib_metadata.PackageNotFoundError:
        raise LintUsageError(
            f"{name}: no installed distribution of that name; install it, or pass the "
            "path of its source directory"
        ) from None


def distribution_files(
    dist: importlib_metadata.Distribution,
) -> tuple[list[SourceFile], set[str], str]:
    """The source files of an installed distribution, its own packages, and where they
    were found (for the report)."""
    files: list[SourceFile] = []
    modules: list[list[str]] = []
    own: set[str] = set()
    locations: list[str] = []
    for entry in dist.files or []:
        relative = entry.as_posix()
        if relative.startswith("../") or ".dist-info/" in relative or ".data/" in relative:
            continue
        path = Path(str(dist.locate_file(entry)))
        if relative.endswith(".pth"):
            for directory in _pth_directories(path):
                found, found_own = walk_source_root(directory, directory)
                files.extend(found)
                own |= found_own
                locations.append(str(directory))
            continue
        name = Path(relative).name
        if name.endswith(".py") and name.startswith(("__editable__", "_editable_impl_")):
            for package, directory in _editable_finder_mapping(path).items():
                files.extend(walk_package(directory, package, directory.parent))
                own.add(package)
                locations.append(str(directory))
            continue
        parts = _module_parts(relative)
        if parts is None or not path.is_file():
            continue
        modules.append(parts)
        is_package = parts[-1] == "__init__"
        dotted = ".".join(parts[:-1] if is_package else parts)
        files.append(SourceFile(path, relative, dotted, is_package))
    own |= _portions(modules)
    if modules:
        locations.insert(0, str(dist.locate_file("")))
    if not files:
        project = _editable_project(dist)
        if project is not None:
            for root in _project_roots(project):
                found, found_own = walk_source_root(root, project)
                files.extend(found)
                own |= found_own
            locations.append(str(project))
    return files, own, ", ".join(dict.fromkeys(locations))


def load_distribution(name: str) -> PluginSource:
    """Describe the installed distribution ``name`` as a plugin to lint."""
    dist = find_distribution(name)
    meta = dist.metadata
    source = PluginSource(meta["Name"] or name, dist.version, "")
    source.files, source.own_packages, source.location = distribution_files(dist)
    source.requirements = list(dist.requires or [])
    for entry_point in dist.entry_points:
        source.entry_point_modules.add(entry_point.module)
    top_level = dist.read_text("top_level.txt") or ""
    for line in top_level.split():
        # top_level.txt names a namespace as its first component; never treat all of
        # agentkit as a plugin's own package.
        if (
            line.isidentifier()
            and line != _OURS
            and not any(p.startswith(line + ".") for p in source.own_packages)
        ):
            source.own_packages.add(line)
    project = _editable_project(dist)
    if project is not None and (project / "pyproject.toml").is_file():
        # An editable install's allowances live in its project, as for a source directory.
        data, text = _read_pyproject(project / "pyproject.toml")
        allow = data.get("tool", {}).get("agentkit", {}).get("lint", {}).get("allow", [])
        if isinstance(allow, list):
            source.allow = [a for a in allow if isinstance(a, str)]
            source.allow_file = str(project / "pyproject.toml")
            source.allow_text = text
    return source
