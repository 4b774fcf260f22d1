"""Hooks of the ``agentkit.tools`` category."""

from __future__ import annotations

from collections.abc import Callable

from .._markers import hookspec
from .._tools import Tool


@hookspec
def agentkit_register_tools(register: Callable[[Tool], None]) -> None:
    """Register the tools this plugin provides.

    :param register: call once per :class:`~agentkit.plugin_api.Tool`. The
        host checks the name and schema and attributes the tool to this
        plugin.
    :returns: nothing; the return value is ignored.

    Called once per plugin when the host builds its registry. A tool whose
    name is already registered by another plugin is reported as a collision
    and not registered (never silently renamed). An exception marks this
    plugin failed, with the reason, and the host goes on without it.

    .. versionadded:: 0.1
    """
