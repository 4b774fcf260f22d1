"""This wire's responder for the shared conformance fixtures (``agentkit.conformance``).

It plays the scripted server: a canonical assistant message rendered as
the faux wire's SSE events (the format ``_script`` streams).
It never calls this package's decoder. The suite finds it as :attr:`FauxProvider.conformance_responder`.
"""

from __future__ import annotations

from typing import Any

from agentkit.plugin_api import (
    AssistantMessage,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    WireEvent,
)
from agentkit.plugin_api.codec import chunks

#: Characters per delta: small, so every block arrives in several.
CHUNK = 7


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
            elif isinstance(block, TextBlock):
                events.append({"type": "block_start", "kind": "text"})
                text = block.text
            else:  # an assistant message holds no other blocks
                continue
            events += [{"type": "delta", "text": piece} for piece in chunks(text, CHUNK)]
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
