"""The events of an agent run, around the provider events of :mod:`._events`; see that module for the order.

They are in a module of their own because a provider's stream never makes
them: a provider plugin, and a run that nobody listens to, do not load them.
``agentkit.plugin_api`` exports each of them, and :mod:`._events` answers for
them too, so every name keeps working where it was imported from.
"""

from __future__ import annotations

import warnings
from dataclasses import field
from typing import Any, Literal, TypeAlias

from ._dataclass import dataclass
from ._events import (
    EVENT_SCHEMA,
    BlockDelta,
    BlockEnd,
    BlockStart,
    MessageEnd,
    MessageStart,
    ProviderEvent,
)
from ._messages import (
    AssistantMessage,
    Message,
    ToolResultMessage,
    ToolUseBlock,
    block_from_dict,
    message_from_dict,
)
from ._outcome import Outcome

__all__ = [
    "MAX_PROGRESS_CHARS",
    "AgentEnd",
    "AgentStart",
    "ArtifactCreated",
    "Event",
    "ModelFallback",
    "OutputPartial",
    "PromptBlocked",
    "RetryRequested",
    "SteeringMessage",
    "SubagentEvent",
    "ToolCallEnd",
    "ToolCallProgress",
    "ToolCallStart",
    "TurnEnd",
    "TurnStart",
    "event_from_dict",
    "event_to_dict",
]


@dataclass(slots=True)
class AgentStart:
    """A run began with these new messages."""

    messages: list[Message]
    type: Literal["agent_start"] = field(default="agent_start", init=False)


@dataclass(slots=True)
class SteeringMessage:
    """A steering message (``Agent.steer``) joined the history, at the head of a turn, just before its request.

    .. versionadded:: 0.1 (unreleased): before it, a steered message showed in no event but ``agent_end``'s.
    """

    message: Message
    type: Literal["steering_message"] = field(default="steering_message", init=False)


@dataclass(slots=True)
class TurnStart:
    """Turn ``turn`` (counted from 1) is about to send a request."""

    turn: int
    type: Literal["turn_start"] = field(default="turn_start", init=False)


@dataclass(slots=True)
class ModelFallback:
    """Turn ``turn``'s request failed at ``model`` before any of its response arrived; it goes to ``fallback``.

    Only an agent given fallback models (``AgentConfig(model=[...])``) emits
    it, and only for a failure another model may cure (a connection failure,
    429, 5xx such as 529 overloaded, after the retries). The model that
    served the turn is the one its ``message_start`` names.

    :param turn: the turn (counted from 1).
    :param model: the ``vendor/model`` that failed.
    :param fallback: the ``vendor/model`` the same request goes to next.
    :param error: why ``model`` failed, one line (credentials never appear in it).
    """

    turn: int
    model: str
    fallback: str
    error: str
    type: Literal["model_fallback"] = field(default="model_fallback", init=False)


@dataclass(slots=True)
class ToolCallStart:
    """A tool call from the model is being handled."""

    call: ToolUseBlock
    type: Literal["tool_call_start"] = field(default="tool_call_start", init=False)


@dataclass(slots=True)
class ToolCallEnd:
    """A tool call has its result (success, error, block or abort)."""

    result: ToolResultMessage
    type: Literal["tool_call_end"] = field(default="tool_call_end", init=False)


#: The most characters of a ``tool_call_progress`` message: a chatty tool (or the
#: remote it relays) cannot flood the event stream with one report.
MAX_PROGRESS_CHARS = 4096


@dataclass(slots=True)
class ToolCallProgress:
    """A running tool call reported how it is going (``ToolContext.progress``).

    Comes after the call's ``tool_call_start`` and before its ``tool_call_end``.
    A ``message`` longer than 4096 characters (:data:`MAX_PROGRESS_CHARS`) is
    cut to its first 4095 and an ellipsis.

    .. versionadded:: 0.2
    """

    tool_use_id: str
    tool_name: str
    message: str
    type: Literal["tool_call_progress"] = field(default="tool_call_progress", init=False)

    def __post_init__(self) -> None:
        if len(self.message) > MAX_PROGRESS_CHARS:
            self.message = self.message[:MAX_PROGRESS_CHARS - 1] + "\u2026"


@dataclass(slots=True)
class ArtifactCreated:
    """A tool result longer than the inline limit was stored whole as an artifact.

    The model got a preview and the id, and reads the rest with ``read_artifact``;
    the call's ``tool_call_end`` follows. ``chars`` is the length of the stored text.
    """

    artifact_id: str
    tool_use_id: str
    tool_name: str
    chars: int
    type: Literal["artifact_created"] = field(default="artifact_created", init=False)


@dataclass(slots=True)
class TurnEnd:
    """A turn finished: the response and every result of its tool calls."""

    turn: int
    message: AssistantMessage
    tool_results: list[ToolResultMessage]
    type: Literal["turn_end"] = field(default="turn_end", init=False)


@dataclass(slots=True)
class AgentEnd:
    """The run ended with ``outcome``, as on its result; ``error`` says what went wrong, if anything."""

    outcome: Outcome
    messages: list[Message]
    error: str | None = None
    type: Literal["agent_end"] = field(default="agent_end", init=False)

    @property
    def stop_reason(self) -> str:
        """Deprecated: the run's end is :attr:`outcome`; ``stop_reason`` is a message's."""
        warnings.warn("AgentEnd.stop_reason is deprecated: use AgentEnd.outcome (an agentkit.plugin_api.Outcome)",
                      DeprecationWarning, stacklevel=2)
        return self.outcome.value


@dataclass(slots=True)
class OutputPartial:
    """A structured run's output so far, as its JSON arrives (``Agent.run(..., output_type=T)``).

    Best effort and not validated: the JSON text received so far with its
    open strings, arrays and objects closed, a value not yet begun left out.
    The validated value is ``RunResult.output``.
    """

    value: Any
    type: Literal["output_partial"] = field(default="output_partial", init=False)


@dataclass(slots=True)
class PromptBlocked:
    """A guardrail blocked a message before any request carried it; the run ends with outcome ``guardrail``.

    :param reason: why, as the guardrail said it (or the error of a guardrail that failed: it fails closed).
    :param by: who: ``plugin:<name>``.
    :param source: which message: ``prompt`` (the run's own), ``steering`` or ``follow_up``.

    .. versionadded:: 0.2
    """

    reason: str
    by: str
    source: str
    type: Literal["prompt_blocked"] = field(default="prompt_blocked", init=False)


@dataclass(slots=True)
class RetryRequested:
    """An answer or a tool call was refused with a reason for the model to try again.

    :param reason: what the model is told was wrong.
    :param by: who refused: ``validator`` (an output validator raised ``Retry``),
        ``output_type`` (the structured output did not fit its type),
        ``plugin:<name>`` (an output guardrail), or ``tool:<name>`` (a tool raised ``Retry``).
    :param attempt: how many times in a row this was refused, this one included.
    :param max_retries: how many retries were allowed (``AgentConfig.output_retries``, ``Tool.max_retries``).
    :param retried: whether the model is asked again; ``False`` when the retries are spent (the run
        ends, or the tool call's result is an error saying so) or a guardrail refused with ``terminate``.
    :param tool_use_id: the refused tool call, for ``tool:<name>``; ``None`` for an answer.

    .. versionadded:: 0.2
    """

    reason: str
    by: str
    attempt: int
    max_retries: int
    retried: bool
    tool_use_id: str | None = None
    type: Literal["retry_requested"] = field(default="retry_requested", init=False)


@dataclass(slots=True)
class SubagentEvent:
    """An event of a subagent's run, passed on to its parent's stream and subscribers.

    :param agent: the subagent's tool name.
    :param call_id: the parent's tool call the subagent serves.
    :param session_id: the subagent's own session id.
    :param event: the child's event, as it emitted it (a subagent's own
        subagents' events arrive nested once more).
    """

    agent: str
    call_id: str
    session_id: str
    event: Event
    type: Literal["subagent"] = field(default="subagent", init=False)


Event: TypeAlias = (
    ProviderEvent | AgentStart | SteeringMessage | TurnStart | ModelFallback | ToolCallStart | ToolCallProgress | ArtifactCreated | ToolCallEnd | TurnEnd | AgentEnd
    | OutputPartial | SubagentEvent | PromptBlocked | RetryRequested
)

_EVENT_TYPES: dict[str, type[Event]] = {
    str(cls.__dataclass_fields__["type"].default): cls
    for cls in (
        MessageStart,
        BlockStart,
        BlockDelta,
        BlockEnd,
        MessageEnd,
        AgentStart,
        SteeringMessage,
        TurnStart,
        ModelFallback,
        ToolCallStart,
        ToolCallProgress,
        ArtifactCreated,
        ToolCallEnd,
        TurnEnd,
        AgentEnd,
        OutputPartial,
        SubagentEvent,
        PromptBlocked,
        RetryRequested,
    )
}


def _v1_outcome(stop_reason: str) -> Outcome:
    """A v1 ``stop_reason``, which named a stop policy that fired by its name."""
    try:
        return Outcome(stop_reason)
    except ValueError:
        return Outcome.STOP_POLICY


def _encode(value: Any) -> Any:
    if isinstance(value, Outcome):
        return value.value
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, list):
        return [_encode(item) for item in value]
    return value


def event_to_dict(event: Event) -> dict[str, Any]:
    """The JSON form of an event, stamped ``"schema": "agentkit.event/v1"``."""
    data: dict[str, Any] = {"schema": EVENT_SCHEMA, "type": event.type}
    for name in event.__dataclass_fields__:
        if name == "event":
            data[name] = event_to_dict(getattr(event, name))
        elif name != "type":
            data[name] = _encode(getattr(event, name))
    return data


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from :func:`event_to_dict` output."""
    cls = _EVENT_TYPES.get(data.get("type", ""))
    if cls is None:
        raise ValueError(f"unknown event type {data.get('type')!r}")
    if cls is AgentEnd and "outcome" not in data and "stop_reason" in data:  # agentkit.event/v1
        data = {**data, "outcome": _v1_outcome(data["stop_reason"])}
    kwargs: dict[str, Any] = {}
    for name in cls.__dataclass_fields__:
        if name == "type" or name not in data:
            continue
        value = data[name]
        if name == "outcome":
            value = Outcome(value)
        elif name in ("message", "result"):
            value = message_from_dict(value)
        elif name in ("messages", "tool_results"):
            value = [message_from_dict(item) for item in value]
        elif name in ("block", "call"):
            value = block_from_dict(value)
        elif name == "event":
            value = event_from_dict(value)
        kwargs[name] = value
    return cls(**kwargs)
