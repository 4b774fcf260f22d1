"""A plugin's source directory, made to look installed.

``validate-plugins --path DIR`` checks a plugin that is not installed: the
checks process puts the project's import root on ``sys.path`` and, before it,
a directory holding a ``.dist-info`` written from ``pyproject.toml`` (name,
version, requirements, entry points). The host then discovers and loads it
exactly as pip would have left it, API-range check included.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from agentkit.plugin_api.errors import UsageError


@dataclass
class Project:
    """What ``pyproject.toml`` says about a plugin distribution."""

    directory: Path
    name: str
    version: str | None
    requires: list[str] = field(default_factory=list)
    entry_points: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def import_root(self) -> Path:
        """``src/`` for a src layout, else the project directory."""
        src = self.directory / "src"
        return src if src.is_dir() else self.directory

    def plugins(self) -> dict[str, list[str]]:
        """Entry-point name -> the categories it is declared under."""
        found: dict[str, list[str]] = {}
        for group, entries in self.entry_points.items():
            if group.startswith("agentkit."):
                for name in entries:
                    found.setdefault(name, []).append(group.removeprefix("agentkit."))
        return {name: sorted(categories) for name, categories in found.items()}


def read_project(path: str | Path) -> Project:
    """The project in directory ``path``; a :class:`UsageError` names what is missing."""
    directory = Path(path).expanduser().resolve()
    pyproject = directory / "pyproject.toml"
    if not pyproject.is_file():
        raise UsageError(f"--path {str(path)!r} has no pyproject.toml: point it at a plugin's project directory")
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{pyproject} is not valid TOML ({exc}): fix the file") from exc
    project = data.get("project")
    if not isinstance(project, dict) or not isinstance(project.get("name"), str):
        raise UsageError(f"{pyproject} has no [project] name: it is not a distribution")
    entry_points = project.get("entry-points") or {}
    return Project(
        directory=directory,
        name=project["name"],
        version=project.get("version") if isinstance(project.get("version"), str) else None,
        requires=[line for line in project.get("dependencies", []) if isinstance(line, str)],
        entry_points={
            group: {key: value for key, value in entries.items() if isinstance(value, str)}
            for group, entries in entry_points.items()
            if isinstance(entries, dict)
        },
    )


def write_dist_info(project: Project, site: Path) -> Path:
    """Write the ``.dist-info`` pip would have written for ``project`` into ``site``."""
    version = project.version or "0+source"
    info = site / f"{project.name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    metadata = ["Metadata-Version: 2.1", f"Name: {project.name}", f"Version: {version}"]
    metadata += [f"Requires-Dist: {line}" for line in project.requires]
    (info / "METADATA").write_text("\n".join(metadata) + "\n", encoding="utf-8")
    lines = []
    for group, entries in project.entry_points.items():
        lines.append(f"[{group}]")
        lines += [f"{key} = {value}" for key, value in entries.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return info
