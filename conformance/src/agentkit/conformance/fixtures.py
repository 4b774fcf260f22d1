"""The shared provider fixtures: the same logical turns for every wire.

Every provider plugin is checked against these, so two wires that pass agree
on what a text answer, parallel tool calls, thinking, cached-token usage, an
error and an abort mean in canonical terms.

* :data:`TRANSCRIPTS` are canonical requests (:func:`request_for` builds the
  :class:`~agentkit.plugin_api.ProviderRequest` for a model). A provider must
  encode each, streaming and not, to a :class:`~agentkit.plugin_api.WireRequest`
  whose body is JSON, deterministically.
* :data:`RESPONSES` are canonical assistant messages. A :class:`Responder`
  renders one as the wire events of *its* wire (the stream, and the whole
  response when the wire has one); the provider's decoder must turn them back
  into the same message (see :func:`canonical`), and both forms must carry
  every tool call's argument text byte for byte.

A wire can only be decoded-checked with a responder: something that knows the
wire's response format, written from the vendor's documentation, not from the
decoder under test. Each provider brings its own as its
:attr:`~agentkit.plugin_api.Provider.conformance_responder` (every built-in
wire does; this package knows no vendor's format), or a wire's responder is
registered with :func:`register_responder`. Without one, only the encode,
error and abort checks run, and the report says so.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agentkit.plugin_api import (
    AssistantMessage,
    ConformanceResponder,
    Message,
    ModelInfo,
    ProviderRequest,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolSpec,
    ToolUseBlock,
    Usage,
    UserMessage,
    provider_member,
)

#: What a wire carries beyond text, tool calls and token counts; a responder lists
#: those its wire has in ``features``. A fixture that needs one is skipped for a wire
#: without it, and a field the wire does not carry is not compared.
#:
#: ``thinking`` / ``signature``: reasoning blocks, and their signatures;
#: ``cache_write``: cached input tokens written; ``reasoning``: the reasoning part of
#: the output tokens.
OPTIONAL = frozenset({"thinking", "signature", "cache_write", "reasoning"})
#: What every wire is taken to carry unless its responder says it ``lacks`` it:
#:
#: ``cache_read``: cached input tokens read;
#: ``tool_ids``: tool-call ids (a wire without them gets ids made up by the decoder,
#: which need only be present and distinct);
#: ``argument_text``: tool-call arguments as text (a wire that carries JSON objects is
#: compared on the parsed arguments, not on bytes).
BASELINE = frozenset({"cache_read", "tool_ids", "argument_text"})
FEATURES = OPTIONAL | BASELINE


_ARGS_A = json.dumps({"path": "café/notes.txt", "limit": 20}, ensure_ascii=False)
_ARGS_B = json.dumps({"pattern": "TODO", "paths": ["src", "tests"], "regex": False}, ensure_ascii=False)


def _assistant(content: list[Any], stop: StopReason, usage: Usage | None = None, **extra: Any) -> AssistantMessage:
    return AssistantMessage(content, stop, usage=usage or Usage(input=12, output=7), timestamp=0.0, **extra)


@dataclass(frozen=True)
class ResponseFixture:
    """One canonical response a decoder must reproduce.

    :param needs: :data:`FEATURES` the wire must have for this fixture to apply.
    """

    name: str
    message: AssistantMessage
    needs: frozenset[str] = frozenset()


RESPONSES: tuple[ResponseFixture, ...] = (
    ResponseFixture("text", _assistant([TextBlock("The answer is 42; nothing else to do. ✓")], StopReason.STOP)),
    ResponseFixture(
        "parallel_tool_calls",
        _assistant(
            [
                TextBlock("Reading both."),
                ToolUseBlock("call_conformance_1", "read_file", _ARGS_A),
                ToolUseBlock("call_conformance_2", "search_files", _ARGS_B),
            ],
            StopReason.TOOL_USE,
        ),
    ),
    ResponseFixture(
        "thinking",
        _assistant(
            [ThinkingBlock("First, check the file; then answer.", "c2lnbmF0dXJl"), TextBlock("Done.")],
            StopReason.STOP,
        ),
        frozenset({"thinking"}),
    ),
    ResponseFixture(
        "usage_with_cached_tokens",
        _assistant([TextBlock("Cached.")], StopReason.STOP,
                   Usage(input=120, output=30, reasoning=0, cache_read=2048, cache_write=512)),
        frozenset({"cache_read"}),
    ),
)

_TOOLS = (
    ToolSpec("read_file", "Read a file.", {
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["path"],
    }),
    ToolSpec("search_files", "Search files.", {
        "type": "object",
        "properties": {"pattern": {"type": "string"}, "paths": {"type": "array", "items": {"type": "string"}},
                       "regex": {"type": "boolean"}},
        "required": ["pattern"],
    }),
)


@dataclass(frozen=True)
class Transcript:
    """A canonical conversation to encode: system prompt, tools, messages."""

    name: str
    messages: tuple[Message, ...]
    system: str | None = "You are a careful assistant."
    tools: tuple[ToolSpec, ...] = _TOOLS
    options: dict[str, Any] = field(default_factory=dict)


def _user(text: str) -> UserMessage:
    return UserMessage([TextBlock(text)], timestamp=0.0)


_CALLS = RESPONSES[1].message
_THREE_CALLS = _assistant(
    [*_CALLS.content, ToolUseBlock("call_conformance_3", "read_file", json.dumps({"path": "b.txt"}))],
    StopReason.TOOL_USE,
)
TRANSCRIPTS: tuple[Transcript, ...] = (
    Transcript("text", (_user("What is the answer?"),)),
    Transcript("parallel_tool_calls", (
        _user("Read the notes and find the TODOs."),
        _CALLS,
        ToolResultMessage("call_conformance_1", "read_file", [TextBlock('{"ok": true, "data": "notes"}')], timestamp=0.0),
        ToolResultMessage("call_conformance_2", "search_files", [TextBlock('{"ok": false, "error": "no_match"}')],
                          is_error=True, timestamp=0.0),
        _user("Thanks."),
    )),
    Transcript("thinking", (_user("Think first."), RESPONSES[2].message, _user("And now?"))),
    Transcript("error", (
        _user("Try."),
        _assistant([TextBlock("Partial")], StopReason.ERROR, error_message="overloaded"),
        _user("Try again."),
    )),
    Transcript("abort", (
        _user("Start."),
        _assistant([TextBlock("Half an ans")], StopReason.ABORTED, error_message="Request was aborted"),
        _user("Go on."),
    )),
    Transcript("usage_with_cached_tokens", (_user("Again."), RESPONSES[3].message, _user("Once more."))),
    # Three calls answered in call order: the turn whose results each wire shapes
    # differently (one user message of tool_result blocks, one role:tool message
    # or function_call_output item per call, one content of functionResponse parts).
    Transcript("three_parallel_tool_calls", (
        _user("Read both notes and find the TODOs."),
        _THREE_CALLS,
        ToolResultMessage("call_conformance_1", "read_file", [TextBlock('{"ok": true, "data": "notes"}')], timestamp=0.0),
        ToolResultMessage("call_conformance_2", "search_files", [TextBlock('{"ok": false, "error": "no_match"}')],
                          is_error=True, timestamp=0.0),
        ToolResultMessage("call_conformance_3", "read_file", [TextBlock('{"ok": true, "data": "more"}')], timestamp=0.0),
        _user("Thanks."),
    )),
)


def conformance_model(api: str) -> ModelInfo:
    """A model row for wires whose catalog is empty."""
    return ModelInfo(vendor="conformance", id="model", api=api, base_url="http://conformance.invalid",
                     context_window=200_000, max_output=8_192)


def request_for(transcript: Transcript, model: ModelInfo, *, stream: bool = True) -> ProviderRequest:
    """The canonical request of ``transcript`` for ``model``."""
    return ProviderRequest(model=model, messages=list(transcript.messages), system=transcript.system,
                           tools=list(transcript.tools), max_tokens=1024, stream=stream,
                           options=dict(transcript.options))


#: Renders canonical responses as one wire's events; the protocol lives in the plugin API.
Responder = ConformanceResponder


_RESPONDERS: dict[str, Responder] = {}


def register_responder(responder: Responder) -> None:
    """Make ``responder`` the one used for its wire (``responder.api``)."""
    _RESPONDERS[responder.api] = responder


def responder_for(provider: Any) -> Responder | None:
    """The provider's own ``conformance_responder``, else the one registered for its wire."""
    return provider_member(provider, "conformance_responder") or _RESPONDERS.get(provider.api)


def carried(responder: Responder) -> frozenset[str]:
    """The :data:`FEATURES` ``responder``'s wire carries."""
    return frozenset(responder.features) | (BASELINE - frozenset(getattr(responder, "lacks", ())))


def applies(fixture: ResponseFixture, responder: Responder) -> bool:
    return fixture.needs <= carried(responder)


def canonical(message: AssistantMessage, features: Sequence[str] | frozenset[str] = FEATURES) -> dict[str, Any]:
    """What must survive a round trip through a wire with ``features``."""
    blocks: list[dict[str, Any]] = []
    calls = [block for block in message.content if isinstance(block, ToolUseBlock)]
    for block in message.content:
        if isinstance(block, ThinkingBlock):
            if "thinking" in features:
                item: dict[str, Any] = {"type": "thinking", "thinking": block.thinking}
                if "signature" in features:
                    item["signature"] = block.signature
                blocks.append(item)
        elif isinstance(block, ToolUseBlock):
            item = block.to_dict()
            if "tool_ids" not in features:
                item["id"] = bool(block.id) and [call.id for call in calls].count(block.id) == 1
            if "argument_text" not in features:
                item["arguments"] = json.loads(block.arguments) if block.arguments.strip() else None
            blocks.append(item)
        else:
            blocks.append(block.to_dict())
    usage = {"input": message.usage.input, "output": message.usage.output}
    if "cache_read" in features:
        usage["cache_read"] = message.usage.cache_read
    if "cache_write" in features:
        usage["cache_write"] = message.usage.cache_write
    if "reasoning" in features:
        usage["reasoning"] = message.usage.reasoning
    return {"content": blocks, "stop_reason": message.stop_reason.value, "usage": usage}


__all__ = [
    "BASELINE",
    "FEATURES",
    "OPTIONAL",
    "RESPONSES",
    "TRANSCRIPTS",
    "Responder",
    "ResponseFixture",
    "Transcript",
    "applies",
    "canonical",
    "carried",
    "conformance_model",
    "register_responder",
    "request_for",
    "responder_for",
]
