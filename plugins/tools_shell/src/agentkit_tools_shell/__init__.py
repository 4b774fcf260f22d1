"""Process tools for agentkit: ``execute``, ``run_command`` and ``powershell``.

Each runs in its own process group in the workspace root, with standard input
closed and an allowlisted environment; a timeout or an abort kills the whole tree,
and so does the command's exit unless it asks to keep its background processes.
The tools start processes on the model's behalf, so an agent using them needs
an embedder ``before_tool_call``: an explicit allow-all, or
:data:`read_only_commands`, the restrictive example policy shipped here.
"""

from __future__ import annotations

from collections.abc import Callable

from agentkit.plugin_api import Tool, hookimpl

from ._env import (
    DEFAULT_PASSED_NAMES,
    DEFAULT_PASSED_PREFIXES,
    passes_by_default,
    reduced_environment,
)
from ._output import DEFAULT_OUTPUT_CAP
from ._policy import DEFAULT_READ_ONLY_PROGRAMS, RestrictedPolicy, read_only_commands
from ._tools import SHELL_TOOL_NAMES, make_tools

__all__ = [
    "DEFAULT_OUTPUT_CAP",
    "DEFAULT_PASSED_NAMES",
    "DEFAULT_PASSED_PREFIXES",
    "DEFAULT_READ_ONLY_PROGRAMS",
    "SHELL_TOOL_NAMES",
    "RestrictedPolicy",
    "agentkit_register_tools",
    "make_tools",
    "passes_by_default",
    "read_only_commands",
    "reduced_environment",
]


@hookimpl
def agentkit_register_tools(register: Callable[[Tool], None]) -> None:
    """Register execute, run_command and powershell, on every platform."""
    for tool in make_tools():
        register(tool)

