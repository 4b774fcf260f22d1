"""This wire's responder for the shared conformance fixtures (``agentkit.conformance``).

It plays the server: a canonical assistant message rendered as
``chat.completion.chunk`` events and as the whole ``chat.completion``,
written from OpenAI's Chat Completions reference.
It never calls this package's decoder. The suite finds it as :attr:`OpenAICompletions.conformance_responder`
(:data:`RESPONDER`), which loads this module when first read.
"""

from __future__ import annotations

from typing import Any

from agentkit.plugin_api import (
    AssistantMessage,
    StopReason,
    TextBlock,
    ToolUseBlock,
    WireEvent,
)
from agentkit.plugin_api.codec import chunks

#: Characters per delta: small, so every block arrives in several.
CHUNK = 7


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
                events += [self._chunk({"content": piece}) for piece in chunks(block.text, CHUNK) or [""]]
            elif isinstance(block, ToolUseBlock):
                head = {"index": calls, "id": block.id, "type": "function",
                        "function": {"name": block.name, "arguments": ""}}
                events.append(self._chunk({"tool_calls": [head]}))
                events += [self._chunk({"tool_calls": [{"index": calls, "function": {"arguments": piece}}]})
                           for piece in chunks(block.arguments, CHUNK) or [""]]
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


#: The one responder :attr:`OpenAICompletions.conformance_responder` gives.
RESPONDER = OpenAICompletionsResponder()
