"""The codec driven by the host's provider runtime over ``httpx.MockTransport``.

Responses are recorded Anthropic traffic: pydantic/pydantic-ai (MIT) cassettes
kept in ``testdata/pydantic-ai/test_anthropic`` (see its ``PROVENANCE.md``).
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import yaml

from agentkit.plugin_api import StopReason

# libyaml's parser where PyYAML has it: the cassettes are megabytes of YAML read at collection.
FAST_YAML = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_CASSETTES = Path(__file__).resolve().parents[3] / "testdata" / "pydantic-ai" / "test_anthropic"


def _response(name: str, number: int = 0) -> dict:
    path = _CASSETTES / name
    return yaml.load(path.read_bytes(), Loader=FAST_YAML)["interactions"][number]["response"]


def _run(kit, recorded: dict, *, stream: bool, env: dict[str, str]):
    def respond(request: httpx.Request) -> httpx.Response:
        status = recorded["status"]["code"]
        if "body" in recorded and "string" in recorded["body"]:
            return httpx.Response(
                status,
                headers={"content-type": "text/event-stream"},
                content=recorded["body"]["string"].encode("utf-8"),
            )
        return httpx.Response(status, json=recorded["parsed_body"])

    request = kit.request_for(stream=stream, max_tokens=1024)
    return kit.through_runtime(request, respond, env=env)


def test_a_recorded_stream_through_the_runtime(kit) -> None:
    recorded = _response("test_anthropic_model_thinking_part_stream.yaml")
    message, sent = _run(kit, recorded, stream=True, env={"ANTHROPIC_API_KEY": "sk-test"})
    (request,) = sent
    assert str(request.url) == "https://api.anthropic.com/v1/messages"
    assert request.headers["x-api-key"] == "sk-test"
    assert request.headers["anthropic-version"] == "2026-10-21"
    assert json.loads(request.content)["stream"] is True
    assert message.stop_reason is StopReason.STOP
    assert message.content[0].type == "thinking" and message.content[0].signature
    assert message.text


def test_a_recorded_whole_response_through_the_runtime(kit) -> None:
    recorded = _response("test_multiple_parallel_tool_calls.yaml")
    message, sent = _run(kit, recorded, stream=False, env={"ANTHROPIC_AUTH_TOKEN": "tok"})
    assert sent[0].headers["authorization"] == "Bearer tok"
    assert json.loads(sent[0].content)["stream"] is False
    assert message.stop_reason is StopReason.TOOL_USE
    assert [json.loads(c.arguments) for c in message.tool_calls] == [
        {"name": "Alice"},
        {"name": "Bob"},
        {"name": "Charlie"},
        {"name": "Daisy"},
    ]


def test_a_recorded_http_error_ends_as_an_error_message(kit) -> None:
    recorded = _response("test_anthropic_explicit_effort_xhigh_unsupported_model_errors.yaml")
    message, _ = _run(kit, recorded, stream=False, env={"ANTHROPIC_API_KEY": "sk-test"})
    assert message.stop_reason is StopReason.ERROR
    assert recorded["parsed_body"]["error"]["message"] in message.error_message


def test_the_one_hour_cache_write_is_its_own_usage_field_and_priced_apart(kit) -> None:
    row = kit.model_row("claude-opus-5-5")
    whole = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": row.id,
        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 0,
                  "cache_creation_input_tokens": 3000,
                  "cache_creation": {"ephemeral_5m_input_tokens": 1000, "ephemeral_1h_input_tokens": 2000}},
    }
    request = kit.request_for(model=row, stream=False, max_tokens=64)
    message, _ = kit.through_runtime(request, lambda _: httpx.Response(200, json=whole),
                                     env={"ANTHROPIC_API_KEY": "sk-test"})
    usage = message.usage
    assert (usage.cache_write, usage.cache_write_1h) == (3000, 2000)
    assert row.cache_write_1h_price == 2 * row.input_price > row.cache_write_price
    expected = (10 * row.input_price + 5 * row.output_price + 1000 * row.cache_write_price
                + 2000 * row.cache_write_1h_price) / 1_000_000
    assert usage.cost == pytest.approx(expected)
