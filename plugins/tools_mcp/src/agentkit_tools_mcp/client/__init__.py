"""The MCP client: configured servers' tools in an agent (the ``agentkit.tools`` plugin ``mcp``).

Loading the plugin costs a TOML read: the SDK is imported only when
``agentkit.toml`` names a server, and what the embedder sets (``set_audit_sink``,
``set_input_handler`` and their types) when it is first named. A project's servers load only when the
host's project is trusted (docs/decisions/0026).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import Project, Tool, hookimpl

if TYPE_CHECKING:
    from ._embedder import InputRequest, McpAuditRecord, set_audit_sink, set_input_handler

__all__ = ["InputRequest", "McpAuditRecord", "agentkit_mcp_servers", "agentkit_register_tools", "close_all",
           "set_audit_sink", "set_input_handler"]


@hookimpl
def agentkit_register_tools(register: Callable[[Tool], None], project: Project) -> None:
    """Connect to the configured servers and register their tools as ``server__tool``.

    The servers are the user's own, and the project's (its ``agentkit.toml``)
    only when ``project.trusted``: an untrusted project's servers are neither
    started nor contacted, and each is named in one note line on stderr that
    says how to trust it. ``mcp_servers`` (off by default) is registered too,
    servers or not.

    A configuration error fails this plugin with its message (the host
    reports it). A server that cannot be reached, a tool whose name agentkit
    cannot carry and a tool whose schema is not JSON Schema are each one
    ``warning:`` line on stderr and leave out only what they concern.
    """
    from .._config import load_servers, read_servers, untrusted_note, untrusted_servers
    from ._status import status_tool

    if project.trusted:
        servers = load_servers(project.root, trusted=True)
    else:
        problems: list[str] = []
        every = read_servers(project.root, problems=problems)
        for line in [*problems, *map(untrusted_note, untrusted_servers(every))]:
            print(line, file=sys.stderr)
        servers = sorted((server for server in every if server.tier == "user"), key=lambda server: server.name)
    if not servers:
        register(status_tool(dict))
        return
    from ._pool import shared_pool
    from ._tools import agent_tools, register_each

    pool = shared_pool(servers)
    register(status_tool(lambda: pool.connections))
    register_each(register, pool, agent_tools(pool, pool.list_all(), _warn), _warn)


def _warn(line: str) -> None:
    # While the host is built, on stderr: `run`, `chat`, `tools` and `plugins --check` all show it.
    print(f"warning: {line}", file=sys.stderr)


@hookimpl
def agentkit_mcp_servers(tools: Sequence[str]) -> list[dict[str, Any]]:
    """The configured servers behind ``tools``, for the run's ``session_start`` audit record.

    Reads what the connections already know: no server is contacted, and a
    process that connected to none answers at once.
    """
    pools = sys.modules.get(f"{__name__}._pool")
    return [] if pools is None else pools.describe_servers(tools)


def close_all() -> None:
    """End every MCP connection of the process (and its stdio servers); they reopen on the next use."""
    pools = sys.modules.get(f"{__name__}._pool")
    if pools is not None:
        pools.close_all()


#: The embedder's settings, from the module that holds them: imported when a name is first used, or when a
#: configured server is connected to (a plugin with no server to reach never needs them).
_EMBEDDER_NAMES = frozenset({"InputRequest", "McpAuditRecord", "set_audit_sink", "set_input_handler"})


def __getattr__(name: str) -> Any:
    if name not in _EMBEDDER_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import _embedder

    value = getattr(_embedder, name)
    globals()[name] = value  # looked up once: later uses are plain attribute reads
    return value
