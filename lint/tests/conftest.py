"""Build throwaway plugins as source directories: a pyproject.toml and a src/ package."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

PluginFactory = Callable[..., Path]


def write_plugin(
    root: Path,
    files: dict[str, str],
    *,
    name: str = "agentkit-tools-sample",
    version: str = "0.3.1",
    dependencies: tuple[str, ...] = ("agentkit-plugin-api>=0.1,<0.2",),
    optional: dict[str, list[str]] | None = None,
    allow: list[str] | None = None,
    entry_point: str | None = None,
    layout: str = "src",
) -> Path:
    """Write a plugin project under ``root`` and return its directory.

    ``files`` maps paths relative to the source root (``pkg/__init__.py``) to source
    text, dedented.
    """
    project = root / name
    lines = [
        "[project]",
        f'name = "{name}"',
        f'version = "{version}"',
        "dependencies = [" + ", ".join(f'"{d}"' for d in dependencies) + "]",
    ]
    if optional:
        lines.append("[project.optional-dependencies]")
        for extra, reqs in optional.items():
            lines.append(f"{extra} = [" + ", ".join(f'"{r}"' for r in reqs) + "]")
    if entry_point:
        lines += ['[project.entry-points."agentkit.tools"]', f'sample = "{entry_point}"']
    if allow is not None:
        lines += ["", "[tool.agentkit.lint]", "allow = ["]
        lines += [f'    "{entry}",' for entry in allow]
        lines.append("]")
    project.mkdir(parents=True)
    (project / "pyproject.toml").write_text("\n".join(lines) + "\n")
    source_root = project / "src" if layout == "src" else project
    for relative, text in files.items():
        path = source_root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return project


@pytest.fixture
def make_plugin(tmp_path: Path) -> PluginFactory:
    """``make_plugin({"pkg/__init__.py": "import os"}, dependencies=(...))`` -> project dir."""

    def factory(files: dict[str, str], **options: object) -> Path:
        return write_plugin(tmp_path, files, **options)

    return factory
