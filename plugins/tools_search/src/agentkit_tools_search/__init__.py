"""search_files for agentkit: ripgrep when it is on PATH, a complete native backend otherwise.

Both backends scan the same files (chosen by the ignore engine and glob dialect
of :mod:`agentkit.plugin_api.workspace`) and answer the same contract, in one
regex dialect (:mod:`.dialect`); see :mod:`.query`.
Embedders may pass ``tool_options={"search_files": {"backend": "native"}}``
(or ``"rg"``, or ``"rg_path": "/path/to/rg"``).
"""

from __future__ import annotations

from collections.abc import Callable

from agentkit.plugin_api import Tool, hookimpl

from .tool import SEARCH_FILES

__all__ = ["SEARCH_FILES", "agentkit_register_tools"]


@hookimpl
def agentkit_register_tools(register: Callable[[Tool], None]) -> None:
    """Register search_files."""
    register(SEARCH_FILES)
