"""Decode the real SSE streams the Anthropic Python SDK tests itself with.

Source: anthropics/anthropic-sdk-python (MIT), ``tests/lib/streaming`` fixtures,
kept in ``testdata/anthropic-sdk-python`` (see its ``PROVENANCE.md``): text, tool use,
partial JSON cut off by ``max_tokens``, refusal, model fallback, compaction.

Each stream is read twice: by our decoder (framed as the host frames it) and
by the SDK's own stream accumulator (``messages.stream(...).get_final_message()``
over a mock transport) as a second opinion.
"""

from __future__ import annotations

import json
from pathlib import Path

import anthropic
import httpx2
import pytest

from agentkit.plugin_api import StopReason, TextBlock, ToolUseBlock

_STREAMS = Path(__file__).resolve().parents[3] / "testdata" / "anthropic-sdk-python"
_FILES = sorted(_STREAMS.glob("*.txt"))

_STOP = {
    "end_turn": StopReason.STOP,
    "max_tokens": StopReason.LENGTH,
    "tool_use": StopReason.TOOL_USE,
    "refusal": StopReason.REFUSAL,
}


def _sdk_final_message(raw: bytes) -> anthropic.types.Message:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=raw)

    client = anthropic.Anthropic(
        api_key="test",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    with client.messages.stream(
        model="claude-sonnet-5-5", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        return stream.get_final_message()


def test_all_seven_streams_are_present() -> None:
    assert len(_FILES) == 7, [path.name for path in _FILES]


@pytest.mark.parametrize("path", _FILES, ids=[path.stem for path in _FILES])
def test_stream_decodes_like_the_sdk_accumulates_it(kit, path: Path) -> None:
    raw = path.read_bytes()
    ours = kit.final_message(kit.decode(kit.frame_sse(raw)))
    sdk = _sdk_final_message(raw)

    sdk_text = "".join(block.text for block in sdk.content if block.type == "text")
    assert ours.text == sdk_text
    sdk_calls = [block for block in sdk.content if block.type == "tool_use"]
    assert [(c.id, c.name) for c in ours.tool_calls] == [(c.id, c.name) for c in sdk_calls]
    for call, sdk_call in zip(ours.tool_calls, sdk_calls, strict=True):
        if ours.stop_reason is not StopReason.LENGTH:
            # The SDK holds the parsed input; a complete call must parse to the same object.
            assert json.loads(call.arguments) == sdk_call.input
    assert ours.raw_stop_reason == sdk.stop_reason
    assert ours.stop_reason is _STOP[sdk.stop_reason]
    assert ours.response_id == sdk.id
    assert ours.usage.input == sdk.usage.input_tokens
    assert ours.usage.cache_read == (sdk.usage.cache_read_input_tokens or 0)
    assert ours.usage.cache_write == (sdk.usage.cache_creation_input_tokens or 0)
    if sdk.usage.output_tokens:
        assert ours.usage.output == sdk.usage.output_tokens


def _decode_file(kit, name: str):
    raw = (_STREAMS / name).read_bytes()
    return kit.final_message(kit.decode(kit.frame_sse(raw)))


def test_tool_use_arguments_are_the_concatenated_partial_json(kit) -> None:
    message = _decode_file(kit, "tool_use_response.txt")
    assert message.stop_reason is StopReason.TOOL_USE
    assert [(c.name, c.arguments) for c in message.tool_calls] == [
        ("get_weather", '{"location": "Paris"}')
    ]
    assert (message.usage.input, message.usage.output) == (377, 65)


def test_arguments_cut_off_by_max_tokens_are_kept_as_sent(kit) -> None:
    """The block never got its stop event; the truncated text is what the loop must see."""
    message = _decode_file(kit, "incomplete_partial_json_response.txt")
    assert message.stop_reason is StopReason.LENGTH
    assert message.raw_stop_reason == "max_tokens"
    (call,) = message.tool_calls
    assert call.name == "make_file"
    assert call.arguments.startswith('{"filename": "taxes.txt", "lines_of_text": [\n')
    assert call.arguments.endswith('\n"Filing taxes')
    assert isinstance(message.content[-1], ToolUseBlock)


def test_a_zero_in_the_final_usage_does_not_erase_a_count(kit) -> None:
    """The refusal stream's message_delta says output_tokens 0 after message_start said 1."""
    message = _decode_file(kit, "refusal_response.txt")
    assert message.stop_reason is StopReason.REFUSAL
    assert message.usage.output == 1
    assert message.usage.input == 20


def test_a_fallback_block_reports_the_model_that_served(kit) -> None:
    message = _decode_file(kit, "fallback_response.txt")
    assert message.response_model == "claude-sonnet-4-5"
    assert message.content == [TextBlock("Hello there!")]


def test_a_compaction_block_is_not_turned_into_text(kit) -> None:
    message = _decode_file(kit, "compaction_response.txt")
    assert message.content == [TextBlock("Hello there!")]
    assert message.stop_reason is StopReason.STOP
