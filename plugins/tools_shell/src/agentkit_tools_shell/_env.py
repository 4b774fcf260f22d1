"""The reduced environment a command starts with: the plugin API's allowlist (``agentkit.plugin_api.environment``)."""

from agentkit.plugin_api.environment import (
    DEFAULT_PASSED_NAMES,
    DEFAULT_PASSED_PREFIXES,
    passes_by_default,
    reduced_environment,
)

__all__ = ["DEFAULT_PASSED_NAMES", "DEFAULT_PASSED_PREFIXES", "passes_by_default", "reduced_environment"]
