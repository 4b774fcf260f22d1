"""This wire's responder for the shared conformance fixtures (``agentkit.conformance``).

It plays the server: a canonical assistant message rendered as the
``GenerateContentResponse`` chunks ``streamGenerateContent?alt=sse`` sends,
and as the whole response of ``generateContent``, written from the API
reference (candidates, parts, ``finishReason``; ``usageMetadata`` with the
cached tokens *inside* the prompt count and the thoughts *beside* the
candidates count). It never calls this package's decoder. The suite finds it
as :attr:`GeminiGenerateContent.conformance_responder`.
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

_FINISH = {StopReason.LENGTH: "MAX_TOKENS", StopReason.REFUSAL: "SAFETY"}
_CHUNK = 5  # text arrives in small pieces, so every block takes several chunks


class GeminiResponder:
    """Canonical responses as ``streamGenerateContent`` chunks and a whole response."""

    api = "google-generative-ai"
    # Implicit caching reports reads only: no cache writes on this wire.
    features = frozenset({"thinking", "signature", "reasoning"})
    # Call arguments travel as a JSON object: the text given back is that
    # object written compactly, so only the parsed arguments are compared.
    lacks = frozenset({"argument_text"})

    def _usage(self, message: AssistantMessage) -> dict[str, Any]:
        usage = message.usage
        prompt = usage.input + usage.cache_read
        candidates = usage.output - usage.reasoning
        metadata: dict[str, Any] = {
            "promptTokenCount": prompt,
            "candidatesTokenCount": candidates,
            "totalTokenCount": prompt + candidates + usage.reasoning,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
        }
        if usage.cache_read:
            metadata["cachedContentTokenCount"] = usage.cache_read
        if usage.reasoning:
            metadata["thoughtsTokenCount"] = usage.reasoning
        return metadata

    def _parts(self, message: AssistantMessage) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for block in message.content:
            if isinstance(block, ThinkingBlock):
                part: dict[str, Any] = {"text": block.thinking, "thought": True}
                if block.signature:
                    part["thoughtSignature"] = block.signature
                parts.append(part)
            elif isinstance(block, TextBlock):
                parts.append({"text": block.text})
            elif isinstance(block, ToolUseBlock):
                # The optional call id, so the fixture's ids come back as they are.
                call = {"id": block.id, "name": block.name, "args": block.parsed_arguments()}
                parts.append({"functionCall": call})
        return parts

    def _chunk(self, parts: list[dict[str, Any]], message: AssistantMessage, last: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if last:
            candidate["finishReason"] = _FINISH.get(message.stop_reason, "STOP")
        return {"candidates": [candidate], "usageMetadata": self._usage(message),
                "modelVersion": "gemini-conformance", "responseId": "conformance-response"}

    def stream(self, message: AssistantMessage) -> list[WireEvent]:
        # Text and thoughts arrive a piece per chunk, the signature with the
        # last piece; a functionCall part arrives whole.
        pieces: list[dict[str, Any]] = []
        for part in self._parts(message):
            if "text" not in part:
                pieces.append(part)
                continue
            for text in chunks(part["text"], _CHUNK) or [""]:
                piece = {key: value for key, value in part.items() if key != "thoughtSignature"}
                piece["text"] = text
                pieces.append(piece)
            if "thoughtSignature" in part:
                pieces[-1]["thoughtSignature"] = part["thoughtSignature"]
        pieces = pieces or [{"text": ""}]
        return [WireEvent(self._chunk([piece], message, n == len(pieces) - 1)) for n, piece in enumerate(pieces)]

    def whole(self, message: AssistantMessage) -> list[WireEvent] | None:
        return [WireEvent(self._chunk(self._parts(message), message, True))]

    def error(self, text: str) -> list[WireEvent]:
        return [WireEvent({"error": {"code": 500, "message": text, "status": "INTERNAL"}})]
