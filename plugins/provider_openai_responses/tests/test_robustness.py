"""A decoder must never raise: any sequence of JSON values ends in exactly one message.

Events are drawn from the real event types with fields of any JSON type in
any place, shuffled, duplicated and cut short.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentkit.plugin_api import MessageEnd, StopReason, WireEvent

TYPES = [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.output_text.delta",
    "response.refusal.delta",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.reasoning_summary_text.delta",
    "response.output_item.done",
    "response.completed",
    "response.incomplete",
    "response.failed",
    "error",
    "response.unknown",
]
FIELDS = ["output_index", "item_id", "delta", "arguments", "summary_index", "item", "response"]

scalars = st.none() | st.booleans() | st.integers(-2, 3) | st.text(max_size=6)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "id",
                    "call_id",
                    "name",
                    "arguments",
                    "summary",
                    "text",
                    "content",
                    "output",
                    "status",
                    "usage",
                    "encrypted_content",
                    "incomplete_details",
                    "error",
                    "reason",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=12,
)
events = st.builds(
    lambda kind, fields: {"type": kind, **fields},
    st.sampled_from(TYPES),
    st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=4),
)
wire = st.lists(
    events | json_values.map(lambda v: {"object": "response", "output": v}), max_size=12
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(stream=wire, abort=st.booleans())
def test_any_event_sequence_ends_in_one_message(kit, stream, abort) -> None:
    from agentkit_provider_openai_responses import OpenAIResponses

    decoder = OpenAIResponses().decoder(kit.request_for())
    out = []
    for data in stream:
        out += decoder.feed(WireEvent(data=data, event=data.get("type")))
    out += decoder.fail(StopReason.ABORTED, "aborted") if abort else decoder.finish()
    ends = [event for event in out if isinstance(event, MessageEnd)]
    assert len(ends) == 1 and out[-1] is ends[0]


def _transcript_strategy():
    from agentkit.plugin_api import (
        AssistantMessage,
        ImageBlock,
        TextBlock,
        ThinkingBlock,
        ToolResultMessage,
        ToolUseBlock,
        UserMessage,
    )

    text = st.text(max_size=8)
    signature = (
        st.none()
        | st.text(max_size=5)
        | st.builds(
            lambda i, e: json.dumps({"id": f"rs_{i}", **({"encrypted_content": e} if e else {})}),
            st.integers(0, 9),
            st.none() | st.text(min_size=1, max_size=4),
        )
    )
    call_id = st.builds(
        lambda n, item: f"call_{n}|fc_{n}" if item else f"call_{n}",
        st.integers(0, 99),
        st.booleans(),
    )
    call = st.builds(ToolUseBlock, call_id, st.sampled_from(["read_file", "grep"]), text)
    block = (
        st.builds(TextBlock, text) | st.builds(ThinkingBlock, text, signature, st.booleans()) | call
    )
    assistant = st.builds(
        lambda blocks: AssistantMessage(blocks, StopReason.TOOL_USE), st.lists(block, max_size=4)
    )
    part = st.builds(TextBlock, text) | st.builds(ImageBlock, st.just("QUJD"), st.just("image/png"))
    user = st.builds(UserMessage, st.lists(part, max_size=2))
    result = st.builds(
        lambda tid, parts, err: ToolResultMessage(tid, "read_file", parts, err),
        call_id,
        st.lists(part, max_size=2),
        st.booleans(),
    )
    return st.lists(user | assistant | result, min_size=1, max_size=10)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_warm_encoder_writes_what_a_cold_one_writes(kit, data) -> None:
    from agentkit_provider_openai_responses import OpenAIResponses

    messages = data.draw(_transcript_strategy())
    warm = OpenAIResponses()
    for end in range(1, len(messages) + 1):
        request = kit.request_for(messages=messages[:end], session_id="s")
        body = warm.encode(request).body
        assert body == OpenAIResponses().encode(request).body
        parsed = json.loads(body)
        for item in parsed["input"]:
            if item["type"] in ("function_call", "function_call_output"):
                assert "|" not in item["call_id"]
        types = [item["type"] for item in parsed["input"]]
        # A reasoning item is never the last item sent for its message.
        assert not types or types[-1] != "reasoning"
