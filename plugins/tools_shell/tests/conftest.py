"""Fixtures: the shell plugin's tools as the host would receive them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import agentkit_tools_shell
import pytest

from agentkit.plugin_api import CancelToken, Tool, ToolContext, ToolResult

# Test modules import the process checks in shell_test_processes.py.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def tools() -> dict[str, Tool]:
    registered: list[Tool] = []
    agentkit_tools_shell.agentkit_register_tools(register=registered.append)
    return {tool.name: tool for tool in registered}


class Runner:
    """Calls a tool's handler the way the host does: ``handler(arguments, context)``."""

    def __init__(self, tools: dict[str, Tool], root: Path) -> None:
        self.tools = tools
        self.root = root

    def __call__(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        options: dict[str, Any] | None = None,
        cancel: CancelToken | None = None,
    ) -> ToolResult:
        context = ToolContext(
            root=self.root, call_id="call-1", cancel=cancel or CancelToken(), options=options or {}
        )
        return self.tools[name].handler(arguments, context)


@pytest.fixture
def run(tools: dict[str, Tool], tmp_path: Path) -> Runner:
    return Runner(tools, tmp_path)
