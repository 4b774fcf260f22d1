"""Hooks of the ``agentkit.tools`` category."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._markers import hookspec
from .._project import Project
from .._tools import Tool


@hookspec
def agentkit_register_tools(register: Callable[[Tool], None], project: Project) -> None:
    """Register the tools this plugin provides.

    :param register: call once per :class:`~agentkit.plugin_api.Tool`. The
        host checks the name and schema and attributes the tool to this
        plugin.
    :param project: the folder the host's agents work in, and whether the
        user trusts it (:class:`~agentkit.plugin_api.Project`). A plugin that
        builds tools from what the project supplies (the MCP client from the
        project's ``agentkit.toml``) does so only when ``project.trusted``.
        An implementation that does not name it is not given it.
    :returns: nothing; the return value is ignored.

    Called once per plugin when the host builds its registry. A tool name
    another plugin registers too is a collision: neither plugin serves it
    (whichever loaded first), both are told, and it is never renamed. An
    exception marks this plugin failed, with the reason, and the host goes
    on without it.

    .. versionadded:: 0.1
    .. versionchanged:: 0.2
       ``project``.
    """


@hookspec
def agentkit_mcp_servers(tools: Sequence[str]) -> Sequence[Mapping[str, Any]] | None:
    """Describe the MCP servers behind some of an agent's tools, for its audit trail.

    :param tools: the names of the tools the agent has enabled, sorted.
    :returns: one mapping per server that serves at least one of ``tools``:
        ``name`` (the configured server name) and, as known, ``transport``
        (``stdio`` or ``http``), ``era`` (``modern`` or ``legacy``) and
        ``protocol_version`` (the negotiated one); values are JSON scalars.
        ``None`` or an empty sequence: none of them.

    Called at the start of each run that keeps an audit trail, once per
    implementing plugin; the host lists every answer, sorted by name, in the
    ``session_start`` record's ``mcp_servers``. It must be quick (it reads
    what the plugin already knows, it never connects). An exception, or an
    answer of another shape, is reported in the run's problems and leaves
    that plugin's servers out; the run goes on.

    .. versionadded:: 0.2
    """
