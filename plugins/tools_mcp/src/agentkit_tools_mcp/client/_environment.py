"""The environment a stdio MCP server starts with: the plugin API's allowlist plus its entry's ``env``.

A server is a program someone else wrote; it gets what a program needs to run
as it does in the user's terminal (where programs are, who the user is, the
locale, the terminal, temporary files) and the variables its entry names,
never the rest of the agent's environment (REQ-MCP-CLIENT-10, REQ-SEC-08):
the same allowlist the shell tools give a command.
"""

from __future__ import annotations

from collections.abc import Mapping

from agentkit.plugin_api.environment import reduced_environment


def server_environment(parent: Mapping[str, str], entry_env: Mapping[str, str]) -> dict[str, str]:
    """The allowlisted variables of ``parent``, then the (already resolved) ``entry_env``."""
    return reduced_environment(parent, extra=entry_env)
