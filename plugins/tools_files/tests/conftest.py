"""Drive the tools the way the host does: through the registered Tool and its handler."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import agentkit_tools_files
import pytest

from agentkit.plugin_api import Tool, ToolContext, ToolResult


def registered_tools() -> dict[str, Tool]:
    found: dict[str, Tool] = {}
    agentkit_tools_files.agentkit_register_tools(
        register=lambda tool: found.setdefault(tool.name, tool)
    )
    return found


class Workspace:
    """A temporary workspace root and a way to call tools against it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tools = registered_tools()

    def call(self, name: str, **arguments: Any) -> ToolResult:
        result = self.tools[name].handler(arguments, ToolContext(root=self.root))
        assert isinstance(result, ToolResult)
        return result

    def write(self, relative: str, content: str | bytes) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode("utf-8")
        path.write_bytes(content)
        return path


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    return Workspace(root)
