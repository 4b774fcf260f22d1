"""The canonical vocabulary round-trips through JSON and keeps what the model produced."""

from __future__ import annotations

import json

import pytest

from agentkit.plugin_api import (
    EVENT_SCHEMA,
    AgentEnd,
    AssistantMessage,
    BlockDelta,
    BlockEnd,
    BlockStart,
    ImageBlock,
    MessageAssembler,
    MessageEnd,
    MessageStart,
    Outcome,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolCallEnd,
    ToolResultMessage,
    ToolUseBlock,
    TurnEnd,
    Usage,
    UserMessage,
    event_from_dict,
    event_to_dict,
    message_from_dict,
)

ASSISTANT = AssistantMessage(
    [
        ThinkingBlock("let me think", "sig-1"),
        ThinkingBlock("", "opaque", redacted=True),
        TextBlock("héllo ✓"),
        ToolUseBlock("call_1", "edit", '{"b": 1,  "a": [1, 2]}'),
    ],
    StopReason.TOOL_USE,
    raw_stop_reason="tool_calls",
    provider="p",
    api="w",
    model="m",
    response_id="r1",
    usage=Usage(input=10, output=20, reasoning=5, cache_read=3, cache_write=2, cost=0.01),
)
MESSAGES = [
    UserMessage([TextBlock("hi"), ImageBlock("aGk=", "image/png")]),
    ASSISTANT,
    ToolResultMessage("call_1", "edit", [TextBlock('{"ok": true}')], is_error=False),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: m.role)
def test_messages_round_trip_through_json(message):
    assert message_from_dict(json.loads(json.dumps(message.to_dict()))) == message


def test_tool_use_keeps_the_argument_text_exactly():
    rebuilt = message_from_dict(json.loads(json.dumps(ASSISTANT.to_dict())))
    assert rebuilt.tool_calls[0].arguments == '{"b": 1,  "a": [1, 2]}'
    assert list(rebuilt.tool_calls[0].parsed_arguments()) == ["b", "a"]


EVENTS = [
    MessageStart("p", "m"),
    BlockStart(0, "tool_use", tool_name="edit", tool_use_id="call_1"),
    BlockDelta(0, '{"a"'),
    BlockEnd(0, ToolUseBlock("call_1", "edit", "{}")),
    MessageEnd(ASSISTANT),
    ToolCallEnd(MESSAGES[2]),
    TurnEnd(1, ASSISTANT, [MESSAGES[2]]),
    AgentEnd(Outcome.COMPLETED, MESSAGES),
]


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: e.type)
def test_events_are_a_versioned_discriminated_union(event):
    data = json.loads(json.dumps(event_to_dict(event)))
    assert data["schema"] == EVENT_SCHEMA and data["type"] == event.type
    assert event_from_dict(data) == event


def test_agent_end_carries_the_runs_typed_outcome_not_a_stop_reason():
    data = json.loads(json.dumps(event_to_dict(AgentEnd(Outcome.TERMINATED, [], None))))
    assert data["outcome"] == "terminated" and "stop_reason" not in data
    event = event_from_dict(data)
    assert isinstance(event, AgentEnd) and event.outcome is Outcome.TERMINATED


@pytest.mark.parametrize(("v1", "outcome"), [("completed", Outcome.COMPLETED), ("max_turns", Outcome.MAX_TURNS),
                                             ("timeout", Outcome.TIMEOUT), ("saw_stop", Outcome.STOP_POLICY)])
def test_a_v1_agent_end_is_read_as_its_outcome(v1: str, outcome: Outcome) -> None:
    """v1 said ``stop_reason``, and named a stop policy that fired by its own name."""
    event = event_from_dict({"schema": "agentkit.event/v1", "type": "agent_end", "stop_reason": v1, "messages": []})
    assert isinstance(event, AgentEnd) and event.outcome is outcome


def test_the_deprecated_stop_reason_of_agent_end_names_its_replacement():
    with pytest.warns(DeprecationWarning, match="AgentEnd.outcome"):
        assert AgentEnd(Outcome.ABORTED, []).stop_reason == "aborted"


def test_usage_reasoning_is_inside_output():
    usage = Usage(input=1, output=10, reasoning=4) + Usage(input=2, output=5, reasoning=1)
    assert (usage.output, usage.reasoning, usage.total) == (15, 5, 18)


def test_the_assembler_emits_the_normative_order_and_keeps_partial_content_on_failure():
    assembler = MessageAssembler(provider="p", api="w", model="m")
    events = []
    index, started = assembler.start_block("text")
    events += started + assembler.delta(index, "par") + assembler.delta(index, "tial")
    tool, started = assembler.start_block("tool_use", id="c1", name="edit")
    events += started + assembler.delta(tool, '{"pa')
    events += assembler.fail(StopReason.ABORTED, "aborted by the caller")
    assert [event.type for event in events] == [
        "message_start", "block_start", "block_delta", "block_delta", "block_start", "block_delta",
        "block_end", "block_end", "message_end",
    ]
    final = events[-1].message
    assert final.stop_reason is StopReason.ABORTED and final.text == "partial"
    assert final.tool_calls[0].arguments == '{"pa'
    assert assembler.fail(StopReason.ERROR, "again") == [], "a message ends once"


@pytest.mark.parametrize(
    "data",
    [
        {"role": "user", "content": [ToolUseBlock("call_1", "edit", "{}").to_dict()]},
        {
            "role": "tool_result",
            "tool_use_id": "call_1",
            "tool_name": "edit",
            "content": [ThinkingBlock("hmm", "sig").to_dict()],
        },
    ],
    ids=["user", "tool_result"],
)
def test_a_message_whose_role_cannot_hold_a_block_is_refused_when_rebuilt(data):
    # Only the assistant speaks in tool calls and thinking; a transcript that says
    # otherwise is corrupt, and must fail here, not later inside a provider's encoder.
    with pytest.raises(ValueError, match=rf"{data['role']} message cannot hold a '\w+' block"):
        message_from_dict(data)
