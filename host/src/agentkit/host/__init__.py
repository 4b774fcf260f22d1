"""The agentkit host: loads plugins and runs the agent loop.

Embedders import this package; plugin authors import ``agentkit.plugin_api``.
"""

import logging
from importlib.metadata import PackageNotFoundError, version

from agentkit.plugin_api import Block

from ._agent import Agent, AgentStats
from ._config import AgentConfig, BeforeToolCall, Decision, RunResult, Terminate, allow_all
from ._plugins import PluginHost, PluginRecord
from ._stop import StopContext, StopPolicy, any_of, max_turns, stop_when
from .errors import AgentBusy, ConfigError, ModelNotFound, SkillConflictError

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
    "ConfigError",
    "Decision",
    "ModelNotFound",
    "PluginHost",
    "PluginRecord",
    "RunResult",
    "SkillConflictError",
    "StopContext",
    "StopPolicy",
    "Terminate",
    "__version__",
    "allow_all",
    "any_of",
    "max_turns",
    "stop_when",
]
