"""A whole agent run on the anthropic-messages wire, HTTP replaced by ``httpx.MockTransport``.

The model asks for two files at once. The loop runs both calls and keeps one
result message per call. The second request must carry both results in one user
message, and must replay the calls with their argument key order.
"""

from __future__ import annotations

import json

import httpx
import pytest

from agentkit.conformance import codec
from agentkit.host import (
    Agent,
    AgentConfig,
    Connection,
    ModelSettings,
    PluginHost,
    Trust,
    allow_all,
)


def _sse(*events: dict) -> bytes:
    return codec.sse_body(events, event=lambda event: event["type"])


def _start(number: int) -> dict:
    return {
        "type": "message_start",
        "message": {
            "id": f"msg_{number}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-5-5",
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": 100, "cache_read_input_tokens": 50, "output_tokens": 1},
        },
    }


def _tool_call(index: int, call_id: str, arguments: str) -> list[dict]:
    return [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "tool_use", "id": call_id, "name": "read_file", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "input_json_delta", "partial_json": arguments},
        },
        {"type": "content_block_stop", "index": index},
    ]


_FIRST = _sse(
    _start(1),
    *_tool_call(0, "toolu_a", '{"path": "a.txt", "offset": 1}'),
    *_tool_call(1, "toolu_b", '{"offset": 1, "path": "b.txt"}'),
    {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 30}},
    {"type": "message_stop"},
)
_SECOND = _sse(
    _start(2),
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": "Both files read."},
    },
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 5}},
    {"type": "message_stop"},
)


def test_a_tool_batch_round_trips_through_the_loop(tmp_path, monkeypatch) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    for name in ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    sent: list[dict] = []
    replies = [_FIRST, _SECOND]

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["x-api-key"] == "sk-test"
        sent.append(json.loads(request.content))
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=replies[len(sent) - 1]
        )

    host = PluginHost.discover()
    if "anthropic" not in host.records:
        pytest.fail("the anthropic provider plugin was not discovered")
    config = AgentConfig(
        model="anthropic/claude-sonnet-5-5",
        root=tmp_path,
        tools=["read_file"],
        settings=ModelSettings(max_tokens=1024),
        trust=Trust(before_tool_call=allow_all),
        connection=Connection(transport=httpx.MockTransport(handler)),
        system_prompt="Be brief.",
    )
    result = Agent(config, host=host).run_sync("Read a.txt and b.txt")

    assert result.outcome == "completed", result.error
    assert result.text == "Both files read."
    assert len(sent) == 2
    second = sent[1]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    calls = [b for b in second[1]["content"] if b["type"] == "tool_use"]
    assert [list(call["input"]) for call in calls] == [["path", "offset"], ["offset", "path"]]
    results = second[2]["content"]
    assert [b["type"] for b in results] == ["tool_result", "tool_result"]
    assert [b["tool_use_id"] for b in results] == ["toolu_a", "toolu_b"]
    assert not any(b.get("is_error") for b in results), results
    assert "alpha" in json.dumps(results[0]) and "beta" in json.dumps(results[1])
    assert results[-1]["cache_control"] == {"type": "ephemeral"}
    assert sent[1]["tools"][-1]["name"] == "read_file"
    assert sent[1]["system"][0]["text"].startswith("Be brief.")
    assert sent[1]["system"][0]["cache_control"] == {"type": "ephemeral"}
