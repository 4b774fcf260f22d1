"""The agentkit plugin API: the one module a plugin imports from agentkit.

Hook specifications live in :mod:`agentkit.plugin_api.hookspecs`, one module
per category. Everything a plugin needs to implement them is exported here;
a provider's codec kit is :mod:`agentkit.plugin_api.codec`, loaded only by
the plugins that import it.

Each name is imported from its private module on first use (PEP 562): a
plugin pays only for the parts of the API it touches, and a process that
imports the package for one name does not load the rest.
"""

from __future__ import annotations

from importlib import import_module
from sys import modules as _loaded

# typing costs more than this package: `python -X importtime` puts `import typing` after
# agentkit.plugin_api at 6.4-7.2 ms, the package itself at 2.1-2.5 ms. The flag is spelled out, as
# type checkers honour it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    # `import X as X` marks each name as re-exported (PEP 484), for type checkers; isort would
    # split each such name into a statement of its own.
    # isort: off
    from typing import Any

    from ._assembler import MessageAssembler as MessageAssembler
    from ._events import (
        EVENT_SCHEMA as EVENT_SCHEMA,
        BlockDelta as BlockDelta,
        BlockEnd as BlockEnd,
        BlockStart as BlockStart,
        MessageEnd as MessageEnd,
        MessageStart as MessageStart,
        ProviderEvent as ProviderEvent,
    )
    from ._hooks import Block as Block, Defer as Defer, SessionInfo as SessionInfo
    from ._markers import PROJECT_NAME as PROJECT_NAME, hookimpl as hookimpl
    from ._messages import (
        AssistantMessage as AssistantMessage,
        AudioBlock as AudioBlock,
        ContentBlock as ContentBlock,
        DocumentBlock as DocumentBlock,
        ImageBlock as ImageBlock,
        Message as Message,
        StopReason as StopReason,
        TextBlock as TextBlock,
        ThinkingBlock as ThinkingBlock,
        ToolResultMessage as ToolResultMessage,
        ToolUseBlock as ToolUseBlock,
        Usage as Usage,
        UserContent as UserContent,
        UserMessage as UserMessage,
        block_from_dict as block_from_dict,
        message_from_dict as message_from_dict,
    )
    from ._outcome import Outcome as Outcome
    from ._project import Project as Project
    from ._project import user_config_file as user_config_file
    from ._providers import (
        DEFAULT_TOOL_CALL_ID_RULE as DEFAULT_TOOL_CALL_ID_RULE,
        ConformanceResponder as ConformanceResponder,
        Credential as Credential,
        CredentialKind as CredentialKind,
        ModelInfo as ModelInfo,
        Provider as Provider,
        ProviderRequest as ProviderRequest,
        StreamDecoder as StreamDecoder,
        ToolSpec as ToolSpec,
        WireEvent as WireEvent,
        WireRequest as WireRequest,
        provider_member as provider_member,
    )
    from ._retry import Retry as Retry
    from ._run_events import (
        AgentEnd as AgentEnd,
        AgentStart as AgentStart,
        ArtifactCreated as ArtifactCreated,
        Event as Event,
        ModelFallback as ModelFallback,
        OutputPartial as OutputPartial,
        PromptBlocked as PromptBlocked,
        RetryRequested as RetryRequested,
        SteeringMessage as SteeringMessage,
        SubagentEvent as SubagentEvent,
        ToolCallEnd as ToolCallEnd,
        ToolCallProgress as ToolCallProgress,
        ToolCallStart as ToolCallStart,
        TurnEnd as TurnEnd,
        TurnStart as TurnStart,
        event_from_dict as event_from_dict,
        event_to_dict as event_to_dict,
    )
    from ._schema import SchemaError as SchemaError, schema_from_function as schema_from_function
    from ._skills import Skill as Skill
    from ._tools import (
        CancelToken as CancelToken,
        ExecutionMode as ExecutionMode,
        Tool as Tool,
        ToolContext as ToolContext,
        ToolError as ToolError,
        ToolResult as ToolResult,
    )
    from .errors import (
        AgentkitError as AgentkitError,
        PluginError as PluginError,
        ProviderError as ProviderError,
        UsageError as UsageError,
    )
    # isort: on

    __version__: str

# The public names, each with the module that defines it (relative to this package): the one list
# of them, which __all__ is made from. The imports above say the same to type checkers, which do
# not run __getattr__.
_EXPORTS = {
    "MessageAssembler": "._assembler",
    "EVENT_SCHEMA": "._events",
    "AgentEnd": "._run_events",
    "AgentStart": "._run_events",
    "ArtifactCreated": "._run_events",
    "BlockDelta": "._events",
    "BlockEnd": "._events",
    "BlockStart": "._events",
    "Event": "._run_events",
    "MessageEnd": "._events",
    "MessageStart": "._events",
    "ModelFallback": "._run_events",
    "OutputPartial": "._run_events",
    "ProviderEvent": "._events",
    "PromptBlocked": "._run_events",
    "RetryRequested": "._run_events",
    "ToolCallProgress": "._run_events",
    "Retry": "._retry",
    "SteeringMessage": "._run_events",
    "SubagentEvent": "._run_events",
    "ToolCallEnd": "._run_events",
    "ToolCallStart": "._run_events",
    "TurnEnd": "._run_events",
    "TurnStart": "._run_events",
    "event_from_dict": "._run_events",
    "event_to_dict": "._run_events",
    "Block": "._hooks",
    "Defer": "._hooks",
    "SessionInfo": "._hooks",
    "Project": "._project",
    "user_config_file": "._project",
    "PROJECT_NAME": "._markers",
    "hookimpl": "._markers",
    "AssistantMessage": "._messages",
    "AudioBlock": "._messages",
    "ContentBlock": "._messages",
    "DocumentBlock": "._messages",
    "ImageBlock": "._messages",
    "Message": "._messages",
    "StopReason": "._messages",
    "TextBlock": "._messages",
    "ThinkingBlock": "._messages",
    "ToolResultMessage": "._messages",
    "ToolUseBlock": "._messages",
    "Usage": "._messages",
    "UserContent": "._messages",
    "UserMessage": "._messages",
    "block_from_dict": "._messages",
    "message_from_dict": "._messages",
    "Outcome": "._outcome",
    "DEFAULT_TOOL_CALL_ID_RULE": "._providers",
    "ConformanceResponder": "._providers",
    "Credential": "._providers",
    "CredentialKind": "._providers",
    "ModelInfo": "._providers",
    "Provider": "._providers",
    "ProviderRequest": "._providers",
    "StreamDecoder": "._providers",
    "ToolSpec": "._providers",
    "WireEvent": "._providers",
    "WireRequest": "._providers",
    "provider_member": "._providers",
    "SchemaError": "._schema",
    "schema_from_function": "._schema",
    "Skill": "._skills",
    "CancelToken": "._tools",
    "ExecutionMode": "._tools",
    "Tool": "._tools",
    "ToolContext": "._tools",
    "ToolError": "._tools",
    "ToolResult": "._tools",
    "AgentkitError": ".errors",
    "PluginError": ".errors",
    "ProviderError": ".errors",
    "UsageError": ".errors",
}

__all__ = [*_EXPORTS, "__version__"]


def _version() -> str:
    # importlib.metadata costs more than the rest of this package (and scans sys.path): only when asked for.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agentkit-plugin-api")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


def __getattr__(name: str) -> Any:
    where = _EXPORTS.get(name)
    if where is not None:
        # A part loaded whole is read from sys.modules: import_module resolves the name and takes the import
        # machinery's path first, fifteen times the bytecodes, and a first use asks for some fifty names. One
        # still being loaded (by another thread, say) is left to import_module, which waits for it.
        module = _loaded.get(__name__ + where)
        if module is None or getattr(module.__spec__, "_initializing", False):
            module = import_module(where, __name__)
        value = getattr(module, name)
    elif name == "__version__":
        value = _version()
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # looked up once: later uses are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
