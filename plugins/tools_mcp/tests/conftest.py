"""Fixtures of the MCP client tests: the test servers, and configuration files in a scratch directory."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

SERVERS = Path(__file__).resolve().parent / "servers"
V2_SERVER = SERVERS / "v2_server.py"


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user config directory and an empty project directory (the working directory)."""
    home = tmp_path / "config"
    home.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("AGENTKIT_CONFIG_DIR", str(home))
    monkeypatch.chdir(project)
    return home


@pytest.fixture(autouse=True)
def _close_pools() -> Iterator[None]:
    """Every test ends the servers it started, so none outlives it."""
    yield
    from agentkit_tools_mcp.client import close_all

    close_all()


def configure(*entries: dict[str, object]) -> None:
    """Write ``entries`` as the user's ``[[mcp.servers]]`` (a project's servers need trust)."""
    import tomli_w
    from agentkit_tools_mcp._config import user_config_file

    user_config_file().write_text(tomli_w.dumps({"mcp": {"servers": list(entries)}}), encoding="utf-8")


def v2_stdio_entry(name: str = "calc", **extra: object) -> dict[str, object]:
    """A ``[[mcp.servers]]`` entry for the 2.x test server over stdio, run by this interpreter."""
    return {"name": name, "command": sys.executable, "args": [str(V2_SERVER)], "connect_timeout_s": 60, **extra}
