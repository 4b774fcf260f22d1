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

from agentkit.plugin_api._lazy import lazy_exports
from agentkit.plugin_api.errors import AgentkitError, PluginError, ProviderError, UsageError

TYPE_CHECKING = False  # spelled out: this module loads no typing
if TYPE_CHECKING:
    # `import X as X` marks each name as re-exported (PEP 484), for type checkers.
    # isort: off
    from ._feature_errors import (
        FileInputError as FileInputError,
        ImageError as ImageError,
        SessionConflict as SessionConflict,
        SessionError as SessionError,
        SessionLoadError as SessionLoadError,
        SessionNotFound as SessionNotFound,
    )
    # isort: on


class ConfigError(UsageError):
    """An ``AgentConfig`` value or an environment setting is invalid."""


class SkillConflictError(ConfigError):
    """A skill brings a tool whose name the agent already has, and does not declare the override."""


class UnsafeDataDirError(ConfigError):
    """A folder of the data directory (sessions, artifacts) is owned by another user or writable by
    group or others, so it is not used (OpenSSH's ``StrictModes``; docs/decisions/0027)."""


class ModelNotFound(UsageError):
    """No installed provider plugin serves the requested model."""


class AgentBusy(UsageError):
    """``run`` or ``stream`` was called while the agent was already running."""


class NothingToContinue(UsageError):
    """``continue_`` was called with nothing to continue: no history, or a complete answer and no queued message."""


__all__ = [
    "AgentBusy",
    "AgentkitError",
    "ConfigError",
    "FileInputError",
    "ImageError",
    "ModelNotFound",
    "NothingToContinue",
    "PluginError",
    "ProviderError",
    "SessionConflict",
    "SessionError",
    "SessionLoadError",
    "SessionNotFound",
    "SkillConflictError",
    "UnsafeDataDirError",
    "UsageError",
]

#: The errors of sessions and of image, document and recording input: created when first named.
_FEATURE_ERRORS = dict.fromkeys(
    ("FileInputError", "ImageError", "SessionConflict", "SessionError", "SessionLoadError", "SessionNotFound"),
    "agentkit.host._feature_errors",
)

__getattr__, __dir__ = lazy_exports(__name__, _FEATURE_ERRORS, globals())
