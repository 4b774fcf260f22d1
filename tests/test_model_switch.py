"""One transcript, replayed across model changes, never sends a request a wire would reject.

A session starts on Anthropic, moves to Gemini, to OpenAI (Chat Completions),
back to Anthropic, then to OpenAI Responses, Ollama, Gemini and Anthropic
again. Each model gets its own :class:`~agentkit.host.Agent`, which takes the
history so far (``agent.history`` is the transcript the next request is built
from; assigning it is how a session moves to another model). Every model
answers, through ``httpx.MockTransport``, the way its wire does: thinking with
that vendor's signature, text and two parallel tool calls with the wire's own
ids (none on Gemini and Ollama), then a final text.

Every request body is then checked the way the wire's server would check it:
every tool call answered, ids in the wire's alphabet, results naming calls of
the message right before them (Anthropic ``tool_result``, OpenAI ``role: tool``
and ``function_call_output``), as many Gemini ``functionResponse`` parts as
``functionCall`` parts, no signature, reasoning item or thinking block of
another model; and each body has the shape the vendor's SDK declares for the
request (``anthropic``, ``openai`` TypedDicts; ``google-genai`` models).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import itertools
import json
import re
import types
import typing
from typing import Any

import httpx
import pytest
import typing_extensions

from agentkit.conformance import fixtures
from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all
from agentkit.plugin_api import (
    AssistantMessage,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
    WireEvent,
)

HOST = PluginHost.discover()
KEYS = {"ANTHROPIC_API_KEY": "test-anthropic", "OPENAI_API_KEY": "test-openai", "GEMINI_API_KEY": "test-gemini"}
MODELS = {
    "anthropic-messages": "anthropic/claude-sonnet-5-5",
    "google-generative-ai": "google/gemini-2.5-flash",
    "openai-completions": "openai/gpt-4.1",
    "openai-responses": "openai-responses/gpt-5",
    "ollama-chat": "ollama/qwen3",
}
SESSION = ["anthropic-messages", "google-generative-ai", "openai-completions", "anthropic-messages",
           "openai-responses", "ollama-chat", "google-generative-ai", "anthropic-messages"]

#: What each wire's thinking is signed with; none may reach another wire.
SIGNATURES = {
    "anthropic-messages": "EqQBCkYIBxgCKkBanthropicSignatureForThisTurnOnly",
    "google-generative-ai": "Q2lRQjE5Z2VtaW5pLXRob3VnaHQtc2lnbmF0dXJl",
    "openai-responses": "gAAAA-conformance",  # the encrypted content the responder sends
}
#: Each wire minting ids its own way: Anthropic ``toolu_``, Chat ``call_``, Responses
#: ``call_id|item id``; Gemini and Ollama send none.
IDS = {
    "anthropic-messages": ["toolu_01A09q90qw90lq917835lq{leg}", "toolu_01B19r01rx01mr028946mr{leg}"],
    "openai-completions": ["call_9pw1qnYScqvGrCH58HWCvF{leg}", "call_Kx2Wv7cT3mJ9pQeLrN0sYb{leg}"],
    "openai-responses": ["call_r1Zp8bVt{leg}|fc_68d1a0f3c2e48193", "call_r2Yq9cWu{leg}|fc_68d1a0f3c2e48194"],
    "google-generative-ai": ["", ""],
    "ollama-chat": ["", ""],
}


def thinking_text(api: str, leg: int) -> str:
    return f"{api} thinks on leg {leg}: read both files first."


def first_answer(api: str, leg: int) -> AssistantMessage:
    content: list[Any] = []
    if api != "openai-completions":  # Chat Completions at OpenAI returns no reasoning text
        content.append(ThinkingBlock(thinking_text(api, leg), SIGNATURES.get(api, "")))
    content.append(TextBlock(f"Reading both files (leg {leg})."))
    content += [ToolUseBlock(call_id.format(leg=leg), "read_file", json.dumps({"path": path}))
                for call_id, path in zip(IDS[api], ["a.txt", "b.txt"], strict=True)]
    return AssistantMessage(content, StopReason.TOOL_USE, usage=Usage(input=50, output=20), timestamp=0.0)


def final_answer(leg: int) -> AssistantMessage:
    return AssistantMessage([TextBlock(f"Both files read (leg {leg}).")], StopReason.STOP,
                            usage=Usage(input=80, output=5), timestamp=0.0)


def gemini_like(events: list[WireEvent]) -> list[WireEvent]:
    """As Gemini sends calls: no ``id``, and the turn's signature on the first ``functionCall`` part."""
    out, signed = [], False
    for event in events:
        data = json.loads(json.dumps(event.data))
        for candidate in data.get("candidates", []):
            for part in candidate["content"]["parts"]:
                if "functionCall" in part:
                    part["functionCall"].pop("id", None)
                    if not signed:
                        part["thoughtSignature"], signed = SIGNATURES["google-generative-ai"], True
        out.append(WireEvent(data, event.event))
    return out


def wire_bytes(framing: str, events: list[WireEvent]) -> bytes:
    if framing == "ndjson":
        return b"".join(json.dumps(e.data).encode() + b"\n" for e in events)
    return b"".join(((f"event: {e.event}\n" if e.event else "") + f"data: {json.dumps(e.data)}\n\n").encode()
                    for e in events)


# -- what each wire's server would reject ----------------------------------------------


def id_rule(api: str) -> re.Pattern[str]:
    charclass, length = getattr(HOST.providers[api], "tool_call_id_rule", None) or ("[A-Za-z0-9_-]", 64)
    return re.compile(f"{charclass}{{1,{length}}}")


def foreign_signatures(api: str, body: dict[str, Any]) -> list[str]:
    text = json.dumps(body)
    return [other for wire, signature in SIGNATURES.items() if wire != api for other in [signature]
            if signature in text]


def own_thinking(api: str, texts: list[str]) -> list[str]:
    """Thinking the body sends as thinking that ``api`` did not produce."""
    return [text for text in texts if not text.startswith(f"{api} thinks")]


def check_anthropic(body: dict[str, Any]) -> list[str]:
    problems = []
    messages = body["messages"]
    roles = [m["role"] for m in messages]
    if any(a == b for a, b in itertools.pairwise(roles)) or roles[0] != "user":
        problems.append(f"roles do not alternate from user: {roles}")
    thinking = []
    for n, message in enumerate(messages):
        blocks = message["content"] if isinstance(message["content"], list) else []
        thinking += [b["thinking"] for b in blocks if b.get("type") == "thinking"]
        if any(b.get("type") == "thinking" and b.get("signature") != SIGNATURES["anthropic-messages"] for b in blocks):
            problems.append(f"messages[{n}]: a thinking block without this model's signature")
        if any(b.get("type") == "redacted_thinking" for b in blocks):
            problems.append(f"messages[{n}]: redacted thinking sent")
        results = [b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"]
        if results:
            kinds = [b["type"] for b in blocks]
            if kinds[: len(results)] != ["tool_result"] * len(results):
                problems.append(f"messages[{n}]: tool_result blocks must come first")
            previous = messages[n - 1]["content"] if n else []
            calls = [b["id"] for b in previous if isinstance(b, dict) and b.get("type") == "tool_use"]
            if results != calls:
                problems.append(f"messages[{n}]: results {results} do not answer the calls before {calls}")
        calls = [b["id"] for b in blocks if b.get("type") == "tool_use"]
        if calls:
            following = messages[n + 1]["content"] if n + 1 < len(messages) else []
            answered = [b["tool_use_id"] for b in following if isinstance(b, dict) and b.get("type") == "tool_result"]
            if answered != calls:
                problems.append(f"messages[{n}]: calls {calls} answered by {answered}")
            problems += [f"id {c!r} breaks the rule" for c in calls if not id_rule("anthropic-messages").fullmatch(c)]
    problems += [f"foreign thinking {t!r}" for t in own_thinking("anthropic-messages", thinking)]
    from anthropic.types import message_create_params

    return problems + shape(body, message_create_params.MessageCreateParamsStreaming, "body")


def check_chat(body: dict[str, Any]) -> list[str]:
    problems = []
    messages = body["messages"]
    rule = id_rule("openai-completions")
    for n, message in enumerate(messages):
        if message["role"] == "tool":
            before = next(m for m in reversed(messages[:n]) if m["role"] != "tool")
            if message["tool_call_id"] not in [c["id"] for c in before.get("tool_calls") or []]:
                problems.append(f"messages[{n}]: tool_call_id {message['tool_call_id']!r} names no call before it")
        calls = [c["id"] for c in message.get("tool_calls") or []]
        if calls:
            answers = []
            for following in messages[n + 1 :]:
                if following["role"] != "tool":
                    break
                answers.append(following["tool_call_id"])
            if sorted(answers) != sorted(calls):
                problems.append(f"messages[{n}]: calls {calls} answered by {answers}")
            problems += [f"id {c!r} breaks the rule" for c in calls if not rule.fullmatch(c)]
        if "reasoning_content" in message or "thinking" in message:
            problems.append(f"messages[{n}]: reasoning sent to a model that made none")
    from openai.types.chat import completion_create_params

    return problems + shape(body, completion_create_params.CompletionCreateParamsStreaming, "body")


def check_responses(body: dict[str, Any]) -> list[str]:
    problems = []
    items = body["input"]
    calls = [i["call_id"] for i in items if i.get("type") == "function_call"]
    outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
    if sorted(calls) != sorted(outputs) or len(set(calls)) != len(calls):
        problems.append(f"calls {calls} answered by {outputs}")
    for n, item in enumerate(items):
        if item.get("type") == "function_call_output" and item["call_id"] not in [
            i["call_id"] for i in items[:n] if i.get("type") == "function_call"
        ]:
            problems.append(f"input[{n}]: output for a call not made before it")
        if item.get("type") == "reasoning":
            summary = [s["text"] for s in item.get("summary", [])]
            problems += [f"foreign reasoning {t!r}" for t in own_thinking("openai-responses", summary)]
    problems += [f"id {c!r} breaks the rule" for c in calls if not id_rule("openai-responses").fullmatch(c)]
    from openai.types.responses import response_create_params

    return problems + shape(body, response_create_params.ResponseCreateParamsStreaming, "body")


def check_gemini(body: dict[str, Any]) -> list[str]:
    problems = []
    contents = body["contents"]
    thoughts = []
    for n, content in enumerate(contents):
        parts = content["parts"]
        thoughts += [p["text"] for p in parts if p.get("thought")]
        calls = [p["functionCall"] for p in parts if "functionCall" in p]
        if calls:
            following = contents[n + 1]["parts"] if n + 1 < len(contents) else []
            responses = [p["functionResponse"] for p in following if "functionResponse" in p]
            if [r["name"] for r in responses] != [c["name"] for c in calls]:
                problems.append(f"contents[{n}]: {len(calls)} functionCall parts, {len(responses)} functionResponse")
            if contents[n + 1]["role"] != "user" or len(responses) != len(following):
                problems.append(f"contents[{n + 1}]: the answer must be one user content of functionResponse parts")
            if [r.get("id") for r in responses] != [c.get("id") for c in calls]:
                problems.append(f"contents[{n}]: response ids do not match call ids")
            problems += [f"id {c['id']!r} breaks the rule" for c in calls
                         if "id" in c and not id_rule("google-generative-ai").fullmatch(c["id"])]
        if any(p.get("thoughtSignature") not in (None, SIGNATURES["google-generative-ai"]) for p in parts):
            problems.append(f"contents[{n}]: a thoughtSignature this model did not make")
    problems += [f"foreign thinking {t!r}" for t in own_thinking("google-generative-ai", thoughts)]
    from google.genai import types as genai

    for n, content in enumerate(contents):
        problems += sdk_model(genai.Content, content, f"contents[{n}]")
    problems += [p for n, tool in enumerate(body.get("tools", [])) for p in sdk_model(genai.Tool, tool, f"tools[{n}]")]
    if "systemInstruction" in body:
        problems += sdk_model(genai.Content, body["systemInstruction"], "systemInstruction")
    if "generationConfig" in body:
        problems += sdk_model(genai.GenerationConfig, body["generationConfig"], "generationConfig")
    return problems


def check_ollama(body: dict[str, Any]) -> list[str]:
    problems = []
    messages = body["messages"]
    thinking = [m["thinking"] for m in messages if m.get("thinking")]
    for n, message in enumerate(messages):
        calls = message.get("tool_calls") or []
        if calls:
            answers = [m for m in messages[n + 1 : n + 1 + len(calls)] if m["role"] == "tool"]
            if len(answers) != len(calls):
                problems.append(f"messages[{n}]: {len(calls)} calls, {len(answers)} tool messages after them")
    return problems + [f"foreign thinking {t!r}" for t in own_thinking("ollama-chat", thinking)]


CHECKS = {"anthropic-messages": check_anthropic, "openai-completions": check_chat,
          "openai-responses": check_responses, "google-generative-ai": check_gemini, "ollama-chat": check_ollama}


def sdk_model(model: Any, value: Any, path: str) -> list[str]:
    """``value`` read by a ``google-genai`` model (unknown fields forbidden, base64 bytes decoded)."""
    try:
        model.model_validate_json(json.dumps(value))
    except Exception as exc:  # pydantic.ValidationError
        return [f"{path}: {exc}"]
    return []


def shape(value: Any, annotation: Any, path: str) -> list[str]:
    """Where ``value`` departs from a TypedDict request type of a vendor SDK (unknown keys included)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation in (Any, object):
        return []
    if origin in (typing.Annotated, typing_extensions.Annotated):
        return shape(value, args[0], path)
    if origin in (typing.Union, types.UnionType):
        attempts = [shape(value, member, path) for member in args]
        return [] if any(not a for a in attempts) else [f"{path}: fits no member ({min(attempts, key=len)[0]})"]
    if origin in (typing.Literal, typing_extensions.Literal):
        return [] if value in args else [f"{path}: {value!r} not in {args}"]
    if annotation is type(None):
        return [] if value is None else [f"{path}: expected null"]
    if typing_extensions.is_typeddict(annotation):
        if not isinstance(value, dict):
            return [f"{path}: expected an object"]
        hints = typing.get_type_hints(annotation, include_extras=True)
        problems = [f"{path}.{key}: not a field of {annotation.__name__}" for key in value if key not in hints]
        required = getattr(annotation, "__required_keys__", frozenset())
        for key, hint in hints.items():
            if typing.get_origin(hint) in (typing.Required, typing.NotRequired,
                                            typing_extensions.Required, typing_extensions.NotRequired):
                hint = typing.get_args(hint)[0]
            if key in value:
                problems += shape(value[key], hint, f"{path}.{key}")
            elif key in required:
                problems.append(f"{path}.{key}: required field missing")
        return problems
    if origin in (collections.abc.Iterable, collections.abc.Sequence, list, typing.List):  # noqa: UP006
        if not isinstance(value, list):
            return [f"{path}: expected an array"]
        return [p for i, item in enumerate(value) for p in shape(item, args[0] if args else Any, f"{path}[{i}]")]
    if origin in (dict, collections.abc.Mapping) or annotation is dict:
        return [] if isinstance(value, dict) else [f"{path}: expected an object"]
    if annotation is float:
        return [] if isinstance(value, int | float) and not isinstance(value, bool) else [f"{path}: expected a number"]
    if isinstance(annotation, type):
        ok = isinstance(value, annotation) and not (annotation is int and isinstance(value, bool))
        return [] if ok else [f"{path}: expected {annotation.__name__}"]
    return []  # a type these request types do not use for anything sent here


# -- the session -----------------------------------------------------------------------


class Server:
    """Answers each wire the way it answers: the leg's tool-call turn, then its final text."""

    def __init__(self) -> None:
        self.queue: list[tuple[str, list[WireEvent], str]] = []
        self.seen: list[tuple[str, dict[str, Any]]] = []

    def expect(self, api: str, leg: int) -> None:
        provider = HOST.providers[api]
        framing = provider.encode(fixtures.request_for(fixtures.TRANSCRIPTS[0], HOST.models[MODELS[api]])).framing
        responder = fixtures.responder_for(provider)
        first = responder.stream(first_answer(api, leg))
        if api == "google-generative-ai":
            first = gemini_like(first)
        self.queue += [(api, first, framing), (api, responder.stream(final_answer(leg)), framing)]

    def __call__(self, request: httpx.Request) -> httpx.Response:
        api, events, framing = self.queue.pop(0)
        self.seen.append((api, json.loads(request.content)))
        kind = "application/x-ndjson" if framing == "ndjson" else "text/event-stream"
        return httpx.Response(200, headers={"content-type": kind}, content=wire_bytes(framing, events))


def run_session(tmp_path: Any, monkeypatch: Any) -> tuple[Server, list[Any]]:
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    server = Server()
    history: list[Any] = []
    for leg, api in enumerate(SESSION):
        server.expect(api, leg)
        agent = Agent(AgentConfig(model=MODELS[api], root=tmp_path, tools=["read_file"],
                                  trust=Trust(before_tool_call=allow_all),
                                  connection=Connection(transport=httpx.MockTransport(server))), host=HOST)
        agent.history = history  # the session moves to this model
        result = agent.run_sync(f"leg {leg}: read a.txt and b.txt")
        assert result.outcome == "completed", (api, result.error)
        assert [m.role for m in result.messages] == ["user", "assistant", "tool_result", "tool_result", "assistant"]
        assert all(not m.is_error for m in result.messages if m.role == "tool_result"), result.messages
        history = agent.history
    assert server.queue == []
    return server, history


def test_a_session_moves_across_five_wires_and_every_request_is_valid(tmp_path: Any, monkeypatch: Any) -> None:
    server, history = run_session(tmp_path, monkeypatch)
    assert len(server.seen) == 2 * len(SESSION)
    problems = []
    for n, (api, body) in enumerate(server.seen):
        problems += [f"request {n} ({api}): {p}" for p in CHECKS[api](body)]
        problems += [f"request {n} ({api}): carries the signature {s!r} of another wire"
                     for s in foreign_signatures(api, body)]
    assert problems == []
    # The history itself is what happened: every leg's calls and thinking, unrepaired.
    assert sum(len(m.tool_calls) for m in history if m.role == "assistant") == 2 * len(SESSION)


def test_the_last_request_replays_every_leg(tmp_path: Any, monkeypatch: Any) -> None:
    """Back on Anthropic, the whole session is sent: 16 calls, each answered, own thinking signed."""
    server, _ = run_session(tmp_path, monkeypatch)
    api, body = server.seen[-1]
    assert api == "anthropic-messages"
    blocks = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    calls = [b["id"] for b in blocks if b["type"] == "tool_use"]
    assert len(calls) == 2 * len(SESSION) and len(set(calls)) == len(calls)
    assert [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"] == calls
    # Anthropic's own ids come back as they were minted; the others' are in its alphabet.
    assert {i.format(leg=0) for i in IDS["anthropic-messages"]} <= set(calls)
    signed = [b["thinking"] for b in blocks if b["type"] == "thinking"]
    assert signed and all(text.startswith("anthropic-messages thinks") for text in signed)
    texts = " ".join(b.get("text", "") for b in blocks)
    assert "google-generative-ai thinks" in texts and "ollama-chat thinks" in texts  # foreign thinking as text


@pytest.mark.parametrize("api", sorted(CHECKS))
def test_each_check_rejects_a_request_its_server_would(api: str) -> None:
    """The checks themselves can fail: a call left unanswered is caught on every wire."""
    transcript = next(t for t in fixtures.TRANSCRIPTS if t.name == "three_parallel_tool_calls")
    request = fixtures.request_for(transcript, HOST.models[MODELS[api]])
    unanswered = dataclasses.replace(request, messages=[
        m for m in request.messages if m.role != "tool_result" or m.tool_use_id != "call_conformance_2"])
    body = json.loads(HOST.providers[api].encode(unanswered).body)
    assert CHECKS[api](body) != []
    whole = json.loads(HOST.providers[api].encode(request).body)
    assert CHECKS[api](whole) == []
