"""Tool-call arguments survive decode and replay byte for byte.

The argument text is a JSON *string* on this wire. The streamed path (pieces by
``index``) and the whole-response path must produce the same text and the same
ids, and replaying the assistant message must send exactly that text: a
re-encoded object would reorder keys and change spacing, which changes what
the model is conditioned on and moves the prompt-cache prefix.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from agentkit_provider_openai import OpenAICompletions
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionMessageParam

from agentkit.plugin_api import StopReason, TextBlock, ToolResultMessage, UserMessage, WireEvent

ARGUMENT_TEXTS = [
    '{"path": "a.py", "old": "x  =  1", "new": "x = 2"}',
    '{"b":1,"a":2}',
    '{\n  "city" : "Zürich" ,\n  "emoji": "🙂", "escaped": "\\u00e9\\n\\"q\\""\n}',
    "{}",
    "",
    '{"unterminated": "cut off',
]


def _whole(calls: list[tuple[str, str, str]], *, finish: str = "tool_calls") -> WireEvent:
    return WireEvent(
        data={
            "id": "chatcmpl-w",
            "object": "chat.completion",
            "model": "gpt-4o-mini",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": finish,
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": call_id,
                                "type": "function",
                                "function": {"name": name, "arguments": arguments},
                            }
                            for call_id, name, arguments in calls
                        ],
                    },
                }
            ],
        }
    )


def _streamed(calls: list[tuple[str, str, str]], cuts: list[int]) -> list[WireEvent]:
    events = []
    for index, (call_id, name, arguments) in enumerate(calls):
        first: dict[str, Any] = {
            "index": index,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        if call_id:
            first["id"] = call_id
        events.append(
            WireEvent(
                data={
                    "id": "chatcmpl-s",
                    "model": "gpt-4o-mini",
                    "choices": [{"index": 0, "delta": {"tool_calls": [first]}}],
                }
            )
        )
        points = sorted({cut % (len(arguments) + 1) for cut in cuts} | {0, len(arguments)})
        for start, end in itertools.pairwise(points):
            piece = {"index": index, "function": {"arguments": arguments[start:end]}}
            events.append(
                WireEvent(
                    data={
                        "id": "chatcmpl-s",
                        "choices": [{"index": 0, "delta": {"tool_calls": [piece]}}],
                    }
                )
            )
    events.append(
        WireEvent(
            data={
                "id": "chatcmpl-s",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
            }
        )
    )
    return events


def _calls(message: Any) -> list[tuple[str, str, str]]:
    return [(call.id, call.name, call.arguments) for call in message.tool_calls]


@settings(max_examples=60, deadline=None)
@given(
    arguments=st.lists(
        st.sampled_from(ARGUMENT_TEXTS) | st.text(max_size=40), min_size=1, max_size=3
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=8),
    with_ids=st.booleans(),
)
def test_streamed_and_whole_responses_agree_byte_for_byte(
    arguments: list[str], cuts: list[int], with_ids: bool
) -> None:
    calls = [
        (f"call_{n}" if with_ids else "", "edit" if n % 2 else "read", text)
        for n, text in enumerate(arguments)
    ]
    provider = OpenAICompletions()
    request = _request()
    whole = _final(provider, request, [_whole(calls)])
    streamed = _final(provider, request, _streamed(calls, cuts))
    assert _calls(whole) == _calls(streamed)
    assert [call.arguments for call in whole.tool_calls] == arguments
    assert all(call.id for call in whole.tool_calls)
    if not with_ids:
        # Made-up ids are distinct per call, even for identical calls.
        assert len({call.id for call in whole.tool_calls}) == len(calls)


def test_a_replayed_assistant_message_sends_exactly_the_argument_text() -> None:
    provider = OpenAICompletions()
    calls = [(f"call_{n}", "edit", text) for n, text in enumerate(ARGUMENT_TEXTS)]
    decoded = _final(provider, _request(), _streamed(calls, [3, 7, 11]))
    transcript = [
        UserMessage.text("go"),
        decoded,
        *[ToolResultMessage(call.id, call.name, [TextBlock("ok")]) for call in decoded.tool_calls],
    ]
    # The serialized body, read back: the argument strings are untouched.
    sent = json.loads(provider.encode(_request(messages=transcript)).body)
    replayed = sent["messages"][1]["tool_calls"]
    # Empty text is no JSON object: it goes back as "{}" (see below); the rest byte for byte.
    assert [call["function"]["arguments"] for call in replayed] == [
        text or "{}" for text in ARGUMENT_TEXTS
    ]
    assert [call["id"] for call in replayed] == [call_id for call_id, _, _ in calls]
    assert [message["tool_call_id"] for message in sent["messages"][2:]] == [
        call_id for call_id, _, _ in calls
    ]


def test_a_made_up_id_is_the_same_when_the_request_is_retried_and_pairs_with_its_result() -> None:
    provider = OpenAICompletions()
    calls = [("", "read", '{"path": "a"}'), ("", "read", '{"path": "a"}')]
    first = _final(provider, _request(), [_whole(calls)])
    again = _final(provider, _request(), _streamed(calls, [5]))
    assert _calls(first) == _calls(again)
    assert first.tool_calls[0].id != first.tool_calls[1].id
    # A later turn (a longer transcript) does not mint the same ids for the same call.
    later = _final(
        provider, _request(messages=[UserMessage.text("a"), UserMessage.text("b")]), [_whole(calls)]
    )
    assert {call.id for call in later.tool_calls}.isdisjoint({call.id for call in first.tool_calls})


def test_a_long_foreign_id_is_shortened_the_same_way_in_the_call_and_its_result() -> None:
    from agentkit.plugin_api import AssistantMessage, ToolUseBlock

    long_id = "toolu_" + "x" * 60
    transcript = [
        UserMessage.text("go"),
        AssistantMessage([ToolUseBlock(long_id, "read", "{}")], StopReason.TOOL_USE),
        ToolResultMessage(long_id, "read", [TextBlock("ok")]),
    ]
    provider = OpenAICompletions()
    body = json.loads(provider.encode(_request(messages=transcript)).body)
    call_id = body["messages"][1]["tool_calls"][0]["id"]
    assert len(call_id) <= 40
    assert body["messages"][2]["tool_call_id"] == call_id
    assert (
        json.loads(provider.encode(_request(messages=transcript)).body)["messages"][1][
            "tool_calls"
        ][0]["id"]
        == call_id
    )
    # A local server has no such limit: the id goes out as it is.
    local = json.loads(
        provider.encode(_request(messages=transcript, model=_row("local/default"))).body
    )
    assert local["messages"][1]["tool_calls"][0]["id"] == long_id


def _row(key: str) -> Any:
    return next(row for row in OpenAICompletions().catalog() if row.key == key)


def _request(**fields: Any) -> Any:
    from agentkit.plugin_api import ProviderRequest

    fields.setdefault("model", _row("openai/gpt-4o-mini"))
    fields.setdefault("messages", [UserMessage.text("hi")])
    return ProviderRequest(**fields)


def _final(provider: OpenAICompletions, request: Any, events: list[WireEvent]) -> Any:
    decoder = provider.decoder(request)
    out = []
    for event in events:
        out += decoder.feed(event)
    out += decoder.finish()
    message = out[-1].message
    assert message.stop_reason is StopReason.TOOL_USE
    return message


def _null_arguments_response() -> WireEvent:
    """A whole response whose tool call has ``"arguments": null``, as some servers send."""
    event = _whole([("call_0", "list_files", "")])
    event.data["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = None
    return event


@pytest.mark.parametrize("arrived", ["null", "empty", "whitespace"])
def test_a_call_without_argument_text_is_replayed_as_an_empty_object(arrived: str, kit) -> None:
    """Empty ``arguments`` is not JSON: the vendor rejects the replayed turn."""
    provider = OpenAICompletions()
    if arrived == "null":
        events = [_null_arguments_response()]
    else:
        events = [_whole([("call_0", "list_files", "" if arrived == "empty" else "  ")])]
    decoded = _final(provider, _request(), events)
    transcript = [
        UserMessage.text("go"),
        decoded,
        ToolResultMessage("call_0", "list_files", [TextBlock("ok")]),
    ]
    sent = json.loads(provider.encode(_request(messages=transcript)).body)
    (call,) = sent["messages"][1]["tool_calls"]
    assert call["function"]["arguments"] == "{}"
    assert kit.shape_problems(sent["messages"], list[ChatCompletionMessageParam]) == []
