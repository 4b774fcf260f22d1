"""This wire's responder for the shared conformance fixtures (``agentkit.conformance``).

It plays the server: a canonical assistant message rendered as the SSE
events ``POST /v1/messages`` streams and as the whole ``message`` body,
written from Anthropic's Messages streaming reference.
It never calls this package's decoder. The suite finds it as :attr:`AnthropicMessages.conformance_responder`.
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
from agentkit.plugin_api.codec import chunks

#: Characters per delta: small, so every block arrives in several.
CHUNK = 7


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
                deltas = [{"type": "input_json_delta", "partial_json": p} for p in chunks(block.arguments, CHUNK) or [""]]
            elif isinstance(block, ThinkingBlock):
                start = {"type": "thinking", "thinking": "", "signature": ""}
                deltas = [{"type": "thinking_delta", "thinking": p} for p in chunks(block.thinking, CHUNK) or [""]]
                deltas.append({"type": "signature_delta", "signature": block.signature or ""})
            elif isinstance(block, TextBlock):
                start = {"type": "text", "text": ""}
                deltas = [{"type": "text_delta", "text": p} for p in chunks(block.text, CHUNK) or [""]]
            else:  # an assistant message holds no other blocks
                continue
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
