"""The scripted provider's request body: serialized as the host serializes, a session at a time."""

from __future__ import annotations

import json
import math

import pytest
from agentkit_provider_faux import FauxProvider

from agentkit.plugin_api import (
    AssistantMessage,
    ProviderRequest,
    StopReason,
    TextBlock,
    ToolSpec,
    UserMessage,
)

PROVIDER = FauxProvider()
MODEL = PROVIDER.catalog()[0]


def body(provider: FauxProvider, messages, tools=()) -> dict:
    return json.loads(provider.encode(ProviderRequest(model=MODEL, messages=messages, tools=tools)).body)


def test_a_value_that_is_not_json_is_refused_as_the_host_refuses_it():
    """NaN is not JSON: the host's serializer refuses it, and so does the scripted wire's."""
    tool = ToolSpec("measure", "Measure.", {"type": "object", "properties": {"x": {"type": "number", "maximum": math.nan}}})
    with pytest.raises(ValueError):
        FauxProvider().encode(ProviderRequest(model=MODEL, messages=[UserMessage.text("hi")], tools=[tool]))


def test_two_sessions_interleaved_each_send_their_own_transcript():
    provider = FauxProvider()
    one = [UserMessage.text("one")]
    two = [UserMessage.text("two")]
    for turn in range(3):
        for transcript in (one, two):
            sent = body(provider, transcript)
            assert [m["content"][0]["text"] for m in sent["messages"]] == [
                m.content[0].text for m in transcript
            ]
            transcript.append(AssistantMessage([TextBlock(f"answer {turn}")], StopReason.STOP))
            transcript.append(UserMessage.text(f"more {turn}"))


def test_a_rewritten_history_is_sent_as_rewritten():
    provider = FauxProvider()
    first = UserMessage.text("first")
    body(provider, [first, AssistantMessage([TextBlock("a")], StopReason.STOP), UserMessage.text("b")])
    sent = body(provider, [first, UserMessage.text("summary")])
    assert [m["content"][0]["text"] for m in sent["messages"]] == ["first", "summary"]
