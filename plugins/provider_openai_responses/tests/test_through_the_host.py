"""The codec driven by the host's provider runtime over ``httpx.MockTransport``.

Responses are recorded OpenAI Responses traffic: pydantic/pydantic-ai (MIT)
cassettes in ``testdata/pydantic-ai/test_openai``
(``test_openai_instructions_with_responses_logprobs_streaming`` for a stream,
``test_openai_model_thinking_part`` for a whole o3-mini response with
reasoning). The stream is also served in small chunks, so SSE events are cut
at arbitrary byte boundaries, inside multi-byte characters too.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import yaml
from openai.types.responses import ResponseUsage

from agentkit.plugin_api import StopReason, ThinkingBlock

# libyaml's parser where PyYAML has it: the cassettes are megabytes of YAML read at collection.
FAST_YAML = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

CASSETTES = Path(__file__).resolve().parents[3] / "testdata" / "pydantic-ai" / "test_openai"


def _recorded(name: str) -> dict:
    path = CASSETTES / name
    return yaml.load(path.read_bytes(), Loader=FAST_YAML)["interactions"][0]["response"]


class _Chunked(httpx.SyncByteStream, httpx.AsyncByteStream):
    def __init__(self, data: bytes, size: int) -> None:
        self._pieces = [data[i : i + size] for i in range(0, len(data), size)]

    def __iter__(self):
        yield from self._pieces

    async def __aiter__(self):
        for piece in self._pieces:
            yield piece


def _run(kit, recorded: dict, *, stream: bool, chunk: int | None = None):
    def respond(request: httpx.Request) -> httpx.Response:
        if stream:
            raw = recorded["body"]["string"].encode("utf-8")
            body = _Chunked(raw, chunk or len(raw))
            return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=body)
        return httpx.Response(200, json=recorded["parsed_body"])

    request = kit.request_for(stream=stream, max_tokens=1024, system="Be brief.")
    return kit.through_runtime(request, respond, env={"OPENAI_API_KEY": "sk-test"})


@pytest.mark.parametrize("chunk", [None, 7, 1])
def test_a_recorded_stream_through_the_runtime(kit, chunk) -> None:
    recorded = _recorded("test_openai_instructions_with_responses_logprobs_streaming.yaml")
    message, sent = _run(kit, recorded, stream=True, chunk=chunk)
    (request,) = sent
    assert str(request.url) == "https://api.openai.com/v1/responses"
    assert request.headers["authorization"] == "Bearer sk-test"
    body = json.loads(request.content)
    assert body["stream"] is True and body["instructions"] == "Be brief."
    assert message.stop_reason is StopReason.STOP, message.error_message
    assert message.text == "The capital of Minas Gerais is Belo Horizonte."
    assert message.response_id == "resp_0ecff685e411ca7b0069e063569c7c819bbc74c80d853802e6"
    assert (message.usage.input, message.usage.output) == (25, 10)


def test_a_recorded_whole_response_through_the_runtime(kit) -> None:
    recorded = _recorded("test_openai_model_thinking_part.yaml")
    message, sent = _run(kit, recorded, stream=False)
    assert json.loads(sent[0].content)["stream"] is False
    assert message.stop_reason is StopReason.STOP
    *parts, text = message.content  # one thinking block per summary part, in order
    assert all(isinstance(part, ThinkingBlock) and not part.redacted for part in parts) and len(parts) > 1
    assert parts[0].thinking.startswith("**Emphasizing pedestrian safety**")
    assert parts[1].thinking.startswith("**Clarifying street crossing guidance**")
    assert len({json.loads(part.signature)["id"] for part in parts}) == 1
    assert json.loads(parts[-1].signature)["id"].startswith("rs_")
    assert text.text.startswith("I'm happy to help.")
    assert (message.usage.output, message.usage.reasoning) == (1915, 1600)


def test_cache_writes_are_priced_into_the_turns_cost(kit) -> None:
    """OpenAI bills tokens written to the prompt cache as input: none of them is free."""
    usage = kit.usage(5000, cached=1000, output=10)
    usage["input_tokens_details"]["cache_write_tokens"] = 3000
    ResponseUsage.model_validate(usage)  # the shape the vendor's SDK declares
    recorded = {"parsed_body": kit.response_object([kit.message_item("Hi.")], usage=usage)}
    message, _ = _run(kit, recorded, stream=False)
    row = kit.model_row()
    assert (message.usage.input, message.usage.cache_read, message.usage.cache_write) == (
        1000,
        1000,
        3000,
    )
    billed_as_input = (1000 + 3000) * row.input_price
    expected = (billed_as_input + 1000 * row.cache_read_price + 10 * row.output_price) / 1e6
    assert message.usage.cost == pytest.approx(expected)
