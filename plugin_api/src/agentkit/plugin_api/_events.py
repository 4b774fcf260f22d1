"""Events: what a provider stream and an agent run report, in order.

Events form a discriminated union on ``type``. ``event_to_dict`` gives the
JSON form, stamped with :data:`EVENT_SCHEMA`; consumers must ignore fields
they do not know, and fields are only ever added within one schema version.

A provider stream produces, for one response::

    message_start
      block_start(index=0) block_delta(index=0)* block_end(index=0, block)
      block_start(index=1) ...
    message_end(message)

``block_end`` carries the whole block and ``message_end`` the whole
assistant message, so a consumer that only wants results can ignore deltas.
A failed or cancelled response still ends with ``message_end``, its message
stopped with ``error`` or ``aborted``.

An agent run wraps those in ``agent_start`` / ``turn_start`` / ``tool_call_start``
/ ``tool_call_end`` / ``turn_end`` / ``agent_end``; a tool that reports how it is going adds
``tool_call_progress`` events between its call's start and end; ``artifact_created`` comes
before the ``tool_call_end`` of a result too long to inline. A structured run adds
``output_partial`` events as its output's JSON arrives. An agent with fallback
models emits ``model_fallback`` when a turn's request goes to the next one. A refused answer or tool call
is a ``retry_requested`` event; a message a guardrail blocked, ``prompt_blocked``. The events of a
subagent's run reach its parent wrapped in ``subagent`` events.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal, TypeAlias

from ._dataclass import dataclass
from ._messages import AssistantMessage, ContentBlock

TYPE_CHECKING = False  # spelled out, as the package's __init__ does
if TYPE_CHECKING:
    # isort: off
    from ._run_events import (
        MAX_PROGRESS_CHARS as MAX_PROGRESS_CHARS,
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
    # isort: on

#: The version stamp of the JSON form of every event. v2: ``agent_end`` carries
#: ``outcome`` where v1 had ``stop_reason`` (:func:`event_from_dict` reads both).
EVENT_SCHEMA = "agentkit.event/v2"

BlockKind: TypeAlias = Literal["text", "thinking", "tool_use", "image"]


@dataclass(slots=True)
class MessageStart:
    """A response began arriving."""

    provider: str = ""
    model: str = ""
    type: Literal["message_start"] = field(default="message_start", init=False)


@dataclass(slots=True)
class BlockStart:
    """Content block ``index`` began; tool-use blocks name the tool and call id."""

    index: int
    kind: BlockKind
    tool_name: str | None = None
    tool_use_id: str | None = None
    type: Literal["block_start"] = field(default="block_start", init=False)


@dataclass(slots=True)
class BlockDelta:
    """More text of block ``index``: text, thinking, or tool-argument text."""

    index: int
    delta: str
    type: Literal["block_delta"] = field(default="block_delta", init=False)


@dataclass(slots=True)
class BlockEnd:
    """Content block ``index`` is complete; ``block`` is the whole of it."""

    index: int
    block: ContentBlock
    type: Literal["block_end"] = field(default="block_end", init=False)


@dataclass(slots=True)
class MessageEnd:
    """The response is complete (or failed, or was cancelled)."""

    message: AssistantMessage
    type: Literal["message_end"] = field(default="message_end", init=False)


ProviderEvent: TypeAlias = MessageStart | BlockStart | BlockDelta | BlockEnd | MessageEnd

#: The events of a run (:mod:`._run_events`), which a provider's stream never makes: they load with
#: the first one used, so a provider plugin, and a run nobody listens to, load only the ones above.
_RUN_EVENTS = frozenset({
    "AgentEnd", "AgentStart", "ArtifactCreated", "Event", "MAX_PROGRESS_CHARS", "ModelFallback", "OutputPartial",
    "PromptBlocked", "RetryRequested", "SteeringMessage", "SubagentEvent", "ToolCallEnd", "ToolCallProgress",
    "ToolCallStart", "TurnEnd", "TurnStart", "event_from_dict", "event_to_dict",
})


def __getattr__(name: str) -> Any:
    if name in _RUN_EVENTS:
        from . import _run_events

        return getattr(_run_events, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
