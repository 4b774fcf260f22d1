"""Fallback models (``AgentConfig(model=[...])``) against a real loopback server that fails on cue.

The agent's first model speaks the Anthropic Messages wire, its fallback the
OpenAI Chat Completions wire: the installed provider plugins, their catalog
rows pointed at one HTTP server on 127.0.0.1. The server answers the
Anthropic path with the fault a test asks for and the OpenAI path with a
text answer, both rendered by each wire's own conformance responder.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import pytest
from _loopback import LoopbackServer, Request, head, reset, response

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all
from agentkit.host.runtime import RetryPolicy
from agentkit.host.runtime.pricing import cost_of
from agentkit.plugin_api import (
    AssistantMessage,
    MessageStart,
    ModelFallback,
    StopReason,
    TextBlock,
    ThinkingBlock,
    Tool,
    ToolUseBlock,
    Usage,
    event_from_dict,
    event_to_dict,
    hookimpl,
)

PRIMARY, FALLBACK = "anthropic/claude-sonnet-4-6", "openai/gpt-5"
INSTALLED = PluginHost.discover()
STREAM = {"content-type": "text/event-stream", "connection": "close"}

CALL = AssistantMessage([ThinkingBlock("Seven is worth a note.", signature="EqQBCgIYAhIM"),
                         ToolUseBlock("toolu_01", "note", '{"n": 7}')], StopReason.TOOL_USE,
                        usage=Usage(input=20, output=8))
ANSWER = AssistantMessage([TextBlock("served by the fallback")], StopReason.STOP, usage=Usage(input=1000, output=500))


def sse(api: str, message: AssistantMessage) -> bytes:
    """The SSE body the wire's server sends for ``message``."""
    out = []
    for event in INSTALLED.providers[api].conformance_responder.stream(message):
        out.append((f"event: {event.event}\n" if event.event else "") + f"data: {json.dumps(event.data)}\n\n")
    return "".join(out).encode()


def anthropic_error(status: int) -> bytes:
    kind = {529: "overloaded_error", 429: "rate_limit_error", 401: "authentication_error"}.get(status, "api_error")
    body = json.dumps({"type": "error", "error": {"type": kind, "message": f"vendor says {status}"}}).encode()
    return response(status, body)


class Vendors:
    """The server's behaviour: the Anthropic path plays ``primary`` (a list, one cue per request), OpenAI answers."""

    def __init__(self, *primary: Any, fallback: list[AssistantMessage] | None = None) -> None:
        self.primary = list(primary)
        self.fallback = list(fallback or [])
        self.anthropic: list[Request] = []
        self.openai: list[Request] = []

    async def __call__(self, request: Request, writer: asyncio.StreamWriter) -> None:
        if request.path.endswith("/chat/completions"):
            self.openai.append(request)
            answer = self.fallback.pop(0) if self.fallback else ANSWER
            writer.write(head(200, STREAM) + sse("openai-completions", answer))
            return
        self.anthropic.append(request)
        cue = self.primary.pop(0) if self.primary else "answer"
        if cue == "answer":
            writer.write(head(200, STREAM) + sse("anthropic-messages", ANSWER))
        elif cue == "call":
            writer.write(head(200, STREAM) + sse("anthropic-messages", CALL))
        elif cue == "reset":
            reset(writer)
        elif cue == "partial":  # the answer begins, then the connection breaks
            whole = sse("anthropic-messages", AssistantMessage([TextBlock("half an answer")], StopReason.STOP))
            first_delta = whole.index(b"\n\n", whole.index(b"text_delta")) + 2
            writer.write(head(200, STREAM) + whole[:first_delta])
            await writer.drain()
            reset(writer)
        else:
            writer.write(anthropic_error(cue))


def loopback_host(url: str) -> PluginHost:
    """The installed Anthropic and OpenAI Chat codecs, their catalogs pointed at ``url``."""
    providers = []
    for api in ("anthropic-messages", "openai-completions"):
        codec = INSTALLED.providers[api]
        rows = tuple(dataclasses.replace(row, base_url=url + "/v1") for row in codec.catalog())
        providers.append(type(f"Loopback{type(codec).__name__}", (type(codec),), {"models": rows})())

    class Plugin:
        @hookimpl
        def agentkit_register_providers(self, register: Any) -> None:
            for provider in providers:
                register(provider)

    host = PluginHost()
    host.register(Plugin(), name="loopback")
    return host


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fallback-0123456789")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fallback-0123456789")


def run(vendors: Vendors, prompt: str = "hi", retries: int = 0, **config: Any) -> tuple[Any, list[Any], Agent]:
    note = Tool.from_function(lambda n: f"noted {n}", name="note", description="Note n.")
    with LoopbackServer(vendors) as server:
        agent = Agent(AgentConfig(model=[PRIMARY, FALLBACK], extra_tools=[note], trust=Trust(before_tool_call=allow_all),
                                  connection=Connection(retry=RetryPolicy(max_retries=retries, initial_backoff=0)),
                                  **config),
                      host=loopback_host(server.url))
        events: list[Any] = []
        agent.subscribe(events.append)
        result = agent.run_sync(prompt)
    return result, events, agent


@pytest.mark.parametrize("cue", [500, 529, 503, 429, "reset"])
def test_a_failure_another_model_may_cure_sends_the_turn_to_the_fallback(cue) -> None:
    vendors = Vendors(cue)
    result, events, _ = run(vendors)
    assert (result.outcome, result.text) == ("completed", "served by the fallback")
    assert (len(vendors.anthropic), len(vendors.openai)) == (1, 1)
    [fallback] = [event for event in events if isinstance(event, ModelFallback)]
    assert (fallback.turn, fallback.model, fallback.fallback) == (1, PRIMARY, FALLBACK)
    assert (str(cue) if cue != "reset" else "could not reach") in fallback.error
    assert "sk-ant-fallback" not in fallback.error
    # The event stream says which model served: one message_start, the fallback's.
    assert [(e.provider, e.model) for e in events if isinstance(e, MessageStart)] == [("openai", "gpt-5")]
    [message] = result.messages[1:]
    assert (message.provider, message.api, message.model) == ("openai", "openai-completions", "gpt-5")


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_a_failure_that_is_the_callers_does_not_fall_back(status) -> None:
    vendors = Vendors(status)
    result, events, _ = run(vendors)
    assert result.outcome == "error" and f"HTTP {status}" in (result.error or "")
    assert (len(vendors.anthropic), len(vendors.openai)) == (1, 0)
    assert not any(isinstance(event, ModelFallback) for event in events)


def test_the_retries_come_first_then_the_fallback() -> None:
    vendors = Vendors(529, 529, 529)
    result, _, _ = run(vendors, retries=2)
    assert result.text == "served by the fallback"
    assert (len(vendors.anthropic), len(vendors.openai)) == (3, 1)


def test_a_retry_that_succeeds_needs_no_fallback() -> None:
    vendors = Vendors(529)
    result, _, _ = run(vendors, retries=1)
    assert result.text == "served by the fallback"  # the same words, from the Anthropic wire this time
    assert (len(vendors.anthropic), len(vendors.openai)) == (2, 0)
    assert result.messages[-1].provider == "anthropic"


def test_a_failure_after_the_answer_began_is_the_turns_and_goes_nowhere_else() -> None:
    vendors = Vendors("partial")
    result, events, _ = run(vendors)
    assert result.outcome == "error"
    assert len(vendors.openai) == 0 and not any(isinstance(event, ModelFallback) for event in events)
    assert result.messages[-1].text and "half an answer".startswith(result.messages[-1].text), \
        "what reached the user stays as it arrived"


def test_the_next_turn_asks_the_first_model_again() -> None:
    call = AssistantMessage([ToolUseBlock("call_9", "note", '{"n": 9}')], StopReason.TOOL_USE)
    vendors = Vendors(529, "answer", fallback=[call])  # turn 1 falls back and calls a tool; turn 2: the first again
    result, events, _ = run(vendors)
    assert (result.outcome, result.turns) == ("completed", 2)
    assert (len(vendors.anthropic), len(vendors.openai)) == (2, 1)
    assert [event.turn for event in events if isinstance(event, ModelFallback)] == [1]
    assert [message.provider for message in result.messages if isinstance(message, AssistantMessage)] == [
        "openai", "anthropic"]
    # The first model is sent the fallback's turn converted for its wire: the call and its result.
    body = json.loads(vendors.anthropic[1].body)
    [use] = [block for block in body["messages"][1]["content"] if block["type"] == "tool_use"]
    [answer] = [block for block in body["messages"][2]["content"] if block["type"] == "tool_result"]
    assert (use["name"], use["input"], answer["tool_use_id"]) == ("note", {"n": 9}, use["id"])


def test_the_transcript_goes_to_the_fallback_converted_for_its_wire_and_priced_at_it() -> None:
    vendors = Vendors("call", 529)  # turn 1: the first model calls a tool; turn 2: it is overloaded
    result, events, agent = run(vendors, prompt="note seven")
    assert (result.outcome, result.turns, result.text) == ("completed", 2, "served by the fallback")
    [sent] = vendors.openai
    body = json.loads(sent.body)
    assert body["model"] == "gpt-5"
    roles = [message["role"] for message in body["messages"]]
    assert roles == ["user", "assistant", "tool"]
    # The first model's signed thinking is no other model's to verify: it goes as plain text, unsigned.
    assert "Seven is worth a note." in json.dumps(body["messages"][1]) and "EqQBCgIYAhIM" not in sent.body.decode()
    call = body["messages"][1]["tool_calls"][0]
    assert (call["function"]["name"], json.loads(call["function"]["arguments"])) == ("note", {"n": 7})
    assert body["messages"][2]["tool_call_id"] == call["id"] and "noted 7" in json.dumps(body["messages"][2])
    # Priced at the model that served the turn, not at the first model.
    served = result.messages[-1]
    rows = agent.host.models
    assert served.usage.cost == pytest.approx(cost_of(dataclasses.replace(served.usage, cost=0), rows[FALLBACK]))
    assert served.usage.cost != pytest.approx(cost_of(dataclasses.replace(served.usage, cost=0), rows[PRIMARY]))
    # The event's JSON form round-trips.
    [fallback] = [event for event in events if isinstance(event, ModelFallback)]
    assert fallback.turn == 2
    assert event_from_dict(event_to_dict(fallback)) == fallback


def test_the_last_models_failure_is_the_turns() -> None:
    class Down(Vendors):
        async def __call__(self, request: Request, writer: asyncio.StreamWriter) -> None:
            (self.openai if "chat" in request.path else self.anthropic).append(request)
            writer.write(anthropic_error(503))

    vendors = Down()
    result, events, _ = run(vendors)
    assert result.outcome == "error" and "HTTP 503" in (result.error or "")
    assert (len(vendors.anthropic), len(vendors.openai)) == (1, 1)
    assert [event.type for event in events].count("model_fallback") == 1
    assert result.messages[-1].provider == "openai", "the failed message is the last model's"


@pytest.mark.parametrize("model, problem", [
    ([], "non-empty list"),
    ([PRIMARY, 3], r"model\[1\] must be a vendor/model string"),
    ([PRIMARY, PRIMARY], "twice"),
])
def test_a_bad_model_list_is_refused_naming_the_fix(model, problem) -> None:
    from agentkit.host import ConfigError

    with pytest.raises(ConfigError, match=problem):
        Agent(AgentConfig(model=model), host=loopback_host("http://127.0.0.1:9"))
