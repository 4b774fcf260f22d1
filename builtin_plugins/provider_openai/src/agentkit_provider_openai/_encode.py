"""Canonical request -> OpenAI Chat Completions request body.

Wire decisions (documented in ``docs/providers.md``):

* One ``role: tool`` message per canonical tool result, keyed by
  ``tool_call_id``, in transcript order.
* ``is_error`` has no field on this wire: an error result's text is sent as
  ``"Error: " + text`` (:data:`ERROR_PREFIX`), so the model can tell a failed
  call from a successful one.
* A ``role: tool`` message carries text only. Images from tool results are
  sent in one ``user`` message right after the run of tool messages (a user
  message between two tool messages would orphan the later ones).
* Assistant tool calls replay ``ToolUseBlock.arguments`` byte for byte as the
  ``function.arguments`` string: re-encoding would change the text the model
  is conditioned on and shift the provider's prompt-cache prefix.
* Thinking blocks are not sent. Chat Completions has no field for reasoning
  in a request, and DeepSeek answers 400 when ``reasoning_content`` is
  echoed back.

Encoding is cheap per turn and nearly flat with depth: each tool definition
(keyed by the identity of its :class:`ToolSpec`, which the host reuses across
turns) and each message (keyed by its identity; history messages are never
edited in place, the host replaces them) is encoded once and then reused.
The body therefore shares sub-objects between requests: treat it as
read-only, copy before rewriting any part of it.
"""

from __future__ import annotations

import contextlib
import hashlib
import operator
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from agentkit.plugin_api import (
    AssistantMessage,
    ImageBlock,
    Message,
    ProviderRequest,
    TextBlock,
    ToolResultMessage,
    ToolSpec,
    ToolUseBlock,
    UserMessage,
    WireRequest,
)

from ._compat import CompatProfile

#: Prepended to the text of a tool result whose ``is_error`` is set.
ERROR_PREFIX = "Error: "
#: Sent as a tool message's text when the result had only images.
IMAGES_ATTACHED = "(the result is the image(s) in the next user message)"
#: Longest ``prompt_cache_key`` OpenAI accepts.
PROMPT_CACHE_KEY_LIMIT = 64

_V = TypeVar("_V")


class IdentityCache(Generic[_V]):
    """A bounded LRU map from an object's identity to a value derived from it.

    Each entry keeps a strong reference to its object, so the object's id
    cannot be reused by another object while the entry lives.
    """

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._entries: OrderedDict[tuple[int, Any], tuple[Any, _V]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, obj: Any, variant: Any, compute: Callable[..., _V], *args: Any) -> _V:
        """The value for ``(obj, variant)``, computed by ``compute(*args)`` on a miss."""
        key = (id(obj), variant)
        entry = self._entries.get(key)
        if entry is not None and entry[0] is obj:
            with contextlib.suppress(KeyError):  # evicted by another thread meanwhile
                self._entries.move_to_end(key)
            return entry[1]
        value = compute(*args)
        self.put(obj, variant, value)
        return value

    def peek(self, obj: Any, variant: Any) -> _V | None:
        entry = self._entries.get((id(obj), variant))
        return entry[1] if entry is not None and entry[0] is obj else None

    def put(self, obj: Any, variant: Any, value: _V) -> None:
        key = (id(obj), variant)
        with self._lock:
            self._entries[key] = (obj, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._limit:
                self._entries.popitem(last=False)


@dataclass(frozen=True, slots=True)
class _Encoded:
    """A transcript as far as it was encoded: its messages, their wire form, and
    tool-result images not yet flushed into a user message."""

    messages: tuple[Message, ...]
    wire: tuple[dict[str, Any], ...]
    pending_images: tuple[dict[str, Any], ...]


class CompletionsEncoder:
    """Builds request bodies; one per provider object, holding its caches.

    Three caches keep a turn's cost nearly independent of the transcript's
    depth: tool definitions by :class:`ToolSpec` identity, each message's wire
    form by message identity, and per session (keyed by the identity of its
    first message) the last encoded transcript, so a request that extends it
    only encodes what is new.
    """

    def __init__(
        self,
        *,
        tool_cache_size: int = 1024,
        message_cache_size: int = 16384,
        session_cache_size: int = 64,
    ) -> None:
        self.tools: IdentityCache[dict[str, Any]] = IdentityCache(tool_cache_size)
        self.messages: IdentityCache[tuple[dict[str, Any], ...]] = IdentityCache(message_cache_size)
        self.sessions: IdentityCache[_Encoded] = IdentityCache(session_cache_size)

    def encode(self, request: ProviderRequest, profile: CompatProfile) -> WireRequest:
        model = request.model
        body: dict[str, Any] = {"model": model.id, "messages": self._messages(request, profile)}
        if request.tools:
            strict = bool(request.options.get("strict_tools")) and profile.supports_strict_tools
            body["tools"] = [
                self.tools.get(spec, strict, _tool, spec, strict) for spec in request.tools
            ]
        if request.tool_choice is not None and request.tools:
            # OpenAI answers 400 to a tool_choice without tools ("only allowed
            # when 'tools' are specified"); with no tools none is the only outcome.
            body["tool_choice"] = _tool_choice(request.tool_choice)
        if request.max_tokens is not None:
            body[profile.max_tokens_field] = request.max_tokens
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.reasoning is not None:
            if profile.reasoning_effort_style == "reasoning_effort":
                body["reasoning_effort"] = request.reasoning
            elif profile.reasoning_effort_style == "openrouter":
                body["reasoning"] = {"effort": request.reasoning}
        if request.session_id and profile.supports_prompt_cache_key:
            body["prompt_cache_key"] = request.session_id[:PROMPT_CACHE_KEY_LIMIT]
        body["stream"] = request.stream
        if request.stream and profile.supports_stream_usage:
            body["stream_options"] = {"include_usage": True}
        extra = request.options.get("extra_body")
        if extra:
            body.update(extra)
        return WireRequest(
            path="/chat/completions",
            body=body,
            framing="sse" if request.stream else "json",
        )

    def _messages(self, request: ProviderRequest, profile: CompatProfile) -> list[dict[str, Any]]:
        messages = tuple(request.messages)
        id_limit = profile.max_tool_call_id_length
        encoded = self._transcript(messages, id_limit)
        out: list[dict[str, Any]] = []
        if request.system:
            developer = profile.supports_developer_role and bool(request.model.reasoning_levels)
            out.append({"role": "developer" if developer else "system", "content": request.system})
        out.extend(encoded.wire)
        if encoded.pending_images:
            out.append({"role": "user", "content": list(encoded.pending_images)})
        return out

    def _transcript(self, messages: tuple[Message, ...], id_limit: int | None) -> _Encoded:
        if not messages:
            return _Encoded((), (), ())
        previous = self.sessions.peek(messages[0], id_limit)
        if (
            previous is not None
            and len(previous.messages) <= len(messages)
            and all(map(operator.is_, previous.messages, messages))
        ):
            done = len(previous.messages)
            wire = list(previous.wire)
            pending = list(previous.pending_images)
        else:
            done, wire, pending = 0, [], []
        for message in messages[done:]:
            if pending and not isinstance(message, ToolResultMessage):
                wire.append({"role": "user", "content": pending})
                pending = []
            parts = self.messages.get(message, id_limit, _message, message, id_limit)
            if isinstance(message, ToolResultMessage):
                wire.append(parts[0])
                pending.extend(parts[1:])
            else:
                wire.extend(parts)
        encoded = _Encoded(messages, tuple(wire), tuple(pending))
        self.sessions.put(messages[0], id_limit, encoded)
        return encoded


def _message(message: Message, id_limit: int | None) -> tuple[dict[str, Any], ...]:
    """The wire form of one message: zero or one wire message, plus image parts
    for a tool result (they travel in a later user message)."""
    if isinstance(message, UserMessage):
        return (_user(message),)
    if isinstance(message, AssistantMessage):
        wire = _assistant(message, id_limit)
        return () if wire is None else (wire,)
    if isinstance(message, ToolResultMessage):
        return _tool_result(message, id_limit)
    raise TypeError(f"openai-completions cannot encode a {type(message).__name__}")


def _user(message: UserMessage) -> dict[str, Any]:
    content = message.content
    if len(content) == 1 and isinstance(content[0], TextBlock):
        # A plain string is what every compatible server accepts.
        return {"role": "user", "content": content[0].text}
    return {"role": "user", "content": [_part(block) for block in content]}


def _part(block: TextBlock | ImageBlock) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    return {
        "type": "image_url",
        "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"},
    }


def _assistant(message: AssistantMessage, id_limit: int | None) -> dict[str, Any] | None:
    text = "".join(block.text for block in message.content if isinstance(block, TextBlock))
    calls = [block for block in message.content if isinstance(block, ToolUseBlock)]
    if not text and not calls:
        # Only thinking (not sent) or nothing at all: no wire message.
        return None
    wire: dict[str, Any] = {"role": "assistant"}
    if text:
        # Without text the key is left out, which the spec allows next to tool
        # calls; some compatible servers fail on an explicit null.
        wire["content"] = text
    if calls:
        wire["tool_calls"] = [
            {
                "id": wire_tool_call_id(call.id, id_limit),
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in calls
        ]
    return wire


def _tool_result(message: ToolResultMessage, id_limit: int | None) -> tuple[dict[str, Any], ...]:
    text = "".join(block.text for block in message.content if isinstance(block, TextBlock))
    images = [_part(block) for block in message.content if isinstance(block, ImageBlock)]
    if images and not text:
        text = IMAGES_ATTACHED
    if message.is_error:
        text = ERROR_PREFIX + text
    wire_id = wire_tool_call_id(message.tool_use_id, id_limit)
    tool = {"role": "tool", "tool_call_id": wire_id, "content": text}
    if not images:
        return (tool,)
    label = {"type": "text", "text": f"Image(s) from tool call {wire_id} ({message.tool_name}):"}
    return (tool, label, *images)


def wire_tool_call_id(call_id: str, limit: int | None) -> str:
    """``call_id``, or a stable digest of it when the wire's length limit forbids it.

    The same canonical id always maps to the same wire id, so a call and its
    result still pair and the replayed prefix does not change between turns.
    """
    if limit is None or len(call_id) <= limit:
        return call_id
    digest = hashlib.sha256(call_id.encode("utf-8")).hexdigest()
    return ("call_" + digest)[:limit]


def _tool(spec: ToolSpec, strict: bool) -> dict[str, Any]:
    function: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description,
        "parameters": dict(spec.input_schema),
    }
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def _tool_choice(choice: str) -> str | dict[str, Any]:
    if choice in ("auto", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}
