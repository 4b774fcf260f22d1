"""The installed plugin, its catalog, and the codec driven by the host's provider runtime.

The runtime does the HTTP (over ``httpx.MockTransport``), the NDJSON framing, the
JSON decoding and the credentials. Response shapes follow Ollama's API reference
(see ``conftest.py``).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from agentkit_provider_ollama import OllamaChat

from agentkit.host import PluginHost
from agentkit.plugin_api import StopReason


def test_the_plugin_is_installed_and_registers_the_wire() -> None:
    host = PluginHost.discover()
    assert "ollama" in host.records
    rows = {row.key: row for row in OllamaChat().catalog()}
    assert {
        "ollama/qwen3",
        "ollama/gpt-oss:20b",
        "ollama/llama3.2",
        "ollama-cloud/gpt-oss:120b",
    } <= set(rows)
    for vendor in ("ollama", "ollama-cloud"):
        defaults = [row for row in rows.values() if row.vendor == vendor and row.default]
        assert len(defaults) == 1, vendor
    assert all(row.api == "ollama-chat" for row in rows.values())
    assert all(row.input_price == row.output_price == 0 for row in rows.values())
    assert rows["ollama/qwen3"].base_url == "http://127.0.0.1:11434"
    assert rows["ollama/gpt-oss:20b"].reasoning_levels == ("low", "medium", "high")


def _stream(
    kit: Any, row: str, body: bytes, *, env: dict[str, str], stream: bool = True, status: int = 200
):
    def respond(request: httpx.Request) -> httpx.Response:
        kind = "application/x-ndjson" if stream else "application/json"
        return httpx.Response(status, headers={"content-type": kind}, content=body)

    request = kit.request_for(model=kit.model_row(row), stream=stream)
    return kit.through_runtime(request, respond, env=env)


def test_a_local_row_needs_no_key_and_streams_ndjson(kit: Any) -> None:
    body = kit.ndjson(
        [kit.line({"content": "Grüß "}), kit.line({"content": "dich 👋"}), kit.done()]
    )
    message, sent = _stream(kit, "ollama/qwen3", body, env={})
    assert message.stop_reason is StopReason.STOP, message.error_message
    assert message.text == "Grüß dich 👋"
    (request,) = sent
    assert str(request.url) == "http://127.0.0.1:11434/api/chat"
    assert "authorization" not in request.headers
    assert json.loads(request.content)["stream"] is True


def test_a_cloud_row_sends_the_key_as_a_bearer_token(kit: Any) -> None:
    body = kit.ndjson(
        [kit.line({"content": "hi"}, model="gpt-oss:120b"), kit.done(model="gpt-oss:120b")]
    )
    message, sent = _stream(
        kit, "ollama-cloud/gpt-oss:120b", body, env={"OLLAMA_API_KEY": "ok-test"}
    )
    assert message.stop_reason is StopReason.STOP, message.error_message
    assert str(sent[0].url) == "https://ollama.com/api/chat"
    assert sent[0].headers["authorization"] == "Bearer ok-test"


def test_a_cloud_row_without_a_key_names_the_variable(kit: Any) -> None:
    message, sent = _stream(kit, "ollama-cloud/gpt-oss:120b", b"", env={})
    assert message.stop_reason is StopReason.ERROR
    assert "OLLAMA_API_KEY" in (message.error_message or "")
    assert sent == []


def test_an_error_line_mid_stream_through_the_runtime(kit: Any) -> None:
    body = kit.ndjson(
        [
            kit.line({"content": "Partial"}),
            {"error": "llama runner process has terminated: signal: killed"},
        ]
    )
    message, _ = _stream(kit, "ollama/qwen3", body, env={})
    assert message.stop_reason is StopReason.ERROR
    assert "signal: killed" in (message.error_message or "")
    assert message.text == "Partial"


@pytest.mark.parametrize("stream", [True, False], ids=["ndjson", "json"])
def test_an_error_body_with_status_200_through_the_runtime(kit: Any, stream: bool) -> None:
    body = b'{"error":"model requires more system memory (12.1 GiB) than is available (7.5 GiB)"}'
    message, _ = _stream(kit, "ollama/qwen3", body + b"\n", env={}, stream=stream)
    assert message.stop_reason is StopReason.ERROR
    assert "requires more system memory" in (message.error_message or "")


def test_a_whole_response_through_the_runtime(kit: Any) -> None:
    whole = kit.whole(
        [
            kit.line(
                {
                    "tool_calls": [
                        {"function": {"name": "read_file", "arguments": {"path": "a", "n": 2}}}
                    ]
                }
            ),
            kit.done(prompt=12, output=3),
        ]
    )
    message, sent = _stream(kit, "ollama/qwen3", json.dumps(whole).encode(), env={}, stream=False)
    assert json.loads(sent[0].content)["stream"] is False
    assert (message.stop_reason, message.raw_stop_reason) == (StopReason.TOOL_USE, "stop")
    assert [(c.name, c.arguments) for c in message.tool_calls] == [
        ("read_file", '{"path":"a","n":2}')
    ]
    assert (message.usage.input, message.usage.output) == (12, 3)
