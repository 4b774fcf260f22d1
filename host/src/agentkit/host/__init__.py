"""The agentkit host: loads plugins and runs the agent loop.

Embedders import this package; plugin authors import ``agentkit.plugin_api``.
"""

import logging
import warnings
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from agentkit.plugin_api import Block, Outcome

from ._agent import Agent, AgentStats
from ._compaction import Compaction
from ._config import AgentConfig, BeforeToolCall, Decision, RunResult, allow_all
from ._plugins import PluginHost, PluginRecord
from ._stop import StopContext, StopPolicy, any_of, max_turns, stop_when
from .errors import AgentBusy, ConfigError, ModelNotFound, NothingToContinue, SkillConflictError

# Embedders decide where the host's warnings go; unconfigured, they go nowhere.
logging.getLogger("agentkit").addHandler(logging.NullHandler())

try:
    __version__ = version("agentkit-host")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"

__all__ = [
    "Agent",
    "AgentBusy",
    "AgentConfig",
    "AgentStats",
    "BeforeToolCall",
    "Block",
    "Compaction",
    "ConfigError",
    "Decision",
    "ModelNotFound",
    "NothingToContinue",
    "Outcome",
    "PluginHost",
    "PluginRecord",
    "RunResult",
    "SkillConflictError",
    "StopContext",
    "StopPolicy",
    "__version__",
    "allow_all",
    "any_of",
    "max_turns",
    "stop_when",
]


def _terminate(reason: str) -> Block:
    return Block(reason, terminate=True)


def __getattr__(name: str) -> Any:
    # Removed before 1.0 (one way to end a run); kept a while, warning, so code that used it says what to write.
    if name == "Terminate":
        warnings.warn("agentkit.host.Terminate is deprecated: return Block(reason, terminate=True) instead",
                      DeprecationWarning, stacklevel=2)
        return _terminate
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
