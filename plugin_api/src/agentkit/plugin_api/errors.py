"""Exceptions shared by every agentkit distribution.

::

    AgentkitError                 root of everything agentkit raises on purpose
    ├── UsageError                the caller asked for something invalid (fix the call)
    ├── PluginError               a plugin broke its contract (carries plugin and hook)
    └── ProviderError             a model provider or the transport failed

Messages name the thing that is wrong and the fix.
"""

from __future__ import annotations


class AgentkitError(Exception):
    """Root of the exceptions agentkit raises on purpose."""


class UsageError(AgentkitError, ValueError):
    """Invalid use of the API or the command line; the message says the fix."""


class PluginError(AgentkitError):
    """A plugin broke its contract.

    :param plugin: the plugin's name (its entry-point name, or the name it
        was registered under).
    :param hook: the hook it broke, when one is concerned.
    """

    def __init__(self, message: str, *, plugin: str, hook: str | None = None) -> None:
        super().__init__(message)
        self.plugin = plugin
        self.hook = hook


class ProviderError(AgentkitError):
    """A model provider, or the transport to it, failed."""
