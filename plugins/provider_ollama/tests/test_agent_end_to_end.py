"""A whole agent run on the ollama-chat wire, HTTP replaced by ``httpx.MockTransport``.

The model thinks, then asks for two files in one response (Ollama's streamed
shape: both calls whole, object arguments, ``done_reason: stop`` beside them).
The loop runs both calls. The second request must carry two ``role: tool``
messages in call order with no id (this wire pairs results by position), and
replay the thinking and the calls with their argument key order.
Response shapes follow Ollama's API reference (see ``conftest.py``).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from agentkit.host import (
    Agent,
    AgentConfig,
    Connection,
    ModelSettings,
    PluginHost,
    Trust,
    allow_all,
)
from agentkit.plugin_api import (
    AssistantMessage,
    StopReason,
    TextBlock,
    ToolResultMessage,
    ToolUseBlock,
    UserMessage,
)


def _first(kit: Any) -> bytes:
    calls = [
        {"function": {"name": "read_file", "arguments": {"path": "a.txt", "offset": 1}}},
        {"function": {"name": "read_file", "arguments": {"offset": 1, "path": "b.txt"}}},
    ]
    return kit.ndjson(
        [
            kit.line({"thinking": "Both files are needed."}),
            kit.line({"tool_calls": calls}),
            kit.done("stop", prompt=210, output=48),
        ]
    )


def _second(kit: Any) -> bytes:
    return kit.ndjson(
        [
            kit.line({"content": "Both files "}),
            kit.line({"content": "read."}),
            kit.done(prompt=320, output=6),
        ]
    )


def test_a_tool_batch_round_trips_through_the_loop(
    kit: Any, tmp_path: Any, monkeypatch: Any
) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    monkeypatch.delenv("OLLAMA_API_KEY", raising=False)
    sent: list[httpx.Request] = []
    replies = [_first(kit), _second(kit)]

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(
            200, headers={"content-type": "application/x-ndjson"}, content=replies[len(sent) - 1]
        )

    host = PluginHost.discover()
    if "ollama" not in host.records:
        pytest.fail("the ollama provider plugin was not discovered")
    config = AgentConfig(
        model="ollama/qwen3",
        root=tmp_path,
        tools=["read_file"],
        settings=ModelSettings(max_tokens=1024),
        trust=Trust(before_tool_call=allow_all),
        connection=Connection(transport=httpx.MockTransport(handler)),
        system_prompt="Be brief.",
        reasoning="high",
    )
    result = Agent(config, host=host).run_sync("Read a.txt and b.txt")

    assert result.outcome == "completed", result.error
    assert result.text == "Both files read."
    assert len(sent) == 2
    assert [str(r.url) for r in sent] == ["http://127.0.0.1:11434/api/chat"] * 2
    assert "authorization" not in sent[0].headers  # a local server needs no key
    first, second = (json.loads(r.content) for r in sent)
    assert (first["think"], first["stream"], first["options"]["num_predict"]) == (True, True, 1024)

    messages = second["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool"]
    assert messages[0]["content"].startswith("Be brief.")
    assistant = messages[2]
    assert assistant["thinking"] == "Both files are needed."
    assert [list(c["function"]["arguments"]) for c in assistant["tool_calls"]] == [
        ["path", "offset"],
        ["offset", "path"],
    ]
    results = messages[3:]
    assert all(set(m) == {"role", "tool_name", "content"} for m in results), results
    assert [m["tool_name"] for m in results] == ["read_file", "read_file"]
    assert "alpha" in results[0]["content"] and "beta" in results[1]["content"]
    assert not any(m["content"].startswith("Error: ") for m in results), results

    # The canonical transcript keeps one result per call, keyed by the ids the
    # codec derived, and the assistant message reports tool_use for Ollama's stop.
    assistant_message = result.messages[1]
    assert assistant_message.stop_reason == "tool_use"
    assert assistant_message.raw_stop_reason == "stop"
    call_ids = [call.id for call in assistant_message.tool_calls]
    assert [m.tool_use_id for m in result.messages[2:4]] == call_ids
    assert len(set(call_ids)) == 2
    assert (result.usage.input, result.usage.output) == (530, 54)


def test_a_model_missing_from_the_catalog_is_served_as_a_clone_of_the_default(
    kit: Any, tmp_path: Any
) -> None:
    """``ollama/<any pulled model>`` works: the host clones the vendor's default row."""
    sent: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        body = kit.ndjson(
            [kit.line({"content": "hi"}, model="llama3.2:1b"), kit.done(model="llama3.2:1b")]
        )
        return httpx.Response(200, headers={"content-type": "application/x-ndjson"}, content=body)

    config = AgentConfig(
        model="ollama/llama3.2:1b", root=tmp_path, tools=[],
        connection=Connection(transport=httpx.MockTransport(handler)
    ))
    result = Agent(config, host=PluginHost.discover()).run_sync("hello")
    assert result.outcome == "completed", result.error
    assert result.text == "hi"
    assert sent[0]["model"] == "llama3.2:1b"
    assert "tools" not in sent[0]


def test_a_partial_batch_is_completed_before_it_goes_on_the_wire(kit: Any, tmp_path: Any) -> None:
    """Positional pairing cannot express a call without a result (the second
    result would answer the wrong call): the host's repair fills the gap with a
    synthetic error result, in the call's place, and this codec sends it as such."""
    sent: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        body = kit.ndjson([kit.line({"content": "ok"}), kit.done()])
        return httpx.Response(200, headers={"content-type": "application/x-ndjson"}, content=body)

    config = AgentConfig(
        model="ollama/qwen3", root=tmp_path, tools=[], connection=Connection(transport=httpx.MockTransport(handler)
    ))
    agent = Agent(config, host=PluginHost.discover())
    calls = [
        ToolUseBlock("call_1", "read_file", '{"path":"a"}'),
        ToolUseBlock("call_2", "read_file", '{"path":"b"}'),
    ]
    agent.history += [
        UserMessage.text("read a and b"),
        AssistantMessage(
            list(calls), StopReason.TOOL_USE, provider="ollama", api="ollama-chat", model="qwen3"
        ),
        # Only the second call was answered (an interrupted batch, a damaged session).
        ToolResultMessage("call_2", "read_file", [TextBlock("beta")]),
    ]
    result = agent.run_sync("go on")
    assert result.outcome == "completed", result.error
    tools = [(m["tool_name"], m["content"]) for m in sent[0]["messages"] if m["role"] == "tool"]
    assert len(tools) == 2
    assert tools[0] == ("read_file", "Error: No result provided")  # synthetic, in its place
    assert tools[1] == ("read_file", "beta")
