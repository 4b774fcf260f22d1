"""The flat keywords of agentkit 0.1 as a ``TypedDict``: what ``AgentConfig(**flat)`` accepts, for type checkers;
and the types of the flat attributes (:class:`FlatReadTypes`), for type checkers alone.

Apart from :mod:`._config_flat` because only annotations name it: building the
class turns each of its two dozen annotations into a ``ForwardRef``, compiling
each (about 240 us a process), which a configuration that uses no flat keyword
never needs. ``AgentConfig`` names it through a deferred module, so
``typing.get_type_hints(AgentConfig.__init__)`` still resolves it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    import httpx

    from ._budget import Budget
    from ._config_groups import BeforeToolCall, Connection, Limits, Timeouts, Trust
    from ._settings import ModelSettings
    from .runtime.credentials import CredentialStore
    from .runtime.limits import ResponseLimits
    from .runtime.retry import RetryPolicy

__all__ = ["FlatFields"]


class FlatFields(TypedDict, total=False):
    """The flat keywords of 0.1, typed as they were (deprecated: see :data:`MOVED`)."""

    max_turns: int | None
    budget: Budget | None
    max_tool_result_chars: int | None
    response_limits: ResponseLimits | None
    request_timeout: float | None
    connect_timeout: float
    read_timeout: float
    tool_timeout: float | None
    hook_timeout: float | None
    run_timeout: float | None
    trust_project: bool
    before_tool_call: BeforeToolCall | None
    transport: httpx.AsyncBaseTransport | None
    retry: RetryPolicy | None
    credential_store: CredentialStore | None
    provider_options: Mapping[str, Any]
    image_fetcher: Callable[[str], bytes] | None
    max_tokens: int | None
    temperature: float | None
    tool_choice: str | None
    top_p: float | None
    top_k: int | None
    stop_sequences: Sequence[str]
    seed: int | None


if TYPE_CHECKING:

    class FlatReadTypes:
        """What a type checker sees of ``AgentConfig``'s flat attributes: the properties
        :class:`._config_flat.FlatReads` makes at run time from ``MOVED``."""

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
