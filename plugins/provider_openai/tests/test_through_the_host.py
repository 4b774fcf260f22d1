"""The codec driven by the host's provider runtime over ``httpx.MockTransport``.

Responses are recorded OpenAI traffic: pydantic/pydantic-ai (MIT) cassettes under
``testdata/pydantic-ai/test_openai`` (see its ``PROVENANCE.md``). The runtime does the HTTP,
the SSE framing (including ``data: [DONE]``), the JSON decoding and the credentials.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import yaml

from agentkit.plugin_api import StopReason

# libyaml's parser where PyYAML has it: the cassettes are megabytes of YAML read at collection.
FAST_YAML = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_CASSETTES = Path(__file__).resolve().parents[3] / "testdata" / "pydantic-ai" / "test_openai"


def _response(name: str, number: int = 0) -> dict[str, Any]:
    path = _CASSETTES / name
    return yaml.load(path.read_bytes(), Loader=FAST_YAML)["interactions"][number]["response"]


def _run(kit: Any, recorded: dict[str, Any], *, stream: bool, env: dict[str, str], **fields: Any):
    def respond(request: httpx.Request) -> httpx.Response:
        status = recorded["status"]["code"]
        if "body" in recorded and "string" in recorded["body"]:
            return httpx.Response(
                status,
                headers={"content-type": "text/event-stream"},
                content=recorded["body"]["string"].encode("utf-8"),
            )
        return httpx.Response(status, json=recorded["parsed_body"])

    request = kit.request_for(stream=stream, max_tokens=1024, **fields)
    return kit.through_runtime(request, respond, env=env)


def test_a_recorded_stream_through_the_runtime(kit: Any) -> None:
    recorded = _response("test_run_stream_sync_streams_real_model.yaml")
    message, sent = _run(kit, recorded, stream=True, env={"OPENAI_API_KEY": "sk-test"})
    (request,) = sent
    assert str(request.url) == "https://api.openai.com/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    body = json.loads(request.content)
    assert (body["stream"], body["stream_options"], body["max_completion_tokens"]) == (
        True,
        {"include_usage": True},
        1024,
    )
    assert message.stop_reason is StopReason.TOOL_USE
    assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == [
        ("call_ZR5UUuTt3pf61kjwAJIYdVMj", "get_capital", '{"country":"UK"}')
    ]
    assert (message.usage.input, message.usage.output) == (53, 15)


def test_a_recorded_whole_response_through_the_runtime(kit: Any) -> None:
    recorded = _response("test_openai_tool_output.yaml", 1)
    message, sent = _run(kit, recorded, stream=False, env={"OPENAI_API_KEY": "sk-test"})
    assert json.loads(sent[0].content)["stream"] is False
    assert message.stop_reason is StopReason.TOOL_USE
    assert message.tool_calls[0].arguments == '{"city": "Mexico City", "country": "Mexico"}'


def test_a_recorded_http_error_ends_as_an_error_message(kit: Any) -> None:
    recorded = _response("test_openai_o1_mini_system_role[developer].yaml")
    message, _ = _run(kit, recorded, stream=False, env={"OPENAI_API_KEY": "sk-test"})
    assert message.stop_reason is StopReason.ERROR
    assert recorded["parsed_body"]["error"]["message"] in (message.error_message or "")


def test_a_vendor_row_is_sent_with_its_own_key(kit: Any) -> None:
    recorded = _response("test_valid_response.yaml")
    row = kit.model_row("deepseek/deepseek-chat")
    message, sent = _run(kit, recorded, stream=False, env={"DEEPSEEK_API_KEY": "ds-key"}, model=row)
    assert message.stop_reason is not StopReason.ERROR, message.error_message
    assert str(sent[0].url) == "https://api.deepseek.com/chat/completions"
    assert sent[0].headers["authorization"] == "Bearer ds-key"
    assert message.text == "The capital of France is Paris."
