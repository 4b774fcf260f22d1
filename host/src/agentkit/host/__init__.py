"""The agentkit host: loads plugins and runs the agent loop.

Embedders import this package; plugin authors import ``agentkit.plugin_api``.

The names below are imported on first use (PEP 562), so that a process that
needs only part of the host (``agentkit --help``, a plugin's own tests) does
not pay for the loop's imports (asyncio, httpx, jsonschema).
"""

from __future__ import annotations

import warnings
from importlib import import_module

# typing costs more than this package: `python -X importtime` puts `import typing` after
# agentkit.host at 6.4-7.2 ms, the package itself at 2.1-2.5 ms. The flag is spelled out, as
# type checkers honour it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    # `import X as X` marks each name as re-exported (PEP 484), for type checkers; isort would
    # split each such name into a statement of its own.
    # isort: off
    from typing import Any

    from agentkit.plugin_api import Block as Block, Defer as Defer, Outcome as Outcome

    from ._agent import Agent as Agent, AgentStats as AgentStats
    from ._approvals import Approval as Approval
    from ._audit import AuditRecord as AuditRecord, AuditSink as AuditSink, JsonlAuditSink as JsonlAuditSink
    from ._budget import Budget as Budget
    from ._config_groups import Compaction as Compaction
    from ._config import (
        DEFAULT_HOOK_TIMEOUT as DEFAULT_HOOK_TIMEOUT,
        DEFAULT_MAX_TOOL_RESULT_CHARS as DEFAULT_MAX_TOOL_RESULT_CHARS,
        DEFAULT_TOOL_TIMEOUT as DEFAULT_TOOL_TIMEOUT,
        AgentConfig as AgentConfig,
        BeforeToolCall as BeforeToolCall,
        Connection as Connection,
        Decision as Decision,
        Limits as Limits,
        RunResult as RunResult,
        Timeouts as Timeouts,
        Trust as Trust,
        allow_all as allow_all,
    )
    from ._plugins import PluginHost as PluginHost, PluginRecord as PluginRecord
    from ._settings import ModelSettings as ModelSettings
    from ._steps import RunSteps as RunSteps, SubagentHandler as SubagentHandler, ToolStep as ToolStep
    from ._stopping.policies import (
        StopContext as StopContext,
        StopPolicy as StopPolicy,
        any_of as any_of,
        max_turns as max_turns,
        stop_when as stop_when,
    )
    from ._subagents import Subagent as Subagent
    from ._tool_caller import PendingCall as PendingCall, ToolCaller as ToolCaller
    from .errors import (
        AgentBusy as AgentBusy,
        ConfigError as ConfigError,
        FileInputError as FileInputError,
        ImageError as ImageError,
        ModelNotFound as ModelNotFound,
        NothingToContinue as NothingToContinue,
        SkillConflictError as SkillConflictError,
        UnsafeDataDirError as UnsafeDataDirError,
    )
    # isort: on

    __version__: str

# The public names, each with the module that defines it (relative to this package): the one list
# of them, which __all__ is made from. The imports above say the same to type checkers, which do
# not run __getattr__.
_EXPORTS = {
    "Agent": "._agent",
    "AgentStats": "._agent",
    "Approval": "._approvals",
    "AuditRecord": "._audit",
    "AuditSink": "._audit",
    "JsonlAuditSink": "._audit",
    "Budget": "._budget",
    "Compaction": "._config_groups",
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
    "RunSteps": "._steps",
    "SubagentHandler": "._steps",
    "ToolStep": "._steps",
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
    "FileInputError": ".errors",
    "ImageError": ".errors",
    "ModelNotFound": ".errors",
    "NothingToContinue": ".errors",
    "SkillConflictError": ".errors",
    "UnsafeDataDirError": ".errors",
    "Block": "agentkit.plugin_api",
    "Defer": "agentkit.plugin_api",
    "Outcome": "agentkit.plugin_api",
}

__all__ = [*_EXPORTS, "__version__"]


def _version() -> str:
    from ._dist_info import host_version

    return host_version()


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
