"""The agentkit host: loads plugins and runs the agent loop.

Embedders import this package; plugin authors import ``agentkit.plugin_api``.

The names below are imported on first use (PEP 562), so that a process that
needs only part of the host (``agentkit --help``, a plugin's own tests) does
not pay for the loop's imports (asyncio, httpx, jsonschema).
"""

from __future__ import annotations

import warnings
from importlib import import_module

# typing itself costs more than this module: the flag is spelled out, as type checkers honour it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentkit.plugin_api import Block, Outcome

    from ._agent import Agent, AgentStats
    from ._audit import AuditRecord, AuditSink, JsonlAuditSink
    from ._budget import Budget
    from ._compaction import Compaction
    from ._config import (
        DEFAULT_HOOK_TIMEOUT,
        DEFAULT_MAX_TOOL_RESULT_CHARS,
        DEFAULT_TOOL_TIMEOUT,
        AgentConfig,
        BeforeToolCall,
        Connection,
        Decision,
        Limits,
        RunResult,
        Timeouts,
        Trust,
        allow_all,
    )
    from ._plugins import PluginHost, PluginRecord
    from ._settings import ModelSettings
    from ._stopping.policies import StopContext, StopPolicy, any_of, max_turns, stop_when
    from ._subagents import Subagent
    from ._tool_caller import PendingCall, ToolCaller
    from .errors import (
        AgentBusy,
        ConfigError,
        ImageError,
        ModelNotFound,
        NothingToContinue,
        SkillConflictError,
        UnsafeDataDirError,
    )

    __version__: str

# Where each public name is defined, relative to this package.
_EXPORTS = {
    "Agent": "._agent",
    "AgentStats": "._agent",
    "AuditRecord": "._audit",
    "AuditSink": "._audit",
    "JsonlAuditSink": "._audit",
    "Budget": "._budget",
    "Compaction": "._compaction",
    "AgentConfig": "._config",
    "BeforeToolCall": "._config",
    "Decision": "._config",
    "Limits": "._config",
    "Timeouts": "._config",
    "Trust": "._config",
    "Connection": "._config",
    "RunResult": "._config",
    "allow_all": "._config",
    "DEFAULT_HOOK_TIMEOUT": "._config",
    "DEFAULT_MAX_TOOL_RESULT_CHARS": "._config",
    "DEFAULT_TOOL_TIMEOUT": "._config",
    "PluginHost": "._plugins",
    "PluginRecord": "._plugins",
    "ModelSettings": "._settings",
    "StopContext": "._stopping.policies",
    "StopPolicy": "._stopping.policies",
    "any_of": "._stopping.policies",
    "max_turns": "._stopping.policies",
    "stop_when": "._stopping.policies",
    "Subagent": "._subagents",
    "PendingCall": "._tool_caller",
    "ToolCaller": "._tool_caller",
    "AgentBusy": ".errors",
    "ConfigError": ".errors",
    "ImageError": ".errors",
    "ModelNotFound": ".errors",
    "NothingToContinue": ".errors",
    "SkillConflictError": ".errors",
    "UnsafeDataDirError": ".errors",
    "Block": "agentkit.plugin_api",
    "Outcome": "agentkit.plugin_api",
}

__all__ = [
    "DEFAULT_HOOK_TIMEOUT",
    "DEFAULT_MAX_TOOL_RESULT_CHARS",
    "DEFAULT_TOOL_TIMEOUT",
    "Agent",
    "AgentBusy",
    "AgentConfig",
    "AgentStats",
    "AuditRecord",
    "AuditSink",
    "BeforeToolCall",
    "Block",
    "Budget",
    "Compaction",
    "ConfigError",
    "Connection",
    "Decision",
    "ImageError",
    "JsonlAuditSink",
    "Limits",
    "ModelNotFound",
    "ModelSettings",
    "NothingToContinue",
    "Outcome",
    "PendingCall",
    "PluginHost",
    "PluginRecord",
    "RunResult",
    "SkillConflictError",
    "StopContext",
    "StopPolicy",
    "Subagent",
    "Timeouts",
    "ToolCaller",
    "Trust",
    "UnsafeDataDirError",
    "__version__",
    "allow_all",
    "any_of",
    "max_turns",
    "stop_when",
]


def _version() -> str:
    # importlib.metadata scans the installed distributions: done once, when someone asks.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agentkit-host")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


def _terminate(reason: str) -> Block:
    from agentkit.plugin_api import Block

    return Block(reason, terminate=True)


def __getattr__(name: str) -> Any:
    where = _EXPORTS.get(name)
    if where is not None:
        value = getattr(import_module(where, __name__), name)
    elif name == "__version__":
        value = _version()
    elif name == "Terminate":
        # Removed before 1.0 (one way to end a run); kept a while, warning, so code that used it says what to write.
        warnings.warn("agentkit.host.Terminate is deprecated: return Block(reason, terminate=True) instead",
                      DeprecationWarning, stacklevel=2)
        return _terminate
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # looked up once: later uses are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
