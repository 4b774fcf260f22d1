"""A whole agent run on the openai-responses wire, HTTP replaced by ``httpx.MockTransport``.

The model reasons, then asks for two files at once. The loop runs both calls
and keeps one result message per call. The second request must replay the
reasoning item (id and encrypted content), both calls with their call ids,
item ids and argument bytes, and one ``function_call_output`` per call keyed
by the call id alone.
"""

from __future__ import annotations

import json

import httpx
import pytest

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all


def test_a_tool_turn_then_a_text_turn_round_trip_through_the_loop(kit, tmp_path, monkeypatch):
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    first = kit.response_object(
        [
            kit.reasoning_item("rs_e2e", ["**Reading both**"], "gAAAA-e2e=="),
            kit.call_item("call_a", "fc_a", "read_file", '{"path": "a.txt"}'),
            kit.call_item("call_b", "fc_b", "read_file", '{"path":"b.txt"}'),
        ],
        usage=kit.usage(900, 0, 80, reasoning=40),
    )
    second = kit.response_object(
        [kit.message_item("Both files read.", "msg_2")], usage=kit.usage(1100, 900, 6)
    )
    replies = [kit.sse_bytes(kit.stream_events(r, chunk=4)) for r in (first, second)]
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=replies[len(sent) - 1]
        )

    host = PluginHost.discover()
    if "openai-responses" not in host.records:
        pytest.fail("the openai-responses provider plugin was not discovered")
    config = AgentConfig(
        model="openai-responses/gpt-5",
        root=tmp_path,
        tools=["read_file"],
        trust=Trust(before_tool_call=allow_all),
        connection=Connection(transport=httpx.MockTransport(handler)),
        system_prompt="Be brief.",
        session_id="session-" + "9" * 70,
    )
    result = Agent(config, host=host).run_sync("Read a.txt and b.txt")

    assert result.outcome == "completed", result.error
    assert result.text == "Both files read."
    assert len(sent) == 2
    assert sent[1].url == "https://api.openai.com/v1/responses"
    assert sent[1].headers["authorization"] == "Bearer sk-test"
    body = json.loads(sent[1].content)
    assert body["instructions"].startswith("Be brief.")
    assert body["store"] is False and body["include"] == ["reasoning.encrypted_content"]
    assert body["prompt_cache_key"] == ("session-" + "9" * 70)[:64]
    assert body["tools"][0]["name"] == "read_file" and "function" not in body["tools"][0]
    items = body["input"]
    assert [item["type"] for item in items] == [
        "message",
        "reasoning",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
    ]
    assert items[1] == {
        "type": "reasoning",
        "id": "rs_e2e",
        "summary": [{"type": "summary_text", "text": "**Reading both**"}],
        "encrypted_content": "gAAAA-e2e==",
    }
    assert [(i["call_id"], i["id"], i["arguments"]) for i in items[2:4]] == [
        ("call_a", "fc_a", '{"path": "a.txt"}'),
        ("call_b", "fc_b", '{"path":"b.txt"}'),
    ]
    outputs = items[4:]
    assert [set(o) for o in outputs] == [{"type", "call_id", "output"}] * 2
    assert [o["call_id"] for o in outputs] == ["call_a", "call_b"]
    assert "alpha" in json.dumps(outputs[0]) and "beta" in json.dumps(outputs[1])
    # Usage of both responses, cached tokens netted out once.
    assert result.usage.input == 900 + 200 and result.usage.cache_read == 900
    assert result.usage.output == 86 and result.usage.reasoning == 40
