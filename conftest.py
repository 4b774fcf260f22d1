"""Fixtures shared by every test directory of the workspace."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent


def write_distribution(
    site: Path,
    name: str,
    *,
    version: str = "0.1.0",
    entry_points: dict[str, dict[str, str]] | None = None,
    requires: list[str] | None = None,
    files: dict[str, str] | None = None,
) -> Path:
    """Write an installed distribution (dist-info plus its modules) into ``site``.

    This is what pip leaves behind, so ``importlib.metadata`` discovers it the
    same way it discovers any installed plugin.
    """
    site.mkdir(parents=True, exist_ok=True)
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    metadata = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    metadata += [f"Requires-Dist: {requirement}" for requirement in requires or []]
    (info / "METADATA").write_text("\n".join(metadata) + "\n")
    lines = []
    for group, entries in (entry_points or {}).items():
        lines.append(f"[{group}]")
        lines += [f"{key} = {value}" for key, value in entries.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    record = []
    for relative, source in (files or {}).items():
        path = site / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
        record.append(f"{relative},,")
    (info / "RECORD").write_text("\n".join([*record, f"{info.name}/METADATA,,"]) + "\n")
    return info


@pytest.fixture
def site_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Returns ``install(name, **kwargs)`` writing a distribution onto ``sys.path``."""
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    before = set(sys.modules)

    def install(name: str, **kwargs: object) -> Path:
        info = write_distribution(site, name, **kwargs)
        importlib.invalidate_caches()
        return info

    install.site = site
    yield install
    for name in set(sys.modules) - before:  # forget the plugins this test imported
        if str(site) in str(getattr(sys.modules[name], "__file__", "") or ""):
            del sys.modules[name]
