"""This wire's responder for the shared conformance fixtures (``agentkit.conformance``).

It plays the server: a canonical assistant message rendered as the NDJSON
lines ``POST /api/chat`` streams, and as the one object of a ``stream: false``
response, written from Ollama's API documentation (``message.content`` and
``message.thinking`` as deltas, ``message.tool_calls`` whole with arguments as
an object and no id, a last line with ``done: true``, ``done_reason`` and the
counts). It never calls this package's decoder. The suite finds it as
:attr:`OllamaChat.conformance_responder`.
"""

from __future__ import annotations

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

_CHUNK = 7
_MODEL = "conformance"
_CREATED = "2025-11-30T09:00:00.000000Z"


class OllamaResponder:
    """Canonical responses as ``/api/chat`` lines (stream) and one object (whole)."""

    api = "ollama-chat"
    # Thinking comes back as text only: this wire has no signatures.
    features = frozenset({"thinking"})
    # No cached or reasoning counts, no tool-call ids (results pair by
    # position), arguments as JSON objects.
    lacks = frozenset({"cache_read", "tool_ids", "argument_text"})

    def _line(self, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {"model": _MODEL, "created_at": _CREATED,
                "message": {"role": "assistant", "content": "", **message}, "done": False, **extra}

    def _done(self, message: AssistantMessage, reply: dict[str, Any] | None = None) -> dict[str, Any]:
        done = self._line(reply or {}, done=True)
        done.update(done_reason="length" if message.stop_reason is StopReason.LENGTH else "stop",
                    total_duration=1_000_000, load_duration=1000, prompt_eval_count=message.usage.input,
                    prompt_eval_duration=1000, eval_count=message.usage.output, eval_duration=1000)
        return done

    @staticmethod
    def _calls(message: AssistantMessage) -> list[dict[str, Any]]:
        return [{"function": {"name": block.name, "arguments": block.parsed_arguments()}}
                for block in message.content if isinstance(block, ToolUseBlock)]

    def stream(self, message: AssistantMessage) -> list[WireEvent]:
        lines: list[dict[str, Any]] = []
        for block in message.content:
            if isinstance(block, (ThinkingBlock, TextBlock)):
                field, text = ("thinking", block.thinking) if isinstance(block, ThinkingBlock) else ("content", block.text)
                lines += [self._line({field: piece}) for piece in chunks(text, _CHUNK)]
        calls = self._calls(message)
        if calls:  # the server sends every call of a response in one line
            lines.append(self._line({"tool_calls": calls}))
        lines.append(self._done(message))
        return [WireEvent(line) for line in lines]

    def whole(self, message: AssistantMessage) -> list[WireEvent] | None:
        reply: dict[str, Any] = {"content": "".join(b.text for b in message.content if isinstance(b, TextBlock))}
        thinking = "".join(b.thinking for b in message.content if isinstance(b, ThinkingBlock))
        if thinking:
            reply["thinking"] = thinking
        calls = self._calls(message)
        if calls:
            reply["tool_calls"] = calls
        return [WireEvent(self._done(message, reply))]

    def error(self, text: str) -> list[WireEvent]:
        return [WireEvent({"error": text})]
