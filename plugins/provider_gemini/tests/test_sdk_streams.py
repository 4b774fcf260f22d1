"""A second opinion on decoding: the ``google-genai`` SDK's own response parsing.

The same SSE bytes (``\\r\\n\\r\\n``-separated, as ``alt=sse`` sends them) go
to ``client.models.generate_content_stream`` over ``httpx2.MockTransport`` and,
through the host's SSE framing, to our decoder; a whole body goes to
``generate_content`` and to our decoder. What the SDK's parsed chunks say
must be what our message says: the text, the thought text, every function
call (name, arguments, key order), every thought signature in order, the
usage (with the SDK's raw counts netted and summed as documented), the
finish reason and the response id.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from agentkit_provider_gemini import UNSIGNED_THOUGHT

from agentkit.plugin_api import AssistantMessage, ThinkingBlock

SIG_T = "CikBypeBEsobvcr6wjGzmiPcTaeG7/gUfE5yuYB3ha/uSLvR7Q=="
SIG_C = "Ci0BPiPoFgA5WUoziU9lZOGxNIu9egCI1CxKy3PurtWcAJ2S61/+5q4v"


def _sdk_responses(kit, raw: bytes, *, stream: bool) -> list[Any]:
    httpx2 = pytest.importorskip("httpx2")

    def handler(request: Any) -> Any:
        kind = "text/event-stream" if stream else "application/json"
        return httpx2.Response(200, headers={"content-type": kind}, content=raw)

    client = kit.sdk_client(handler)
    if stream:
        return list(client.models.generate_content_stream(model="gemini-2.5-flash", contents="hi"))
    return [client.models.generate_content(model="gemini-2.5-flash", contents="hi")]


def _agree(kit, responses: list[Any], ours: AssistantMessage) -> None:
    text, thought, calls, signatures = [], [], [], []
    for response in responses:
        for candidate in response.candidates or ():
            for part in candidate.content.parts or ():
                if part.function_call is not None:
                    calls.append((part.function_call.name, part.function_call.args or {}))
                elif part.thought:
                    thought.append(part.text or "")
                elif part.text is not None:
                    text.append(part.text)
                if part.thought_signature:
                    signatures.append(base64.b64encode(part.thought_signature).decode())
    assert ours.text == "".join(text)
    assert "".join(b.thinking for b in ours.content if isinstance(b, ThinkingBlock)) == "".join(
        thought
    )
    assert [(c.name, json.loads(c.arguments)) for c in ours.tool_calls] == calls
    # Key order too: the argument text is the object in the order the wire sent it.
    assert [c.arguments for c in ours.tool_calls] == [
        json.dumps(args, ensure_ascii=False, separators=(",", ":")) for _, args in calls
    ]
    ours_signatures = [
        b.signature
        for b in ours.content
        if isinstance(b, ThinkingBlock) and b.signature and b.signature != UNSIGNED_THOUGHT
    ]
    assert ours_signatures == signatures
    last = responses[-1]
    usage = last.usage_metadata
    cached = usage.cached_content_token_count or 0
    thoughts = usage.thoughts_token_count or 0
    assert ours.usage.input == usage.prompt_token_count - cached
    assert ours.usage.cache_read == cached
    assert ours.usage.output == (usage.candidates_token_count or 0) + thoughts
    assert ours.usage.reasoning == thoughts
    assert ours.raw_stop_reason == last.candidates[0].finish_reason.value
    assert ours.response_id == last.response_id
    assert ours.response_model == last.model_version


def _turn(kit) -> dict[str, Any]:
    return kit.response(
        [
            {"text": "**Planning** which files", "thought": True},
            {"text": " matter — ü", "thought": True, "thoughtSignature": SIG_T},
            {"text": "**Unsigned** second thought", "thought": True},
            {"text": "I'll read them 🚀."},
            {
                "functionCall": {
                    "name": "read_file",
                    "args": {"path": "b.py", "limit": 3, "a": [1, 2.5]},
                },
                "thoughtSignature": SIG_C,
            },
            {"functionCall": {"name": "grep", "args": {"pattern": '"quoted" 日本'}}},
            {"text": "Both requested."},
        ],
        usage=kit.usage_metadata(5000, 300, cached=4096, thoughts=128),
    )


@pytest.mark.parametrize("chunk", [1, 7, 64])
def test_a_streamed_tool_turn(kit, chunk) -> None:
    raw = kit.sse_bytes(kit.stream_chunks(_turn(kit), chunk=chunk))
    ours = kit.final_message(kit.decode(kit.frame_sse(raw)))
    _agree(kit, _sdk_responses(kit, raw, stream=True), ours)
    assert len(ours.tool_calls) == 2


def test_a_streamed_answer_whose_signature_arrives_apart(kit) -> None:
    whole = kit.response(
        [{"text": "The answer is 42.", "thoughtSignature": SIG_T}],
        usage=kit.usage_metadata(30, 8, thoughts=480),
    )
    raw = kit.sse_bytes(kit.stream_chunks(whole, chunk=5, signature_apart=True))
    ours = kit.final_message(kit.decode(kit.frame_sse(raw)))
    _agree(kit, _sdk_responses(kit, raw, stream=True), ours)


def test_a_whole_response(kit) -> None:
    raw = json.dumps(_turn(kit)).encode()
    ours = kit.final_message(kit.decode(kit.frame_json(raw)))
    _agree(kit, _sdk_responses(kit, raw, stream=False), ours)


def test_a_response_cut_by_max_tokens(kit) -> None:
    whole = kit.response([{"text": "The answer is"}], finish="MAX_TOKENS")
    raw = kit.sse_bytes(kit.stream_chunks(whole, chunk=4))
    ours = kit.final_message(kit.decode(kit.frame_sse(raw)))
    _agree(kit, _sdk_responses(kit, raw, stream=True), ours)
    assert ours.stop_reason.value == "length"
