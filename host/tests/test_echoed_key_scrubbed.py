"""A key the vendor echoes back in its streamed answer is scrubbed like every other channel.

A hostile or buggy endpoint (a proxy, a compromised gateway, a model told to
repeat its headers) streams the very API key the run sent. The key must reach
none of what a user or a log keeps: the streamed deltas and the final text
(events, ``--json`` lines, stdout), the session log, log records and errors,
even when the key arrives split across two deltas.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.plugin_api import event_to_dict, hookimpl

KEY = "sk-ant-echoed-0123456789-abcdefghijklmnop-KEY"
MODEL = "anthropic/claude-sonnet-4-6"
SHOWN = "sk-a***-KEY"  # the key as errors and headers show it: first and last four characters

#: What the endpoint streams, delta by delta: the key whole, then cut in two, then cut at every place.
WHOLE = ["Your key is ", KEY, ", keep it safe."]
SPLIT = ["Your key is " + KEY[:10], KEY[10:] + " and again: " + KEY[:1], KEY[1:], "."]
CUTS = [["a" + KEY[:cut], KEY[cut:] + "b"] for cut in range(1, len(KEY))]


def anthropic_stream(deltas: list[str], *, thinking: list[str] | None = None) -> str:
    """An Anthropic Messages SSE body whose text block arrives as ``deltas``."""
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6", "content": [],
        "stop_reason": None, "usage": {"input_tokens": 5, "output_tokens": 1}}})]
    index = 0
    if thinking is not None:
        events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                               "content_block": {"type": "thinking", "thinking": ""}}))
        events += [("content_block_delta", {"type": "content_block_delta", "index": index,
                                            "delta": {"type": "thinking_delta", "thinking": piece}})
                   for piece in thinking]
        events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                               "delta": {"type": "signature_delta", "signature": "sig"}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                           "content_block": {"type": "text", "text": ""}}))
    events += [("content_block_delta", {"type": "content_block_delta", "index": index,
                                        "delta": {"type": "text_delta", "text": piece}}) for piece in deltas]
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                                     "usage": {"output_tokens": 20}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)


def sse_response(body: str) -> httpx.Response:
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


@pytest.mark.parametrize("deltas", [WHOLE, SPLIT, *CUTS], ids=["whole", "split", *(f"cut{n}" for n in range(1, len(KEY)))])
def test_a_key_echoed_in_streamed_text_reaches_no_event_log_or_session(deltas: list[str], tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    seen_keys: list[str] = []

    def endpoint(request: httpx.Request) -> httpx.Response:
        seen_keys.append(request.headers.get("x-api-key", ""))
        return sse_response(anthropic_stream(deltas, thinking=["I was sent ", KEY[:20], KEY[20:]]))

    observed: list[Any] = []

    class Tracing:  # a run observer, as the tracing plugin is
        @hookimpl
        def agentkit_run_observer(self, session: Any) -> Any:
            return observed.append

    host = PluginHost.discover()
    host.register(Tracing(), name="tracing-like")
    session = Session.new(JsonlSessionStore(tmp_path / "sessions"), cwd=tmp_path)
    agent = Agent(AgentConfig(model=MODEL, root=tmp_path, tools=[],
                              connection=Connection(transport=httpx.MockTransport(endpoint))),
                  host=host, session=session)

    async def run() -> list[Any]:
        return [event async for event in agent.stream("What is my key?")]

    events = asyncio.run(run())
    assert seen_keys == [KEY]  # the key was really in use
    streamed = "".join(event.delta for event in events if event.type == "block_delta")
    assert KEY not in streamed and SHOWN in streamed
    said = "".join(deltas).replace(KEY, SHOWN)  # redacted where it was, nothing else lost nor repeated
    assert streamed == f"I was sent {SHOWN}" + said
    assert agent.history[-1].content[-1].text == said
    assert KEY not in json.dumps([event_to_dict(event) for event in events])
    assert KEY not in repr(events)
    assert KEY not in json.dumps([message.to_dict() for message in agent.history])  # what the next turn sends
    (log,) = (tmp_path / "sessions").glob("*.jsonl")
    assert KEY not in log.read_text(encoding="utf-8") and SHOWN in log.read_text(encoding="utf-8")
    assert all(KEY not in record.getMessage() for record in caplog.records)
    assert observed and KEY not in json.dumps([event_to_dict(event) for event in observed])


@pytest.mark.parametrize("json_output", [True, False], ids=["json", "text"])
@pytest.mark.parametrize("deltas", [WHOLE, SPLIT], ids=["whole", "split"])
def test_agentkit_run_never_shows_nor_keeps_an_echoed_key(agentkit: Any, tmp_path: Path, deltas: list[str],
                                                          json_output: bool) -> None:
    recording = tmp_path / "recording.json"
    recording.write_text(json.dumps([{"status": 200, "headers": {"content-type": "text/event-stream"},
                                      "body": anthropic_stream(deltas)}]), encoding="utf-8")
    data = tmp_path / "data"
    env = {"ANTHROPIC_API_KEY": KEY, "AGENTKIT_REPLAY": str(recording), "AGENTKIT_DATA_DIR": str(data)}
    result = agentkit.inline("run", "What is my key?", "--model", MODEL, "--root", str(tmp_path), "--session", "new",
                             *(["--json"] if json_output else []), env=env)
    assert result.returncode == 0, result.stderr
    assert "Your key is " in result.stdout
    assert KEY not in result.stdout + result.stderr
    logs = list(data.rglob("*.jsonl"))
    assert logs and all(KEY not in log.read_text(encoding="utf-8") for log in logs)
    shown = agentkit.inline("sessions", "show", logs[0].stem, env=env)
    assert shown.returncode == 0 and "Your key is " in shown.stdout and KEY not in shown.stdout


def test_a_stream_cut_short_inside_the_key_shows_no_long_piece_of_it(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    body = anthropic_stream(["Your key is " + KEY[:30]])
    cut_short = body[: body.index("event: content_block_stop")]  # the connection drops inside the key

    agent = Agent(AgentConfig(model=MODEL, root=tmp_path, tools=[],
                              connection=Connection(transport=httpx.MockTransport(lambda request: sse_response(cut_short)))))

    async def run() -> list[Any]:
        return [event async for event in agent.stream("What is my key?")]

    events = asyncio.run(run())
    shown = json.dumps([event_to_dict(event) for event in events])
    assert "Your key is " in shown and KEY[:12] not in shown
    assert events[-1].type == "agent_end"
