"""A second opinion on decoding: the ``openai`` SDK's own stream accumulator.

The same SSE bytes go to ``client.responses.stream(...)`` (the SDK's
``ResponseStreamManager``, over ``httpx2.MockTransport``) and through the
host's SSE framing to our decoder. The SDK's final response and our message
must agree on every item: text, call ids, item ids, argument bytes, reasoning
ids, encrypted content and summaries, and usage.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentkit.plugin_api import AssistantMessage, TextBlock, ToolUseBlock


def _sdk_final(kit, raw: bytes) -> tuple[Any, list[Any]]:
    httpx2 = pytest.importorskip("httpx2")

    def handler(request):
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=raw)

    client = kit.sdk_client(handler)
    with client.responses.stream(model="gpt-5", input="hi") as stream:
        events = list(stream)
    # The accumulator gives a final response only for `response.completed`;
    # an incomplete or failed one is in its terminal event.
    final = events[-1].response
    return final, events


def _expected_from_sdk(kit, final: Any) -> list[Any]:
    """Our canonical blocks, as the SDK's response describes them."""
    blocks: list[Any] = []
    for item in final.output:
        if item.type == "reasoning":
            signature = {"id": item.id}
            if item.encrypted_content:
                signature["encrypted_content"] = item.encrypted_content
            texts = [part.text for part in item.summary if part.text]
            blocks += kit.reasoning_blocks(texts, signature)
        elif item.type == "message":
            text = "".join(
                part.text if part.type == "output_text" else part.refusal for part in item.content
            )
            blocks.append(TextBlock(text))
        elif item.type == "function_call":
            blocks.append(ToolUseBlock(f"{item.call_id}|{item.id}", item.name, item.arguments))
    return blocks


def _ours(kit, raw: bytes) -> AssistantMessage:
    return kit.final_message(kit.decode(kit.frame_sse(raw)))


def _agree(kit, raw: bytes) -> AssistantMessage:
    final, _ = _sdk_final(kit, raw)
    ours = _ours(kit, raw)
    assert ours.content == _expected_from_sdk(kit, final)
    assert ours.response_id == final.id
    if final.usage is not None:
        details = final.usage.input_tokens_details
        assert ours.usage.cache_read == details.cached_tokens
        assert ours.usage.input == final.usage.input_tokens - details.cached_tokens
        assert ours.usage.output == final.usage.output_tokens
        assert ours.usage.reasoning == final.usage.output_tokens_details.reasoning_tokens
    return ours


@pytest.mark.parametrize("chunk", [1, 7, 64])
def test_a_reasoning_text_and_parallel_calls_stream(kit, chunk) -> None:
    response = kit.response_object(
        [
            kit.reasoning_item("rs_1", ["**Plan**", "Read both, then grep."], "gAAAA-x9=="),
            kit.message_item("I'll read them — ✓", "msg_1"),
            kit.call_item("call_1", "fc_1", "read_file", '{"path": "a.py"}'),
            kit.call_item("call_2", "fc_2", "read_file", '{"path":"b.py","offset":  2}'),
            kit.call_item("call_3", "fc_3", "grep", '{"pattern": "\\"quoted\\" 🚀"}'),
        ],
        usage=kit.usage(5000, 4096, 300, reasoning=128),
    )
    ours = _agree(kit, kit.sse_bytes(kit.stream_events(response, chunk=chunk)))
    assert len(ours.tool_calls) == 3


def test_the_sdk_sees_the_same_argument_deltas(kit) -> None:
    arguments = '{"path": "src/naïve.py", "limit": 10}'
    response = kit.response_object([kit.call_item("call_1", "fc_1", "read_file", arguments)])
    raw = kit.sse_bytes(kit.stream_events(response, chunk=3))
    _, events = _sdk_final(kit, raw)
    deltas = [e for e in events if e.type == "response.function_call_arguments.delta"]
    assert deltas[-1].snapshot == arguments
    streamed = [e.delta for e in kit.decode(kit.frame_sse(raw)) if type(e).__name__ == "BlockDelta"]
    assert streamed == [e.delta for e in deltas]


def test_redacted_reasoning_and_a_text_answer(kit) -> None:
    response = kit.response_object(
        [kit.reasoning_item("rs_1", [], "gAAAA-only"), kit.message_item("42")],
        usage=kit.usage(30, 0, 500, reasoning=480),
    )
    ours = _agree(kit, kit.sse_bytes(kit.stream_events(response)))
    assert ours.content[0].redacted is True


def test_a_response_cut_by_max_output_tokens(kit) -> None:
    response = kit.response_object(
        [kit.message_item("The answer is")],
        status="incomplete",
        incomplete_reason="max_output_tokens",
        usage=kit.usage(30, 0, 16),
    )
    raw = kit.sse_bytes(kit.stream_events(response))
    ours = _ours(kit, raw)
    final, _ = _sdk_final(kit, raw)
    assert ours.content == _expected_from_sdk(kit, final)
    assert final.incomplete_details.reason == "max_output_tokens"
    assert ours.stop_reason.value == "length"
