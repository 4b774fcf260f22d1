"""Response renderers for the wires agentkit ships, written from each vendor's documented format.

They play the server: given a canonical assistant message, the wire events a
real response carrying it would decode to. They never call the decoders they
help check.
"""

from __future__ import annotations

import json
from typing import Any

from agentkit.plugin_api import (
    AssistantMessage,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    WireEvent,
)

CHUNK = 7  # small pieces, so every block arrives in several deltas


def _pieces(text: str) -> list[str]:
    return [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)] or [""]


class FauxResponder:
    """The scripted provider's own SSE events (``agentkit_provider_faux``'s format)."""

    api = "faux"
    features = frozenset({"thinking", "signature", "cache_write", "reasoning"})

    def stream(self, message: AssistantMessage) -> list[WireEvent]:
        events: list[dict[str, Any]] = [{"type": "message_start", "id": "faux-conformance", "model": "scripted"}]
        for block in message.content:
            if isinstance(block, ToolUseBlock):
                events.append({"type": "block_start", "kind": "tool_use", "id": block.id, "name": block.name})
                text = block.arguments
            elif isinstance(block, ThinkingBlock):
                events.append({"type": "block_start", "kind": "thinking"})
                text = block.thinking
            else:
                events.append({"type": "block_start", "kind": "text"})
                text = block.text  # type: ignore[union-attr]  # the fixtures give the model no image
            events += [{"type": "delta", "text": piece} for piece in _pieces(text) if piece]
            end: dict[str, Any] = {"type": "block_end"}
            if isinstance(block, ThinkingBlock):
                end.update(signature=block.signature, redacted=block.redacted)
            events.append(end)
        events.append({"type": "message_end", "stop_reason": message.stop_reason.value,
                       "raw_stop_reason": message.stop_reason.value, "usage": message.usage.to_dict()})
        return [WireEvent(event, event["type"]) for event in events]

    def whole(self, message: AssistantMessage) -> list[WireEvent] | None:
        return None  # the scripted provider only streams

    def error(self, text: str) -> list[WireEvent]:
        return [WireEvent({"type": "error", "message": text}, "error")]


_ANTHROPIC_STOP = {StopReason.STOP: "end_turn", StopReason.TOOL_USE: "tool_use", StopReason.LENGTH: "max_tokens",
                   StopReason.STOP_SEQUENCE: "stop_sequence", StopReason.REFUSAL: "refusal"}


class AnthropicResponder:
    """Anthropic Messages: the SSE stream and the whole ``message`` body."""

    api = "anthropic-messages"
    # Tool input arrives as text when streamed; a whole response carries it as an object,
    # which the decoder must serialize exactly as the stream spells it (compared byte for byte).
    features = frozenset({"thinking", "signature", "cache_write"})

    def _usage(self, message: AssistantMessage) -> dict[str, int]:
        usage = message.usage
        return {"input_tokens": usage.input, "output_tokens": usage.output,
                "cache_read_input_tokens": usage.cache_read, "cache_creation_input_tokens": usage.cache_write}

    def stream(self, message: AssistantMessage) -> list[WireEvent]:
        usage = {**self._usage(message), "output_tokens": 1}
        events: list[dict[str, Any]] = [{"type": "message_start", "message": {
            "id": "msg_conformance", "type": "message", "role": "assistant", "model": "conformance",
            "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}}]
        for index, block in enumerate(message.content):
            if isinstance(block, ToolUseBlock):
                start = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
                deltas = [{"type": "input_json_delta", "partial_json": p} for p in _pieces(block.arguments)]
            elif isinstance(block, ThinkingBlock):
                start = {"type": "thinking", "thinking": "", "signature": ""}
                deltas = [{"type": "thinking_delta", "thinking": p} for p in _pieces(block.thinking)]
                deltas.append({"type": "signature_delta", "signature": block.signature or ""})
            else:
                start = {"type": "text", "text": ""}
                deltas = [{"type": "text_delta", "text": p} for p in _pieces(block.text)]  # type: ignore[union-attr]  # no image, as above
            events.append({"type": "content_block_start", "index": index, "content_block": start})
            events += [{"type": "content_block_delta", "index": index, "delta": delta} for delta in deltas]
            events.append({"type": "content_block_stop", "index": index})
        events.append({"type": "message_delta", "delta": {"stop_reason": _ANTHROPIC_STOP[message.stop_reason],
                                                          "stop_sequence": None},
                       "usage": {"output_tokens": message.usage.output}})
        events.append({"type": "message_stop"})
        return [WireEvent(event, event["type"]) for event in events]

    def whole(self, message: AssistantMessage) -> list[WireEvent] | None:
        content: list[dict[str, Any]] = []
        for block in message.content:
            if isinstance(block, ToolUseBlock):
                content.append({"type": "tool_use", "id": block.id, "name": block.name,
                                "input": json.loads(block.arguments)})
            elif isinstance(block, ThinkingBlock):
                content.append({"type": "thinking", "thinking": block.thinking, "signature": block.signature})
            elif isinstance(block, TextBlock):
                content.append({"type": "text", "text": block.text})
        body = {"id": "msg_conformance", "type": "message", "role": "assistant", "model": "conformance",
                "content": content, "stop_reason": _ANTHROPIC_STOP[message.stop_reason], "stop_sequence": None,
                "usage": self._usage(message)}
        return [WireEvent(body)]

    def error(self, text: str) -> list[WireEvent]:
        return [WireEvent({"type": "error", "error": {"type": "overloaded_error", "message": text}}, "error")]


_OPENAI_FINISH = {StopReason.STOP: "stop", StopReason.TOOL_USE: "tool_calls", StopReason.LENGTH: "length",
                  StopReason.STOP_SEQUENCE: "stop", StopReason.REFUSAL: "content_filter"}


class OpenAICompletionsResponder:
    """OpenAI Chat Completions: ``chat.completion.chunk`` events and the whole ``chat.completion``."""

    api = "openai-completions"
    features = frozenset({"reasoning"})

    def _usage(self, message: AssistantMessage) -> dict[str, Any]:
        usage = message.usage
        return {"prompt_tokens": usage.input + usage.cache_read, "completion_tokens": usage.output,
                "total_tokens": usage.input + usage.cache_read + usage.output,
                "prompt_tokens_details": {"cached_tokens": usage.cache_read},
                "completion_tokens_details": {"reasoning_tokens": usage.reasoning}}

    def _chunk(self, delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> WireEvent:
        choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
        return WireEvent({"id": "chatcmpl-conformance", "object": "chat.completion.chunk", "created": 0,
                          "model": "conformance", "choices": choices, **extra})

    def stream(self, message: AssistantMessage) -> list[WireEvent]:
        events = [self._chunk({"role": "assistant", "content": ""})]
        calls = 0
        for block in message.content:
            if isinstance(block, TextBlock):
                events += [self._chunk({"content": piece}) for piece in _pieces(block.text)]
            elif isinstance(block, ToolUseBlock):
                head = {"index": calls, "id": block.id, "type": "function",
                        "function": {"name": block.name, "arguments": ""}}
                events.append(self._chunk({"tool_calls": [head]}))
                events += [self._chunk({"tool_calls": [{"index": calls, "function": {"arguments": piece}}]})
                           for piece in _pieces(block.arguments)]
                calls += 1
        events.append(self._chunk({}, _OPENAI_FINISH[message.stop_reason]))
        events.append(self._chunk(None, usage=self._usage(message)))
        return events

    def whole(self, message: AssistantMessage) -> list[WireEvent] | None:
        calls = [{"id": block.id, "type": "function", "function": {"name": block.name, "arguments": block.arguments}}
                 for block in message.content if isinstance(block, ToolUseBlock)]
        reply: dict[str, Any] = {"role": "assistant", "content": message.text or None}
        if calls:
            reply["tool_calls"] = calls
        return [WireEvent({"id": "chatcmpl-conformance", "object": "chat.completion", "created": 0,
                           "model": "conformance",
                           "choices": [{"index": 0, "message": reply, "finish_reason": _OPENAI_FINISH[message.stop_reason]}],
                           "usage": self._usage(message)})]

    def error(self, text: str) -> list[WireEvent]:
        return [WireEvent({"error": {"message": text, "type": "server_error", "code": None}})]


BUILTIN = (FauxResponder(), AnthropicResponder(), OpenAICompletionsResponder())
