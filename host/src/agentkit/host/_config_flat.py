"""The flat configuration of agentkit 0.1, kept working for one minor version.

``AgentConfig(max_turns=3)`` still builds ``AgentConfig(limits=Limits(max_turns=3))``
and warns with a :class:`DeprecationWarning` naming the new place; reading
``config.max_turns`` still answers, silently, from the group (the timeline is in
``docs/decisions/0035-agent-config-in-groups.md``). :data:`MOVED`
(``_config_groups.MOVED``) is the one list of what moved where: the keywords, the
reads and the tests all follow it. The keywords' and the reads' types are in
:mod:`._config_flat_fields`, for type checkers.

This module is what a flat keyword or a flat write needs, loaded with the first
one; the reads (``AgentConfig``'s base :class:`~._config.FlatReads`) are made
with the configuration, so that a configuration written in groups loads none
of it: one module fewer to find and read at a first use.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping
from typing import Any

from ._config_groups import MOVED

__all__ = ["MOVED", "apply_flat"]

#: The class each group attribute holds, as the warning spells it.
GROUP_CLASS = {"limits": "Limits", "timeouts": "Timeouts", "trust": "Trust", "connection": "Connection",
               "settings": "ModelSettings"}


def deprecation(name: str) -> str:
    group, key = MOVED[name]
    return (f"AgentConfig({name}=...) is deprecated; use "
            f"AgentConfig({group}={GROUP_CLASS[group]}({key}=...))")


def apply_flat(config: Any, flat: Mapping[str, Any], stacklevel: int) -> None:
    """Move the flat keywords ``flat`` into ``config``'s groups, warning once for each.

    A flat keyword wins over the same field of a group passed beside it: that is
    what ``dataclasses.replace(config, max_turns=...)`` means.

    :raises TypeError: a keyword that is neither a field nor a moved one, as Python says it.
    """
    changes: dict[str, dict[str, Any]] = {}
    for name, value in flat.items():
        where = MOVED.get(name)
        if where is None:
            raise TypeError(f"AgentConfig.__init__() got an unexpected keyword argument {name!r}")
        warnings.warn(deprecation(name), DeprecationWarning, stacklevel=stacklevel)
        changes.setdefault(where[0], {})[where[1]] = value
    for group, values in changes.items():
        current = getattr(config, group)
        if group == "settings":
            setattr(config, group, {**current, **values})
        else:
            setattr(config, group, dataclasses.replace(current, **values))
