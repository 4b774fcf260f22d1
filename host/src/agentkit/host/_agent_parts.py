"""What an agent builds from its configuration once, when it is made: its provider runtime and stop policy."""

from __future__ import annotations

from ._config import AgentConfig
from ._plugins import PluginHost
from ._stopping.policies import StopPolicy, any_of, as_policy, max_turns
from .runtime import Pricing, ProviderRuntime, http_timeouts

__all__ = ["provider_runtime", "stop_policy"]


def provider_runtime(config: AgentConfig, host: PluginHost) -> ProviderRuntime:
    """The runtime every request of an agent made from ``config`` and ``host`` is sent through."""
    connection = config.connection
    return ProviderRuntime(
        transport=connection.transport, retry=connection.retry, credential_store=connection.credential_store,
        request_timeout=config.timeouts.request, response_limits=config.limits.response,
        timeout=http_timeouts(connect=config.timeouts.connect, read=config.timeouts.read),
        pricing=Pricing(host.models),  # at the model that served: a fallback may be dearer or cheaper
    )


def stop_policy(config: AgentConfig) -> StopPolicy | None:
    """The policy that stops each run: ``limits.max_turns`` and ``stop_policy``, whichever fires first."""
    policies = []
    if config.limits.max_turns is not None:
        policies.append(max_turns(config.limits.max_turns))
    if config.stop_policy is not None:
        policies.append(as_policy(config.stop_policy))
    return any_of(*policies) if policies else None
