"""Properties over generated input: what must hold for every response and every transcript.

* Any sequence of parts decodes to the same blocks, ids and argument text
  streamed (cut into any chunk size, signatures with their part or apart) and
  whole; every call's argument text parses back to the object the wire sent.
* The decoder never raises, whatever JSON arrives, and always ends with
  exactly one ``message_end``, last.
* The per-turn caches never change a body: a provider that encoded earlier
  turns writes what a fresh one writes.
"""

from __future__ import annotations

import json
from typing import Any

from agentkit_provider_gemini import GeminiGenerateContent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentkit.plugin_api import (
    AssistantMessage,
    MessageEnd,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolUseBlock,
    UserMessage,
    WireEvent,
)

_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_signature = st.sampled_from(["CikBypeBEsob", "Ci0BPiPoFgA5", "CiQBypeBEs0x"])
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=6,
)


@st.composite
def _part(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from(["text", "thought", "call"]))
    if kind == "call":
        part: dict[str, Any] = {
            "functionCall": {
                "name": draw(st.sampled_from(["grep", "read_file"])),
                "args": draw(st.dictionaries(_text, _json, max_size=3)),
            }
        }
    else:
        part = {"text": draw(_text)}
        if kind == "thought":
            part["thought"] = True
    if draw(st.booleans()):
        part["thoughtSignature"] = draw(_signature)
    return part


@_SETTINGS
@given(
    parts=st.lists(_part(), max_size=6),
    chunk=st.integers(1, 9),
    apart=st.booleans(),
    finish=st.sampled_from(["STOP", "MAX_TOKENS", "SAFETY"]),
)
def test_streamed_and_whole_agree_for_any_parts(kit, parts, chunk, apart, finish) -> None:
    whole = kit.response(
        parts, finish=finish, usage=kit.usage_metadata(50, 9, cached=7, thoughts=2)
    )
    streamed, decoded = kit.streamed_and_whole(whole, chunk=chunk, signature_apart=apart)
    assert streamed.content == decoded.content
    assert streamed.stop_reason == decoded.stop_reason
    calls = [part["functionCall"] for part in parts if "functionCall" in part]
    assert [json.loads(call.arguments) for call in decoded.tool_calls] == [c["args"] for c in calls]
    assert len({call.id for call in decoded.tool_calls}) == len(calls)


@_SETTINGS
@given(events=st.lists(_json, max_size=6), end=st.sampled_from(["finish", "fail"]))
def test_the_decoder_never_raises_and_always_ends_once(kit, events, end) -> None:
    decoder = GeminiGenerateContent().decoder(kit.request_for())
    out = []
    for data in events:
        out += decoder.feed(WireEvent(data))
    out += decoder.finish() if end == "finish" else decoder.fail(StopReason.ABORTED, "aborted")
    assert sum(isinstance(event, MessageEnd) for event in out) == 1
    assert isinstance(out[-1], MessageEnd)


def _turn(n: int, kind: int) -> list[Any]:
    call = ToolUseBlock(f"gemini_{n:04d}" if kind else f"fc-{n}", "read", f'{{"n":{n}}}')
    blocks: list[Any] = [TextBlock(f"step {n}"), call]
    if kind == 2:
        blocks.append(ThinkingBlock("", f"SIG{n}", redacted=True))
    message = AssistantMessage(blocks, StopReason.TOOL_USE, api="google-generative-ai")
    results = [ToolResultMessage(call.id, call.name, [TextBlock(f"r{n}")], is_error=kind == 1)]
    return [message, *results]


@_SETTINGS
@given(steps=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=8))
def test_caches_never_change_a_body(kit, steps) -> None:
    provider = GeminiGenerateContent()
    history: list[Any] = [UserMessage.text("start")]
    for n, (action, kind) in enumerate(steps):
        if action == 0:
            history = [*history, *_turn(n, kind)]
        elif action == 1:
            history = [*history, UserMessage.text(f"steer {n}")]
        elif action == 2 and len(history) > 2:
            history = history[: len(history) // 2]  # back to an earlier point (a branch)
        else:
            history = [*history, *_turn(n, kind)[:1]]  # a call whose result is not in yet
        request = kit.request_for(messages=history)
        assert provider.encode(request).body == GeminiGenerateContent().encode(request).body
