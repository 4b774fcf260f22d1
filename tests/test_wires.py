"""One conformance fixture set through all five wires and the scripted provider.

The shared fixtures (``agentkit.conformance.fixtures``) and each wire's
responder (the suite's for ``faux``, ``anthropic-messages`` and
``openai-completions``; the provider's own ``conformance_responder`` for
``openai-responses``, ``google-generative-ai`` and ``ollama-chat``) are the
material; everything goes through the public paths a user takes: the codec's
``encode``/``decoder``, :class:`~agentkit.host.runtime.ProviderRuntime` over an
``httpx.MockTransport``, and :class:`~agentkit.host.Agent`.

Pinned here, per wire:

* the turn with three parallel tool calls and their results takes the wire's
  own shape (Anthropic: one user message with three ``tool_result`` blocks;
  Chat Completions: three ``role: tool`` messages keyed by id; Responses: three
  ``function_call_output`` items keyed by ``call_id``; Ollama: three ``role:
  tool`` messages with no id, in call order; Gemini: one user content with
  three ``functionResponse`` parts);
* cached input tokens are netted out of the input once, read from every place
  the wire (or a vendor on it) puts them;
* ``max_tokens`` is clamped to the context window deep in a transcript, in the
  body each wire sends;
* cancelling mid-stream ends the message ``aborted`` (not ``error``) and keeps
  what arrived;
* tool-call ids a model made are sent back to that model byte for byte.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from agentkit.conformance import fixtures
from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.host.runtime import ProviderRuntime
from agentkit.plugin_api import (
    AssistantMessage,
    BlockDelta,
    MessageEnd,
    ModelInfo,
    ProviderRequest,
    StopReason,
    TextBlock,
    ToolResultMessage,
    ToolUseBlock,
    UserMessage,
    WireEvent,
)

HOST = PluginHost.discover()
WIRES = ["anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai", "ollama-chat"]
ALL = [*WIRES, "faux"]
KEYS = {"ANTHROPIC_API_KEY": "test-anthropic", "OPENAI_API_KEY": "test-openai", "GEMINI_API_KEY": "test-gemini"}


def provider(api: str) -> Any:
    return HOST.providers[api]


def row(api: str) -> ModelInfo:
    rows = list(provider(api).catalog())
    return next((r for r in rows if r.default), rows[0])


def responder(api: str) -> Any:
    found = fixtures.responder_for(provider(api))
    assert found is not None, f"no conformance responder for {api}"
    return found


def body_of(api: str, request: ProviderRequest) -> dict[str, Any]:
    wire = provider(api).encode(request)
    return json.loads(wire.body) if isinstance(wire.body, (bytes, bytearray)) else wire.body


def transcript(name: str) -> fixtures.Transcript:
    return next(t for t in fixtures.TRANSCRIPTS if t.name == name)


# -- serving a wire's events over HTTP ----------------------------------------------


def wire_bytes(framing: str, events: list[WireEvent]) -> bytes:
    """``events`` as a server writes them in ``framing`` (SSE or NDJSON)."""
    out = []
    for event in events:
        data = json.dumps(event.data, ensure_ascii=False)
        if framing == "ndjson":
            out.append(data + "\n")
        else:
            out.append((f"event: {event.event}\n" if event.event else "") + f"data: {data}\n\n")
    return "".join(out).encode("utf-8")


CONTENT_TYPE = {"sse": "text/event-stream", "ndjson": "application/x-ndjson"}


def run_stream(api: str, request: ProviderRequest, handler: Callable[..., Any],
               on_event: Callable[[Any], None] | None = None, abort: asyncio.Event | None = None) -> list[Any]:
    """Every event :meth:`ProviderRuntime.stream` yields for ``request`` against ``handler``."""

    async def main() -> list[Any]:
        runtime = ProviderRuntime(httpx.MockTransport(handler), env=KEYS, attribution=False)
        out = []
        async for event in runtime.stream(provider(api), request, abort=abort):
            out.append(event)
            if on_event is not None:
                on_event(event)
        return out

    return asyncio.run(main())


def serve_message(api: str, message: AssistantMessage) -> Callable[[httpx.Request], httpx.Response]:
    framing = provider(api).encode(fixtures.request_for(fixtures.TRANSCRIPTS[0], row(api))).framing
    body = wire_bytes(framing, responder(api).stream(message))
    return lambda request: httpx.Response(200, headers={"content-type": CONTENT_TYPE[framing]}, content=body)


# -- the shared suite ------------------------------------------------------------------


@pytest.mark.parametrize("api", ALL)
def test_the_shared_fixtures_decode_on_every_wire(api: str) -> None:
    """``validate-plugins`` runs this check: every built-in wire is decode-checked, none warns."""
    import agentkit.conformance as conformance

    report = conformance.check_plugin(HOST.plugin_of("provider", api), lint=False)
    checks = [c for c in report.checks if c.check.startswith("providers.")]
    assert [f"{c.check}: {c.message}" for c in checks if c.outcome not in ("pass", "skip")] == []
    decoded = {c.message for c in checks if c.check == "providers.decode" and c.outcome == "pass"}
    assert {"text (stream)", "parallel_tool_calls (stream)"} <= decoded
    assert any(c.check == "providers.encode" and c.outcome == "pass" for c in checks)


# -- three parallel results: three shapes ---------------------------------------------


IDS = ["call_conformance_1", "call_conformance_2", "call_conformance_3"]
NAMES = ["read_file", "search_files", "read_file"]
RESULTS = ['{"ok": true, "data": "notes"}', '{"ok": false, "error": "no_match"}', '{"ok": true, "data": "more"}']


def assert_results(texts: list[str]) -> None:
    """The three results in call order; a wire with no error flag marks the failed one in its text."""
    assert len(texts) == 3 and all(text.endswith(result) for text, result in zip(texts, RESULTS, strict=True))
    assert [text == result for text, result in zip(texts, RESULTS, strict=True)] == [True, False, True]


def three_calls_body(api: str) -> dict[str, Any]:
    return body_of(api, fixtures.request_for(transcript("three_parallel_tool_calls"), row(api)))


def test_anthropic_answers_three_calls_with_one_user_message_of_three_tool_results() -> None:
    messages = three_calls_body("anthropic-messages")["messages"]
    (at,) = [i for i, m in enumerate(messages) if any(b.get("type") == "tool_use" for b in m["content"])]
    assert [b["id"] for b in messages[at]["content"] if b["type"] == "tool_use"] == IDS
    answer = messages[at + 1]
    assert answer["role"] == "user"
    results = [b for b in answer["content"] if b["type"] == "tool_result"]
    assert [b["tool_use_id"] for b in results] == IDS
    assert [b.get("is_error", False) for b in results] == [False, True, False]
    assert sum(b.get("type") == "tool_result" for m in messages for b in m["content"]) == 3


def test_chat_completions_answers_three_calls_with_three_tool_messages_keyed_by_id() -> None:
    messages = three_calls_body("openai-completions")["messages"]
    (at,) = [i for i, m in enumerate(messages) if m.get("tool_calls")]
    assert [c["id"] for c in messages[at]["tool_calls"]] == IDS
    answers = messages[at + 1 : at + 4]
    assert [m["role"] for m in answers] == ["tool"] * 3
    assert [m["tool_call_id"] for m in answers] == IDS
    assert_results([m["content"] for m in answers])
    assert sum(m["role"] == "tool" for m in messages) == 3


def test_responses_answers_three_calls_with_three_function_call_outputs_keyed_by_call_id() -> None:
    items = three_calls_body("openai-responses")["input"]
    calls = [i for i in items if i.get("type") == "function_call"]
    outputs = [i for i in items if i.get("type") == "function_call_output"]
    assert [c["call_id"] for c in calls] == IDS
    assert [o["call_id"] for o in outputs] == IDS
    assert_results([o["output"] for o in outputs])
    first = items.index(outputs[0])
    assert items[first : first + 3] == outputs and items.index(calls[-1]) < first


def test_ollama_answers_three_calls_with_three_tool_messages_in_call_order_without_ids() -> None:
    messages = three_calls_body("ollama-chat")["messages"]
    (at,) = [i for i, m in enumerate(messages) if m.get("tool_calls")]
    assert [c["function"]["name"] for c in messages[at]["tool_calls"]] == NAMES
    answers = messages[at + 1 : at + 4]
    assert [m["role"] for m in answers] == ["tool"] * 3
    assert_results([m["content"] for m in answers])
    assert all("tool_call_id" not in m and "id" not in m for m in answers)
    assert sum(m["role"] == "tool" for m in messages) == 3


def test_gemini_answers_three_calls_with_one_content_of_three_function_responses() -> None:
    contents = three_calls_body("google-generative-ai")["contents"]
    (at,) = [i for i, c in enumerate(contents) if any("functionCall" in p for p in c["parts"])]
    calls = [p["functionCall"] for p in contents[at]["parts"] if "functionCall" in p]
    answer = contents[at + 1]
    assert answer["role"] == "user"
    responses = [p["functionResponse"] for p in answer["parts"] if "functionResponse" in p]
    assert len(responses) == len(calls) == 3
    assert [r["name"] for r in responses] == [c["name"] for c in calls] == NAMES
    assert [r.get("id") for r in responses] == [c.get("id") for c in calls] == IDS
    assert sum("functionResponse" in p for c in contents for p in c["parts"]) == 3


# -- cached tokens: netted once, read from every place ---------------------------------


CACHED = fixtures.RESPONSES[3].message  # input 120, cache_read 2048


def _with_usage(events: list[WireEvent], change: Callable[[dict[str, Any]], None]) -> list[WireEvent]:
    out = []
    for event in events:
        data = copy.deepcopy(event.data)
        change(data)
        out.append(WireEvent(data, event.event))
    return out


def _anthropic_cache_on_delta(data: dict[str, Any]) -> None:
    # message_start says nothing of the cache; the cumulative message_delta does.
    if data.get("type") == "message_start":
        data["message"]["usage"]["cache_read_input_tokens"] = 0
    if data.get("type") == "message_delta":
        data["usage"]["cache_read_input_tokens"] = CACHED.usage.cache_read


def _openai_usage(rewrite: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        if data.get("usage"):
            rewrite(data["usage"])
    return change


def _deepseek(usage: dict[str, Any]) -> None:
    usage["prompt_cache_hit_tokens"] = usage.pop("prompt_tokens_details")["cached_tokens"]
    usage["prompt_cache_miss_tokens"] = usage["prompt_tokens"] - usage["prompt_cache_hit_tokens"]


def _moonshot(usage: dict[str, Any]) -> None:
    usage["cached_tokens"] = usage.pop("prompt_tokens_details")["cached_tokens"]


def _openrouter_and_deepseek_both(usage: dict[str, Any]) -> None:
    # A gateway passing a vendor's field through beside the standard one: still one count.
    usage["prompt_cache_hit_tokens"] = usage["prompt_tokens_details"]["cached_tokens"]


#: (wire, where the cached count is, how the responder's events are changed to put it there)
CACHE_PLACES: list[tuple[str, str, Callable[[dict[str, Any]], None] | None]] = [
    ("faux", "usage", None),
    ("anthropic-messages", "message_start usage", None),
    ("anthropic-messages", "message_delta usage only", _anthropic_cache_on_delta),
    ("openai-completions", "prompt_tokens_details.cached_tokens", None),
    ("openai-completions", "prompt_cache_hit_tokens (DeepSeek)", _openai_usage(_deepseek)),
    ("openai-completions", "top-level cached_tokens (Moonshot)", _openai_usage(_moonshot)),
    ("openai-completions", "two fields with one count", _openai_usage(_openrouter_and_deepseek_both)),
    ("openai-responses", "input_tokens_details.cached_tokens", None),
    ("google-generative-ai", "cachedContentTokenCount on every chunk", None),
]


@pytest.mark.parametrize(("api", "place", "change"), CACHE_PLACES, ids=[f"{a}:{p}" for a, p, _ in CACHE_PLACES])
def test_cached_tokens_are_netted_out_of_the_input_once(api: str, place: str, change: Any) -> None:
    """The whole exchange (framing included): input 120 and cache_read 2048, never 120 - 2048 or 120 + 2048."""
    events = responder(api).stream(CACHED)
    if change is not None:
        events = _with_usage(events, change)
    framing = provider(api).encode(fixtures.request_for(fixtures.TRANSCRIPTS[0], row(api))).framing
    body = wire_bytes(framing, events)
    out = run_stream(api, fixtures.request_for(fixtures.TRANSCRIPTS[0], row(api)),
                     lambda request: httpx.Response(200, headers={"content-type": CONTENT_TYPE[framing]}, content=body))
    message = out[-1].message
    assert message.stop_reason is StopReason.STOP, message.error_message
    assert (message.usage.input, message.usage.cache_read) == (120, 2048)


@pytest.mark.parametrize("api", [a for a in ALL if "cache_read" in fixtures.carried(responder(a))
                                 and responder(a).whole(CACHED) is not None])
def test_a_whole_response_nets_cached_tokens_the_same_way(api: str) -> None:
    whole = responder(api).whole(CACHED)
    decoder = provider(api).decoder(fixtures.request_for(fixtures.TRANSCRIPTS[0], row(api), stream=False))
    out = [e for event in whole for e in decoder.feed(event)] + decoder.finish()
    assert (out[-1].message.usage.input, out[-1].message.usage.cache_read) == (120, 2048)


def test_ollama_reports_no_cache_and_nets_nothing() -> None:
    assert "cache_read" not in fixtures.carried(responder("ollama-chat"))
    out = run_stream("ollama-chat", fixtures.request_for(fixtures.TRANSCRIPTS[0], row("ollama-chat")),
                     serve_message("ollama-chat", CACHED))
    usage = out[-1].message.usage
    assert (usage.input, usage.output, usage.cache_read) == (CACHED.usage.input, CACHED.usage.output, 0)


# -- max_tokens clamped deep in a transcript ------------------------------------------


def max_tokens_in(api: str, body: dict[str, Any]) -> int:
    """Where each wire says how many tokens the answer may have."""
    if api == "openai-completions":
        return body.get("max_completion_tokens", body.get("max_tokens"))
    if api == "openai-responses":
        return body["max_output_tokens"]
    if api == "google-generative-ai":
        return body["generationConfig"]["maxOutputTokens"]
    if api == "ollama-chat":
        return body["options"]["num_predict"]
    return body["max_tokens"]


SMALL_WINDOW, MAX_OUTPUT = 24_000, 8_000


def _small_window_host(api: str) -> tuple[PluginHost, ModelInfo]:
    host = PluginHost.discover()
    small = dataclasses.replace(row(api), context_window=SMALL_WINDOW, max_output=MAX_OUTPUT)
    host.models[small.key] = small
    return host, small


def _history(model: ModelInfo, turns: int) -> list[Any]:
    """``turns`` question/answer pairs of ~1,600 characters, answered by ``model`` itself."""
    history: list[Any] = []
    for n in range(turns):
        history.append(UserMessage.text(f"question {n}: " + "why is the sky blue? " * 40))
        history.append(AssistantMessage([TextBlock(f"answer {n}: " + "Rayleigh scattering. " * 40)],
                                        StopReason.STOP, provider=model.vendor, api=model.api, model=model.id))
    return history


def _first_request_body(api: str, turns: int, tmp_path: Any, monkeypatch: Any) -> dict[str, Any]:
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    host, model = _small_window_host(api)
    seen: list[dict[str, Any]] = []
    answer = serve_message(api, fixtures.RESPONSES[0].message)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return answer(request)

    agent = Agent(AgentConfig(model=model.key, root=tmp_path, tools=[],
                              connection=Connection(transport=httpx.MockTransport(handler))),
                  host=host)
    assert agent.model.context_window == SMALL_WINDOW
    agent.history = _history(model, turns)
    result = agent.run_sync("and now?")
    assert result.outcome == "completed", result.error
    (body,) = seen
    return body


@pytest.mark.parametrize("api", ALL)
def test_max_tokens_is_clamped_deep_in_a_transcript(api: str, tmp_path: Any, monkeypatch: Any) -> None:
    """Shallow, the request asks for the model's whole output limit; 40 turns in, only what the window leaves."""
    shallow = max_tokens_in(api, _first_request_body(api, 1, tmp_path, monkeypatch))
    deep = max_tokens_in(api, _first_request_body(api, 40, tmp_path, monkeypatch))
    assert shallow == MAX_OUTPUT
    assert 0 < deep < MAX_OUTPUT


def test_every_wire_clamps_to_the_same_number(tmp_path: Any, monkeypatch: Any) -> None:
    """The clamp is the host's, from the canonical transcript: no wire sends a different limit."""
    limits = {api: max_tokens_in(api, _first_request_body(api, 40, tmp_path, monkeypatch)) for api in ALL}
    assert len(set(limits.values())) == 1, limits
    assert next(iter(limits.values())) < MAX_OUTPUT


# -- cancelling mid-stream ---------------------------------------------------------------


@pytest.mark.parametrize("api", ALL)
def test_cancelling_mid_stream_is_an_abort_that_keeps_what_arrived(api: str) -> None:
    """The body stays open after some events; the caller sets the abort event on the first delta."""
    message = fixtures.RESPONSES[0].message
    request = fixtures.request_for(fixtures.TRANSCRIPTS[0], row(api))
    framing = provider(api).encode(request).framing
    events = responder(api).stream(message)
    head = wire_bytes(framing, events[: max(2, len(events) // 2)])
    abort = asyncio.Event()
    never = asyncio.Event()

    async def body() -> AsyncIterator[bytes]:
        yield head
        await never.wait()  # the server goes quiet, the connection stays open
        yield b""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": CONTENT_TYPE[framing]}, content=body())

    def on_event(event: Any) -> None:
        if isinstance(event, BlockDelta):
            abort.set()

    out = run_stream(api, request, handler, on_event, abort)
    end = out[-1]
    assert isinstance(end, MessageEnd) and sum(isinstance(e, MessageEnd) for e in out) == 1
    assert end.message.stop_reason is StopReason.ABORTED, end.message.error_message
    assert end.message.error_message
    (partial,) = end.message.content
    assert isinstance(partial, TextBlock) and partial.text and message.text.startswith(partial.text)


# -- tool-call ids of the same model ---------------------------------------------------


#: An id outside every wire's id alphabet (a dot, a colon), short enough for every
#: wire's hard length limit (Chat Completions at OpenAI: 40): from another model
#: the repair rewrites it, so seeing it unchanged proves the same-model rule.
ODD_ID = "toolu.01:" + "x" * 24


def _sent_ids(api: str, body: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(ids of the calls, ids the results answer) as the body spells them."""
    if api == "anthropic-messages":
        blocks = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
        return ([b["id"] for b in blocks if b["type"] == "tool_use"],
                [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"])
    if api == "openai-completions":
        return ([c["id"] for m in body["messages"] for c in m.get("tool_calls") or []],
                [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"])
    if api == "openai-responses":
        items = body["input"]
        return ([i["call_id"] for i in items if i.get("type") == "function_call"],
                [i["call_id"] for i in items if i.get("type") == "function_call_output"])
    if api == "google-generative-ai":
        parts = [p for c in body["contents"] for p in c["parts"]]
        return ([p["functionCall"].get("id") for p in parts if "functionCall" in p],
                [p["functionResponse"].get("id") for p in parts if "functionResponse" in p])
    raise AssertionError(f"{api} carries no tool-call ids")


def _call_history(model: ModelInfo, call_id: str) -> list[Any]:
    return [
        UserMessage.text("read a.txt"),
        AssistantMessage([ToolUseBlock(call_id, "read_file", '{"path": "a.txt"}')], StopReason.TOOL_USE,
                         provider=model.vendor, api=model.api, model=model.id),
        ToolResultMessage(call_id, "read_file", [TextBlock("hello")]),
    ]


def _repaired_body(api: str, history: list[Any], tmp_path: Any, monkeypatch: Any) -> dict[str, Any]:
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    seen: list[dict[str, Any]] = []
    answer = serve_message(api, fixtures.RESPONSES[0].message)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return answer(request)

    agent = Agent(AgentConfig(model=row(api).key, root=tmp_path, tools=[],
                              connection=Connection(transport=httpx.MockTransport(handler))),
                  host=HOST)
    agent.history = history
    assert agent.run_sync("go on").outcome == "completed"
    return seen[0]


@pytest.mark.parametrize("api", [w for w in WIRES if w != "ollama-chat"])
def test_tool_call_ids_of_the_same_model_are_sent_back_byte_for_byte(api: str, tmp_path: Any, monkeypatch: Any) -> None:
    model = row(api)
    call_id = ODD_ID
    if api == "openai-responses":  # this wire's canonical id is call_id|item id; both travel
        call_id = "call_" + "Q" * 70 + "|fc_01.odd"
    same = _repaired_body(api, _call_history(model, call_id), tmp_path, monkeypatch)
    wire_id = call_id.split("|")[0]
    assert _sent_ids(api, same) == ([wire_id], [wire_id])
    if api == "openai-responses":
        assert [i["id"] for i in same["input"] if i.get("type") == "function_call"] == ["fc_01.odd"]
    # The same history from another model: the id is rewritten, the same way in call and result.
    other = dataclasses.replace(model, vendor="elsewhere", id="other-model")
    foreign = _repaired_body(api, _call_history(other, call_id), tmp_path, monkeypatch)
    calls, results = _sent_ids(api, foreign)
    assert calls == results and calls != [wire_id]


def test_ollama_sends_no_ids_and_pairs_results_by_position(tmp_path: Any, monkeypatch: Any) -> None:
    body = _repaired_body("ollama-chat", _call_history(row("ollama-chat"), ODD_ID), tmp_path, monkeypatch)
    assert ODD_ID not in json.dumps(body)
    roles = [m["role"] for m in body["messages"]]
    assert roles[roles.index("assistant") + 1] == "tool"
