"""The flat configuration of agentkit 0.1, kept working for one minor version.

``AgentConfig(max_turns=3)`` still builds ``AgentConfig(limits=Limits(max_turns=3))``
and warns with a :class:`DeprecationWarning` naming the new place; reading
``config.max_turns`` still answers, silently, from the group (the timeline is in
``docs/decisions/0035-agent-config-in-groups.md``). :data:`MOVED` is the one list
of what moved where: the keywords, the reads and the tests all follow it. The
keywords' types are in :mod:`._config_flat_fields`, for type checkers.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

    from ._budget import Budget
    from ._config_groups import BeforeToolCall, Connection, Limits, Timeouts, Trust
    from ._settings import ModelSettings
    from .runtime.credentials import CredentialStore
    from .runtime.limits import ResponseLimits
    from .runtime.retry import RetryPolicy

__all__ = ["MOVED", "FlatReads", "apply_flat"]

#: Each flat field of 0.1: the group attribute of ``AgentConfig`` that holds it now, and its name there.
MOVED: dict[str, tuple[str, str]] = {
    "max_turns": ("limits", "max_turns"),
    "budget": ("limits", "budget"),
    "max_tool_result_chars": ("limits", "max_tool_result_chars"),
    "response_limits": ("limits", "response"),
    "request_timeout": ("timeouts", "request"),
    "connect_timeout": ("timeouts", "connect"),
    "read_timeout": ("timeouts", "read"),
    "tool_timeout": ("timeouts", "tool"),
    "hook_timeout": ("timeouts", "hook"),
    "run_timeout": ("timeouts", "run"),
    "trust_project": ("trust", "project"),
    "before_tool_call": ("trust", "before_tool_call"),
    "transport": ("connection", "transport"),
    "retry": ("connection", "retry"),
    "credential_store": ("connection", "credential_store"),
    "provider_options": ("connection", "provider_options"),
    "image_fetcher": ("connection", "image_fetcher"),
    "max_tokens": ("settings", "max_tokens"),
    "temperature": ("settings", "temperature"),
    "tool_choice": ("settings", "tool_choice"),
    "top_p": ("settings", "top_p"),
    "top_k": ("settings", "top_k"),
    "stop_sequences": ("settings", "stop_sequences"),
    "seed": ("settings", "seed"),
}

#: The class each group attribute holds, as the warning spells it.
GROUP_CLASS = {"limits": "Limits", "timeouts": "Timeouts", "trust": "Trust", "connection": "Connection",
               "settings": "ModelSettings"}

#: What a model setting the config does not set reads as (what 0.1's field defaults were).
_UNSET_SETTING: dict[str, Any] = {"stop_sequences": ()}


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


def _read(group: str, key: str) -> Callable[[Any], Any]:
    if group == "settings":
        default = _UNSET_SETTING.get(key)
        return lambda config: config.settings.get(key, default)
    # A C getter: a flat read costs the loop no bytecode (bench_loop counts them).
    return attrgetter(f"{group}.{key}")


def _write(name: str) -> Callable[[Any, Any], None]:
    def write(config: Any, value: Any) -> None:
        apply_flat(config, {name: value}, stacklevel=3)
    return write


class FlatReads:
    """The flat attributes of 0.1 as properties over the groups: reads answer, writes warn and move."""

    if TYPE_CHECKING:
        # What a type checker sees; at run time the properties are made from MOVED below.
        limits: Limits
        timeouts: Timeouts
        trust: Trust
        connection: Connection
        settings: ModelSettings

        @property
        def max_turns(self) -> int | None: ...
        @property
        def budget(self) -> Budget | None: ...
        @property
        def max_tool_result_chars(self) -> int | None: ...
        @property
        def response_limits(self) -> ResponseLimits | None: ...
        @property
        def request_timeout(self) -> float | None: ...
        @property
        def connect_timeout(self) -> float: ...
        @property
        def read_timeout(self) -> float: ...
        @property
        def tool_timeout(self) -> float | None: ...
        @property
        def hook_timeout(self) -> float | None: ...
        @property
        def run_timeout(self) -> float | None: ...
        @property
        def trust_project(self) -> bool: ...
        @property
        def before_tool_call(self) -> BeforeToolCall | None: ...
        @property
        def transport(self) -> httpx.AsyncBaseTransport | None: ...
        @property
        def retry(self) -> RetryPolicy | None: ...
        @property
        def credential_store(self) -> CredentialStore | None: ...
        @property
        def provider_options(self) -> Mapping[str, Any]: ...
        @property
        def image_fetcher(self) -> Callable[[str], bytes] | None: ...
        @property
        def max_tokens(self) -> int | None: ...
        @property
        def temperature(self) -> float | None: ...
        @property
        def tool_choice(self) -> str | None: ...
        @property
        def top_p(self) -> float | None: ...
        @property
        def top_k(self) -> int | None: ...
        @property
        def stop_sequences(self) -> Sequence[str]: ...
        @property
        def seed(self) -> int | None: ...


for _name, (_group, _key) in MOVED.items():
    setattr(FlatReads, _name, property(_read(_group, _key), _write(_name),
                                       doc=f"Deprecated: read ``{_group}.{_key}``."))
