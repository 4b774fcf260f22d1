"""Checks of an agent's configuration made before anything uses it: deadlines, limits, collaborators.

(How a run ends is in :mod:`._stopping.ending`.)
"""

from __future__ import annotations

from typing import Any

import httpx

from agentkit.plugin_api import Tool

from ._config import AgentConfig
from .errors import ConfigError
from .runtime import CredentialStore, ResponseLimits, RetryPolicy


def check_limits(config: AgentConfig) -> None:
    """Refuse deadlines, limits and collaborators that cannot work, naming the field (before anything uses them)."""
    for name in ("tool_timeout", "hook_timeout", "run_timeout", "max_tool_result_chars", "request_timeout"):
        value = getattr(config, name)
        if value is not None and not _positive(value):
            raise ConfigError(f"AgentConfig.{name} must be a positive number or None, got {value!r}")
    for name in ("connect_timeout", "read_timeout"):  # httpx's: they cannot be turned off
        value = getattr(config, name)
        if not _positive(value):
            raise ConfigError(f"AgentConfig.{name} must be a positive number, got {value!r}")
    # What the annotations say, held at run time too: a wrong value would otherwise
    # fail as an AttributeError in the middle of a request.
    for name, expected, what in _COLLABORATORS:
        value = getattr(config, name)
        if value is not None and not isinstance(value, expected):
            raise ConfigError(f"AgentConfig.{name} must be {what} or None, got {type(value).__name__}")
    for index, tool in enumerate(config.extra_tools):
        if not isinstance(tool, Tool):
            raise ConfigError(
                f"AgentConfig.extra_tools[{index}] must be a Tool, got {type(tool).__name__}: "
                "wrap a function with Tool.from_function"
            )


_COLLABORATORS: tuple[tuple[str, type, str], ...] = (
    ("transport", httpx.AsyncBaseTransport, "an httpx.AsyncBaseTransport"),
    ("retry", RetryPolicy, "a RetryPolicy"),
    ("credential_store", CredentialStore, "a CredentialStore"),
    ("response_limits", ResponseLimits, "a ResponseLimits"),
)


def _positive(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and value > 0  # NaN is not > 0
