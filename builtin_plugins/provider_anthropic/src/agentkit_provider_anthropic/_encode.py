"""Canonical request -> Anthropic Messages request body.

What the wire asks for that the canonical transcript does not say:

* Tool results: the canonical transcript holds one message per call; this
  wire wants every result of a batch in ONE user message, ``tool_result``
  blocks first, then any other user content that follows them.
* Tool-call arguments: the wire carries ``tool_use.input`` as a JSON object,
  not as text, so the exact argument text cannot travel byte for byte. It is
  parsed with key order preserved, and the host re-serializes it in that
  order. Text that is empty, not JSON, or not an object (a call cut off by
  the token limit) is sent as ``{}``: the wire has no way to carry it.
* Empty text blocks are rejected by the API, so they are dropped; a message
  left with no content is dropped too (the API joins consecutive turns of
  one role, so nothing is lost).
* Thinking: signed thinking is replayed with its signature, redacted thinking
  as ``redacted_thinking`` with its opaque data. Unsigned thinking (which the
  host's repair pass normally turns into text first) is sent as text, since
  the API rejects thinking without a signature.
* Prompt caching: ``cache_control`` breakpoints on the system block, the last
  tool, and the last block of the last user message (rolling: recomputed on
  every request). Three, within the wire's limit of four.

Encoding is kept cheap per turn: tool definitions are built once per
:class:`ToolSpec` object and wire blocks once per canonical message object
(the host reuses both across turns), so a turn's cost barely grows with the
transcript. The cached parts are shared between bodies: a body is read-only.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agentkit.plugin_api import (
    AssistantMessage,
    ImageBlock,
    Message,
    ProviderRequest,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolSpec,
    ToolUseBlock,
    UserMessage,
    WireRequest,
)

PATH = "/v1/messages"
API_VERSION = "2023-06-01"

#: ``budget_tokens`` per reasoning level, for catalog rows with budget thinking.
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768}
_MIN_BUDGET = 1024

_CACHE_CONTROL = {
    "none": None,
    "short": {"type": "ephemeral"},
    "long": {"type": "ephemeral", "ttl": "1h"},
}

Wire = dict[str, Any]


class _IdentityCache:
    """A bounded LRU map from an object (by identity) to what was built from it.

    Each entry holds the object itself, so its id cannot be reused while the
    entry lives, and a ``stamp`` (a cheap fingerprint such as a block count)
    that must match for a hit.
    """

    def __init__(self, max_entries: int) -> None:
        self._entries: OrderedDict[int, tuple[object, object, Any]] = OrderedDict()
        self._max = max_entries
        self._lock = threading.Lock()

    def get(self, obj: object, stamp: object, build: Callable[[], Any]) -> Any:
        key = id(obj)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0] is obj and entry[1] == stamp:
                self._entries.move_to_end(key)
                return entry[2]
        value = build()
        with self._lock:
            self._entries[key] = (obj, stamp, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)
        return value


class Encoder:
    """Builds request bodies; one per provider object, shared across requests."""

    def __init__(self, *, max_tools: int = 1024, max_messages: int = 8192) -> None:
        self._tools = _IdentityCache(max_tools)
        self._messages = _IdentityCache(max_messages)

    def encode(self, request: ProviderRequest) -> WireRequest:
        options = request.options
        retention = options.get("cache_retention", "short")
        if retention not in _CACHE_CONTROL:
            raise ValueError(
                f"anthropic option cache_retention={retention!r} is not one of "
                f"{sorted(_CACHE_CONTROL)}; pick one of those"
            )
        cache_control = _CACHE_CONTROL[retention]
        model = request.model
        body: Wire = {
            "model": model.id,
            "max_tokens": request.max_tokens
            if request.max_tokens is not None
            else model.max_output,
            "messages": self._messages_of(request.messages, cache_control),
        }
        if request.system:
            system: Wire = {"type": "text", "text": request.system}
            if cache_control:
                system["cache_control"] = cache_control
            body["system"] = [system]
        if request.tools:
            tools = [self._tools.get(spec, None, lambda s=spec: _tool(s)) for spec in request.tools]
            if cache_control:
                tools[-1] = {**tools[-1], "cache_control": cache_control}
            body["tools"] = tools
        if request.tool_choice is not None:
            body["tool_choice"] = _tool_choice(request.tool_choice)
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if "stop_sequences" in options:
            body["stop_sequences"] = list(options["stop_sequences"])
        _reasoning(body, request)
        body["stream"] = request.stream
        return WireRequest(
            path=PATH,
            body=body,
            headers={"anthropic-version": API_VERSION},
            framing="sse" if request.stream else "json",
        )

    def _messages_of(self, messages: Sequence[Message], cache_control: Wire | None) -> list[Wire]:
        wire: list[Wire] = []
        # The user message being built: tool results first, then other content.
        results: list[Wire] = []
        extra: list[Wire] = []

        def flush() -> None:
            if results or extra:
                wire.append({"role": "user", "content": results + extra})
            results.clear()
            extra.clear()

        for message in messages:
            blocks = self._messages.get(message, len(message.content), lambda m=message: _blocks(m))
            if isinstance(message, AssistantMessage):
                flush()
                if blocks:
                    wire.append({"role": "assistant", "content": blocks})
            elif isinstance(message, ToolResultMessage):
                if extra:  # results after user content start a new user turn
                    flush()
                results.extend(blocks)
            else:
                extra.extend(blocks)
        flush()
        if cache_control:
            for entry in reversed(wire):
                if entry["role"] == "user":
                    content = entry["content"]
                    content[-1] = {**content[-1], "cache_control": cache_control}
                    break
        return wire


def _blocks(message: Message) -> list[Wire]:
    """The wire blocks of one canonical message (a tool result is one block)."""
    if isinstance(message, ToolResultMessage):
        block: Wire = {"type": "tool_result", "tool_use_id": message.tool_use_id}
        content = [_content(part) for part in message.content if _keep(part)]
        if content:
            block["content"] = content
        if message.is_error:
            block["is_error"] = True
        return [block]
    if isinstance(message, UserMessage):
        return [_content(part) for part in message.content if _keep(part)]
    out: list[Wire] = []
    for part in message.content:
        if isinstance(part, ToolUseBlock):
            out.append(
                {
                    "type": "tool_use",
                    "id": part.id,
                    "name": part.name,
                    "input": _arguments(part.arguments),
                }
            )
        elif isinstance(part, ThinkingBlock):
            if part.redacted:
                out.append({"type": "redacted_thinking", "data": part.signature or ""})
            elif part.signature:
                out.append(
                    {"type": "thinking", "thinking": part.thinking, "signature": part.signature}
                )
            elif part.thinking:
                out.append({"type": "text", "text": part.thinking})
        elif _keep(part):
            out.append(_content(part))
    return out


def _keep(part: object) -> bool:
    return not (isinstance(part, TextBlock) and not part.text)


def _content(part: TextBlock | ImageBlock | object) -> Wire:
    if isinstance(part, TextBlock):
        return {"type": "text", "text": part.text}
    if isinstance(part, ImageBlock):
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": part.mime_type, "data": part.data},
        }
    raise TypeError(f"{type(part).__name__} cannot appear in a user message or a tool result")


def _arguments(text: str) -> Any:
    if not text.strip():
        return {}
    try:
        value = json.loads(text)  # dicts keep the key order of the text
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _tool(spec: ToolSpec) -> Wire:
    return {
        "name": spec.name,
        "description": spec.description,
        "input_schema": _plain(spec.input_schema),
    }


def _plain(value: Any) -> Any:
    """A JSON value built from plain dicts and lists (a schema may hold other mappings)."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _tool_choice(choice: str) -> Wire:
    if choice in ("auto", "none"):
        return {"type": choice}
    return {"type": "tool", "name": choice}


def _reasoning(body: Wire, request: ProviderRequest) -> None:
    level = request.reasoning
    if level is None or level == "off":
        return
    if request.model.options.get("thinking") == "budget":
        budget = THINKING_BUDGETS.get(level, THINKING_BUDGETS["medium"])
        # The budget must stay below max_tokens; the API rejects it otherwise.
        budget = max(_MIN_BUDGET, min(budget, body["max_tokens"] - 1))
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    else:
        body["thinking"] = {"type": "adaptive"}
        body["output_config"] = {"effort": level}
