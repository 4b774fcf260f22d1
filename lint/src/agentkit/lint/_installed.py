"""Find an installed distribution's source files, never importing or running any of it.

A wheel lists its files in RECORD. An editable install lists almost nothing there: its
code is reached through a ``.pth`` file naming a source directory (uv, hatchling), a
setuptools ``__editable__`` finder module whose mapping we read as data, or, failing
both, the project directory recorded in ``direct_url.json``.
"""

from __future__ import annotations

import ast
import csv
import json
import os
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

import importlib_metadata

from ._errors import LintUsageError
from ._source import (
    PluginSource,
    SourceFile,
    allowances_of,
    is_identifier_path,
    project_roots,
    read_pyproject,
    walk_package,
    walk_source_root,
)

# The namespace of the core distributions: never a plugin's own package as a whole.
_OURS = "agentkit"


def _module_parts(relative: str) -> list[str] | None:
    parts = relative.split("/")
    if not parts[-1].endswith(".py"):
        return None
    parts[-1] = parts[-1][:-3]
    if not is_identifier_path(parts) or parts[0].startswith("__editable__"):
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


def _editable_project(dist: importlib_metadata.IDistribution) -> Path | None:
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


def find_distribution(name: str) -> importlib_metadata.IDistribution:
    """The installed distribution called ``name`` (any spelling PEP 503 normalizes)."""
    try:
        return importlib_metadata.distribution(name)
    except importlib_metadata.PackageNotFoundError:
        raise LintUsageError(
            f"{name}: no installed distribution of that name; install it, or pass the "
            "path of its source directory"
        ) from None


def listed_files(dist: importlib_metadata.IDistribution) -> list[str]:
    """The files ``dist`` lists that exist, as relative POSIX paths: what ``dist.files`` says.

    Read as plain strings from RECORD: ``dist.files`` builds a path object per file, which,
    for every distribution of an environment (the index), costs more than the rest of the
    work together. Distributions without a RECORD (egg-info) are read through ``files``.
    """
    text = dist.read_text("RECORD")
    if text is None:
        return ["/".join(entry.parts) for entry in dist.files or []]
    base = str(dist.locate_file(""))
    listed = []
    for row in csv.reader(text.splitlines()):
        relative = "/".join(part for part in row[0].split("/") if part not in ("", ".")) if row else ""
        if relative and os.path.exists(os.path.join(base, relative)):
            listed.append(relative)
    return listed


def distribution_files(
    dist: importlib_metadata.IDistribution,
    listed: list[str] | None = None,
    *,
    sources: bool = True,
) -> tuple[list[SourceFile], set[str], str]:
    """The source files of an installed distribution, its own packages, and where they
    were found (for the report).

    :param listed: the distribution's :func:`listed_files`, when the caller has them.
    :param sources: false when only the own packages are wanted (the index): no source
        file is described then, and the list returned is empty.
    """
    files: list[SourceFile] = []
    modules: list[list[str]] = []
    own: set[str] = set()
    locations: list[str] = []
    found = 0
    base = Path(str(dist.locate_file("")))
    for relative in listed_files(dist) if listed is None else listed:
        if relative.startswith("../") or ".dist-info/" in relative or ".data/" in relative:
            continue
        if relative.endswith(".pth"):
            for directory in _pth_directories(base / relative):
                in_directory, in_directory_own = walk_source_root(directory, directory)
                files.extend(in_directory)
                found += len(in_directory)
                own |= in_directory_own
                locations.append(str(directory))
            continue
        name = relative.rsplit("/", 1)[-1]
        if name.endswith(".py") and name.startswith(("__editable__", "_editable_impl_")):
            for package, directory in _editable_finder_mapping(base / relative).items():
                in_package = list(walk_package(directory, package, directory.parent))
                files.extend(in_package)
                found += len(in_package)
                own.add(package)
                locations.append(str(directory))
            continue
        parts = _module_parts(relative)
        if parts is None:
            continue
        modules.append(parts)
        if sources:
            is_package = parts[-1] == "__init__"
            dotted = ".".join(parts[:-1] if is_package else parts)
            files.append(SourceFile(base / relative, relative, dotted, is_package))
    own |= _portions(modules)
    if modules:
        locations.insert(0, str(base))
    if not found and not modules:
        project = _editable_project(dist)
        if project is not None:
            for root in project_roots(project):
                in_root, in_root_own = walk_source_root(root, project)
                files.extend(in_root)
                own |= in_root_own
            locations.append(str(project))
    if not sources:
        files = []
    return files, own, ", ".join(dict.fromkeys(locations))


def load_distribution(name: str) -> PluginSource:
    """Describe the installed distribution ``name`` as a plugin to lint."""
    dist = find_distribution(name)
    meta = dist.metadata
    source = PluginSource(meta["Name"] or name, dist.version, "")
    try:
        source.files, source.own_packages, source.location = distribution_files(dist)
    except Exception as exc:
        # A damaged RECORD is the plugin's defect: reported as "no source", not raised.
        source.location = f"its RECORD, which could not be read ({type(exc).__name__}: {exc})"
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
        pyproject = project / "pyproject.toml"
        data, text = read_pyproject(pyproject)
        source.allow = allowances_of(data, pyproject)
        source.allow_file = str(pyproject)
        source.allow_text = text
    return source
