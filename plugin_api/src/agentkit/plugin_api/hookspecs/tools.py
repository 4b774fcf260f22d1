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

    Called once per plugin when the host builds its registry. A tool name
    another plugin registers too is a collision: neither plugin serves it
    (whichever loaded first), both are told, and it is never renamed. An
    exception marks this plugin failed, with the reason, and the host goes
    on without it.

    .. versionadded:: 0.1
    """
