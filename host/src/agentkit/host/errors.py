"""Exceptions the host raises.

::

    AgentkitError                      (agentkit.plugin_api.errors)
    ├── UsageError                     the caller asked for something invalid
    │   ├── ConfigError                an AgentConfig or environment setting is wrong
    │   │   ├── SkillConflictError     a skill's tool takes a name the agent already has
    │   │   └── UnsafeDataDirError     a data folder is another user's, or writable by group or others
    │   ├── ImageError                 an image cannot be read, fetched or sent to the model
    │   ├── FileInputError             a document or a recording cannot be read or sent to the model
    │   ├── ModelNotFound              no installed provider serves the model
    │   ├── AgentBusy                  run/stream called while a run is in progress
    │   ├── NothingToContinue          continue_ called with nothing to continue
    │   └── SessionNotFound            no stored session has that id
    ├── SessionError                   a session log could not be read or written
    │   ├── SessionLoadError           the bytes are not a session log at all (no header)
    │   └── SessionConflict            another writer appended first, or holds the session
    ├── PluginError                    a plugin broke its contract (plugin, hook)
    └── ProviderError                  a provider or the transport failed

Within a run, failures of the model or of tools are not exceptions: they end
the run with an outcome (``RunResult.outcome``), or become error results the model sees.
"""

from __future__ import annotations

from agentkit.plugin_api.errors import AgentkitError, PluginError, ProviderError, UsageError


class ConfigError(UsageError):
    """An ``AgentConfig`` value or an environment setting is invalid."""


class SkillConflictError(ConfigError):
    """A skill brings a tool whose name the agent already has, and does not declare the override."""


class UnsafeDataDirError(ConfigError):
    """A folder of the data directory (sessions, artifacts) is owned by another user or writable by
    group or others, so it is not used (OpenSSH's ``StrictModes``; docs/decisions/0027)."""


class ImageError(UsageError):
    """An image could not be read, fetched or sent: not an image, too large to decode, outside
    the workspace, a URL the embedder does not allow fetching, or a model without vision."""


class FileInputError(UsageError):
    """A document or a recording could not be sent: a model without the capability, a file that
    cannot be read, lies about its type, is above the wire's cap, or a URL the wire does not take."""


class ModelNotFound(UsageError):
    """No installed provider plugin serves the requested model."""


class AgentBusy(UsageError):
    """``run`` or ``stream`` was called while the agent was already running."""


class NothingToContinue(UsageError):
    """``continue_`` was called with nothing to continue: no history, or a complete answer and no queued message."""


class SessionNotFound(UsageError):
    """No stored session has the id (or id prefix) asked for."""


class SessionError(AgentkitError):
    """A session log could not be read or written."""


class SessionLoadError(SessionError):
    """The bytes are not a session log: no readable header line. Damage after the header is repaired, never raised."""


class SessionConflict(SessionError):
    """An append expected another last entry: a second writer appended first (retry from the new last entry),
    or holds the session open for writing."""


__all__ = [
    "AgentBusy",
    "AgentkitError",
    "ConfigError",
    "ModelNotFound",
    "NothingToContinue",
    "PluginError",
    "ProviderError",
    "SessionConflict",
    "SessionError",
    "SessionLoadError",
    "SessionNotFound",
    "SkillConflictError",
    "UsageError",
]
