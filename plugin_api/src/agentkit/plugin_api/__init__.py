"""The agentkit plugin API: the one module a plugin imports from agentkit.

Hook specifications live in :mod:`agentkit.plugin_api.hookspecs`, one module
per category. Everything a plugin needs to implement them is exported here;
a provider's codec kit is :mod:`agentkit.plugin_api.codec`, loaded only by
the plugins that import it.
"""

from importlib.metadata import PackageNotFoundError, version

from ._assembler import MessageAssembler
from ._events import (
    EVENT_SCHEMA,
    AgentEnd,
    AgentStart,
    BlockDelta,
    BlockEnd,
    BlockStart,
    Event,
    MessageEnd,
    MessageStart,
    OutputPartial,
    ProviderEvent,
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

try:
    __version__ = version("agentkit-plugin-api")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"

__all__ = [
    "DEFAULT_TOOL_CALL_ID_RULE",
    "EVENT_SCHEMA",
    "PROJECT_NAME",
    "AgentEnd",
    "AgentStart",
    "AgentkitError",
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
    "Provider",
    "ProviderError",
    "ProviderEvent",
    "ProviderRequest",
    "SchemaError",
    "SessionInfo",
    "Skill",
    "StopReason",
    "StreamDecoder",
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
