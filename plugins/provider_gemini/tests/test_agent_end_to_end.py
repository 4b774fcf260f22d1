"""A whole agent run on the google-generative-ai wire, HTTP replaced by ``httpx.MockTransport``.

The model thinks, then asks for two files at once and ends its turn with
``finishReason: STOP`` (Gemini's usual ending alongside function calls). The
loop must run both calls anyway and keep one result message per call. The
second request must replay the thought and both calls (the first with its
thought signature on its own part, no synthesized ids), then ONE user content
whose two ``functionResponse`` parts answer the calls in call order.
"""

from __future__ import annotations

import json

import httpx
import pytest

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all

SIG = "CikBypeBEsobvcr6wjGzmiPcTaeG7/gUfE5yuYB3ha/uSLvR7Q=="


def test_a_stop_with_function_calls_then_a_text_turn(kit, tmp_path, monkeypatch):
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-key")
    monkeypatch.setenv("GOOGLE_API_KEY", "google-key")
    first = kit.response(
        [
            {"text": "**Reading both files**", "thought": True},
            {
                "functionCall": {"name": "read_file", "args": {"path": "a.txt"}},
                "thoughtSignature": SIG,
            },
            {"functionCall": {"name": "read_file", "args": {"path": "b.txt"}}},
        ],
        finish="STOP",
        usage=kit.usage_metadata(900, 40, thoughts=60),
        response_id="turn-1",
    )
    second = kit.response(
        [{"text": "Both files read."}],
        usage=kit.usage_metadata(1100, 6, cached=900),
        response_id="turn-2",
    )
    replies = [kit.sse_bytes(kit.stream_chunks(r, chunk=4)) for r in (first, second)]
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=replies[len(sent) - 1]
        )

    host = PluginHost.discover()
    if "gemini" not in host.records:
        pytest.fail("the gemini provider plugin was not discovered")
    config = AgentConfig(
        model="google/gemini-2.5-flash",
        root=tmp_path,
        tools=["read_file"],
        trust=Trust(before_tool_call=allow_all),
        connection=Connection(transport=httpx.MockTransport(handler)),
        system_prompt="Be brief.",
    )
    result = Agent(config, host=host).run_sync("Read a.txt and b.txt")

    assert result.outcome == "completed", result.error
    assert result.text == "Both files read."
    assert len(sent) == 2
    assert str(sent[1].url) == (
        "https://generativelanguage.googleapis.com/v1beta/models/"
        "gemini-2.5-flash:streamGenerateContent?alt=sse"
    )
    assert sent[1].headers["x-goog-api-key"] == "gemini-key"
    body = json.loads(sent[1].content)
    assert body["systemInstruction"]["parts"][0]["text"].startswith("Be brief.")
    assert body["tools"][0]["functionDeclarations"][0]["name"] == "read_file"
    contents = body["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert contents[1]["parts"] == [
        {"text": "**Reading both files**", "thought": True},
        {"functionCall": {"name": "read_file", "args": {"path": "a.txt"}}, "thoughtSignature": SIG},
        {"functionCall": {"name": "read_file", "args": {"path": "b.txt"}}},
    ]
    responses = [part["functionResponse"] for part in contents[2]["parts"]]
    assert [set(r) for r in responses] == [{"name", "response"}] * 2
    assert [r["name"] for r in responses] == ["read_file", "read_file"]
    assert "alpha" in json.dumps(responses[0]) and "beta" in json.dumps(responses[1])
    assert all("output" in r["response"] for r in responses)
    # The canonical transcript keeps one result per call, paired by the synthesized ids.
    turn = next(m for m in result.messages if m.role == "assistant")
    assert turn.raw_stop_reason == "STOP"
    calls = turn.tool_calls
    results = [m for m in result.messages if m.role == "tool_result"]
    assert [r.tool_use_id for r in results] == [c.id for c in calls]
    # Usage of both responses: thoughts inside output, cached tokens netted once.
    assert result.usage.input == 900 + 200 and result.usage.cache_read == 900
    assert result.usage.output == 100 + 6 and result.usage.reasoning == 60
