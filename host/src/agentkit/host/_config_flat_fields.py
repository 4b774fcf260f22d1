"""The flat keywords of agentkit 0.1 as a ``TypedDict``: what ``AgentConfig(**flat)`` accepts, for type checkers.

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
    from ._config_groups import BeforeToolCall
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
