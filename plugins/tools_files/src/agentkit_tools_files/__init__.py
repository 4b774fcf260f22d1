"""File tools for agentkit: read_file, write_file, edit_file, list_files, find_files.

Containment, ignore rules and globs come from :mod:`agentkit.plugin_api.workspace`,
where every tool plugin can import them. Public here, for tools built alongside:
:mod:`.limits` (the bounded accumulator), :mod:`.envelope` (handlers that always
return a ToolResult) and :mod:`.locks` (per-file locks, across processes too).
"""

from __future__ import annotations

from collections.abc import Callable

from agentkit.plugin_api import Tool, hookimpl

from .edit import EDIT_FILE
from .listing import FIND_FILES, LIST_FILES
from .read import READ_FILE
from .write import WRITE_FILE

__all__ = ["TOOLS", "agentkit_register_tools"]

TOOLS: tuple[Tool, ...] = (READ_FILE, WRITE_FILE, EDIT_FILE, LIST_FILES, FIND_FILES)


@hookimpl
def agentkit_register_tools(register: Callable[[Tool], None]) -> None:
    """Register the file tools."""
    for tool in TOOLS:
        register(tool)
