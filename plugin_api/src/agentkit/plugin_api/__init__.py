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

# typing itself costs more than this module: the flag is spelled out, as type checkers honour it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._assembler import MessageAssembler
    from ._events import (
        EVENT_SCHEMA,
        AgentEnd,
        AgentStart,
        ArtifactCreated,
        BlockDelta,
        BlockEnd,
        BlockStart,
        Event,
        MessageEnd,
        MessageStart,
        OutputPartial,
        ProviderEvent,
        SubagentEvent,
        ToolCallEnd,
        ToolCallStart,
        TurnEnd,
        TurnStart,
        event_from_dict,
        event_to_dict,
    )
    from ._hooks import Block, SessionInfo
    from ._markers import PROJECT_NAME, hookimpl
    from ._messages import (
        AssistantMessage,
        ContentBlock,
        ImageBlock,
        Message,
        StopReason,
        TextBlock,
        ThinkingBlock,
        ToolResultMessage,
        ToolUseBlock,
        Usage,
        UserMessage,
        block_from_dict,
        message_from_dict,
    )
    from ._outcome import Outcome
    from ._project import Project
    from ._providers import (
        DEFAULT_TOOL_CALL_ID_RULE,
        ConformanceResponder,
        Credential,
        CredentialKind,
        ModelInfo,
        Provider,
        ProviderRequest,
        StreamDecoder,
        ToolSpec,
        WireEvent,
        WireRequest,
        provider_member,
    )
    from ._schema import SchemaError, schema_from_function
    from ._skills import Skill
    from ._tools import CancelToken, ExecutionMode, Tool, ToolContext, ToolError, ToolResult
    from .errors import AgentkitError, PluginError, ProviderError, UsageError

    __version__: str

# Where each public name is defined, relative to this package.
_EXPORTS = {
    "MessageAssembler": "._assembler",
    "EVENT_SCHEMA": "._events",
    "AgentEnd": "._events",
    "AgentStart": "._events",
    "ArtifactCreated": "._events",
    "BlockDelta": "._events",
    "BlockEnd": "._events",
    "BlockStart": "._events",
    "Event": "._events",
    "MessageEnd": "._events",
    "MessageStart": "._events",
    "OutputPartial": "._events",
    "ProviderEvent": "._events",
    "SubagentEvent": "._events",
    "ToolCallEnd": "._events",
    "ToolCallStart": "._events",
    "TurnEnd": "._events",
    "TurnStart": "._events",
    "event_from_dict": "._events",
    "event_to_dict": "._events",
    "Block": "._hooks",
    "SessionInfo": "._hooks",
    "Project": "._project",
    "PROJECT_NAME": "._markers",
    "hookimpl": "._markers",
    "AssistantMessage": "._messages",
    "ContentBlock": "._messages",
    "ImageBlock": "._messages",
    "Message": "._messages",
    "StopReason": "._messages",
    "TextBlock": "._messages",
    "ThinkingBlock": "._messages",
    "ToolResultMessage": "._messages",
    "ToolUseBlock": "._messages",
    "Usage": "._messages",
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

__all__ = [
    "DEFAULT_TOOL_CALL_ID_RULE",
    "EVENT_SCHEMA",
    "PROJECT_NAME",
    "AgentEnd",
    "AgentStart",
    "AgentkitError",
    "ArtifactCreated",
    "AssistantMessage",
    "Block",
    "BlockDelta",
    "BlockEnd",
    "BlockStart",
    "CancelToken",
    "ConformanceResponder",
    "ContentBlock",
    "Credential",
    "CredentialKind",
    "Event",
    "ExecutionMode",
    "ImageBlock",
    "Message",
    "MessageAssembler",
    "MessageEnd",
    "MessageStart",
    "ModelInfo",
    "Outcome",
    "OutputPartial",
    "PluginError",
    "Project",
    "Provider",
    "ProviderError",
    "ProviderEvent",
    "ProviderRequest",
    "SchemaError",
    "SessionInfo",
    "Skill",
    "StopReason",
    "StreamDecoder",
    "SubagentEvent",
    "TextBlock",
    "ThinkingBlock",
    "Tool",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "ToolResultMessage",
    "ToolSpec",
    "ToolUseBlock",
    "TurnEnd",
    "TurnStart",
    "Usage",
    "UsageError",
    "UserMessage",
    "WireEvent",
    "WireRequest",
    "__version__",
    "block_from_dict",
    "event_from_dict",
    "event_to_dict",
    "hookimpl",
    "message_from_dict",
    "provider_member",
    "schema_from_function",
]


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
        value = getattr(import_module(where, __name__), name)
    elif name == "__version__":
        value = _version()
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # looked up once: later uses are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
