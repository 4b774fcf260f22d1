"""Hooks of the ``agentkit.providers`` category."""

from __future__ import annotations

from collections.abc import Callable

from .._markers import hookspec
from .._providers import Provider


@hookspec
def agentkit_register_providers(register: Callable[[Provider], None]) -> None:
    """Register the wire API codecs this plugin provides.

    :param register: call once per provider object. Each provider's ``api``
        must be unique among installed plugins; its catalog rows name the
        models it serves.
    :returns: nothing; the return value is ignored.

    Called once per plugin when the host builds its registry. An ``api`` or
    model another plugin registers too is a collision: neither plugin serves
    it, both are told, and their other contributions are served. An
    exception marks this plugin failed, with the reason, and the host goes
    on without it.

    .. versionadded:: 0.1
    """
