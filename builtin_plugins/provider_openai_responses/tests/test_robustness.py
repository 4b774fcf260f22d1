"""A decoder must never raise: any sequence of JSON values ends in exactly one message.

Events are drawn from the real event types with fields of any JSON type in
any place, shuffled, duplicated and cut short.
"""

from __future__ import annotations

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
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
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
