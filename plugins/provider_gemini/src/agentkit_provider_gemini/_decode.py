"""Gemini response -> canonical events.

One decoder reads both shapes the host hands it: the streamed
``GenerateContentResponse`` chunks (one :class:`WireEvent` per SSE message)
and a whole response (one event, for ``generateContent``). A whole response
is read as one big chunk, so both paths build the same blocks, ids, argument
text and signatures.

What it relies on (see ``docs/providers.md``):

* Only candidate 0 is read (we never ask for more). Each chunk's parts
  continue the response: consecutive text parts extend one text block and
  consecutive thought parts (``thought: true``) one thinking block; any other
  part in between ends the block, so text after a ``functionCall`` starts a
  new text block.
* A ``functionCall`` arrives whole in one part. Its ``args`` object is written
  as compact JSON, key order kept: that text is the call's argument text. Its
  id is the wire's ``id`` if it has one, else synthesized (see ``_ids``).
* A ``thoughtSignature`` on a thought part is that thinking block's
  signature and ends the block (a thinking block that ends without one gets
  ``UNSIGNED_THOUGHT``); on any other part it ends that part's block
  and follows it as a signature carrier (see ``_ids``). An empty text part
  with a signature (how a stream often delivers it) signs the text block
  still open, or, when none is, an empty text block of its own.
* Usage: ``usageMetadata`` (cumulative; the last one wins).
  ``promptTokenCount`` includes ``cachedContentTokenCount``, which is netted
  out once: ``input = prompt - cached + toolUsePrompt``. ``thoughtsTokenCount``
  is reported BESIDE ``candidatesTokenCount``, so ``output = candidates +
  thoughts`` and ``reasoning = thoughts``. Zero usage is never authoritative.
* Finish reasons: ``STOP`` -> ``stop``, or ``tool_use`` when the response
  made function calls (Gemini has no reason of its own for that: it says
  ``STOP``, which stays the raw reason; the loop runs calls whatever the
  reason, and ``tool_use`` is what every other wire reports for the same
  turn), ``MAX_TOKENS`` ->
  ``length``, the safety family -> ``refusal``, the malformed-call family ->
  ``error`` (the model produced a call the server could not parse: nothing
  usable arrived), anything unknown -> ``stop``. The raw reason is kept.
  A response that ends without a finish reason was cut short: ``error``.
* ``promptFeedback.blockReason`` with no candidate: the prompt itself was
  blocked -> ``refusal`` with the reason in the error message.
* An ``error`` object in the body ends the message with ``error``.
* Parts this codec does not model (``executableCode``, ``codeExecutionResult``,
  model-made ``inlineData``, ``fileData``) are skipped.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from agentkit.plugin_api import MessageAssembler, ProviderEvent, StopReason, Usage, WireEvent
from agentkit.plugin_api.codec import count, error_text

from ._ids import UNSIGNED_THOUGHT, synthesized_id

#: Finish reasons and their canonical stop reason; an unknown one is ``stop``.
FINISH_REASONS: dict[str, StopReason] = {
    "STOP": StopReason.STOP,
    "FINISH_REASON_UNSPECIFIED": StopReason.STOP,
    "MAX_TOKENS": StopReason.LENGTH,
    "SAFETY": StopReason.REFUSAL,
    "RECITATION": StopReason.REFUSAL,
    "LANGUAGE": StopReason.REFUSAL,
    "BLOCKLIST": StopReason.REFUSAL,
    "PROHIBITED_CONTENT": StopReason.REFUSAL,
    "SPII": StopReason.REFUSAL,
    "IMAGE_SAFETY": StopReason.REFUSAL,
    "IMAGE_PROHIBITED_CONTENT": StopReason.REFUSAL,
    "IMAGE_RECITATION": StopReason.REFUSAL,
    "MODEL_ARMOR": StopReason.REFUSAL,
    "MALFORMED_FUNCTION_CALL": StopReason.ERROR,
    "UNEXPECTED_TOOL_CALL": StopReason.ERROR,
    "TOO_MANY_TOOL_CALLS": StopReason.ERROR,
    "MISSING_THOUGHT_SIGNATURE": StopReason.ERROR,
    "MALFORMED_RESPONSE": StopReason.ERROR,
    "OTHER": StopReason.ERROR,
}

_API = "google-generative-ai"


def usage_from_wire(metadata: Any) -> Usage | None:
    """Canonical usage from ``usageMetadata``, or ``None`` when absent or all zero."""
    if not isinstance(metadata, dict):
        return None
    prompt = count(metadata.get("promptTokenCount"))
    cached = count(metadata.get("cachedContentTokenCount"))
    tool_prompt = count(metadata.get("toolUsePromptTokenCount"))
    candidates = count(metadata.get("candidatesTokenCount"))
    thoughts = count(metadata.get("thoughtsTokenCount"))
    if not (prompt or cached or tool_prompt or candidates or thoughts):
        return None
    return Usage(
        input=max(prompt - cached, 0) + tool_prompt,
        output=candidates + thoughts,
        reasoning=thoughts,
        cache_read=cached,
    )



def arguments_text(args: Any) -> str:
    """The canonical argument text of a ``functionCall``'s ``args``."""
    if args is None:
        return "{}"
    return json.dumps(args, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class GeminiDecoder:
    """The :class:`~agentkit.plugin_api.StreamDecoder` of one response."""

    def __init__(self, *, provider: str, model: str, id_salt: str) -> None:
        self._assembler = MessageAssembler(provider=provider, api=_API, model=model)
        self._id_salt = id_salt
        # The one block that may still grow: (index, "text" | "thinking").
        self._open: tuple[int, str] | None = None
        self._signed = False  # whether the open thinking block got its signature
        self._calls = 0
        self._finish_reason: str | None = None
        self._block_reason: str | None = None
        self._saw_candidate = False

    # -- StreamDecoder -------------------------------------------------

    def feed(self, event: WireEvent) -> list[ProviderEvent]:
        data = event.data
        if self._assembler.ended:
            return []
        if isinstance(data, list):
            # streamGenerateContent without alt=sse answers one JSON array of chunks.
            events: list[ProviderEvent] = []
            for item in data:
                events += self.feed(WireEvent(item, event.event))
            return events
        if not isinstance(data, dict):
            return []
        events = self._assembler.start()
        error = data.get("error")
        if error:
            events += self.fail(StopReason.ERROR, f"{_API}: {error_text(error, details=('status', 'code'))}")
            return events
        self._note_metadata(data)
        candidates = data.get("candidates")
        candidate = candidates[0] if isinstance(candidates, list) and candidates else None
        if isinstance(candidate, dict):
            self._saw_candidate = True
            content = candidate.get("content")
            parts = content.get("parts") if isinstance(content, dict) else None
            for part in parts if isinstance(parts, list) else ():
                if isinstance(part, dict):
                    events += self._on_part(part)
            reason = candidate.get("finishReason")
            if isinstance(reason, str) and reason:
                self._finish_reason = reason
        return events

    def finish(self) -> list[ProviderEvent]:
        if self._assembler.ended:
            return []
        events = self._close_open()
        raw = self._finish_reason
        message: str | None
        if raw is None and not self._saw_candidate and self._block_reason:
            message = (
                f"{_API}: the prompt was blocked (promptFeedback.blockReason "
                f"{self._block_reason}); rephrase the request"
            )
            events += self._assembler.finish(StopReason.REFUSAL, self._block_reason, message)
            return events
        if raw is None:
            message = (
                f"{_API}: the response ended without a finishReason; it was cut short"
                if self._saw_candidate
                else f"{_API}: the response carried no candidates; check the model name and base URL"
            )
            events += self._assembler.finish(StopReason.ERROR, None, message)
            return events
        stop = FINISH_REASONS.get(raw, StopReason.STOP)
        if stop is StopReason.STOP and self._calls:
            stop = StopReason.TOOL_USE
        message = None
        if stop is StopReason.ERROR:
            message = f"{_API}: the model's response ended with finishReason {raw}"
        events += self._assembler.finish(stop, raw, message)
        return events

    def fail(self, stop_reason: StopReason, error_message: str) -> list[ProviderEvent]:
        if self._assembler.ended:
            return []
        events = self._close_open()
        events += self._assembler.fail(stop_reason, error_message)
        return events

    # -- parts ---------------------------------------------------------

    def _note_metadata(self, data: dict[str, Any]) -> None:
        assembler = self._assembler
        response_id = data.get("responseId")
        if assembler.response_id is None and isinstance(response_id, str) and response_id:
            assembler.response_id = response_id
        version = data.get("modelVersion")
        if isinstance(version, str) and version:
            assembler.response_model = version
        usage = usage_from_wire(data.get("usageMetadata"))
        if usage is not None:
            assembler.usage = usage
        feedback = data.get("promptFeedback")
        if isinstance(feedback, dict) and isinstance(feedback.get("blockReason"), str):
            self._block_reason = feedback["blockReason"]

    def _on_part(self, part: dict[str, Any]) -> list[ProviderEvent]:
        signature = part.get("thoughtSignature")
        signature = signature if isinstance(signature, str) and signature else None
        call = part.get("functionCall")
        if isinstance(call, dict):
            events = self._close_open()
            events += self._function_call(call)
            if signature:
                events += self._carrier(signature)
            return events
        text = part.get("text")
        if not isinstance(text, str):
            return []  # a part kind this codec does not model
        if not text and not signature:
            return []  # nothing to keep (streams send empty parts)
        if part.get("thought") is True:
            events = self._grow("thinking", text)
            if signature:
                assert self._open is not None
                self._assembler.update(self._open[0], signature=signature)
                self._signed = True
                events += self._close_open()
            return events
        if text:
            events = self._grow("text", text)
        elif self._open is not None and self._open[1] == "text":
            events = []  # an empty signed part: it signs the text still open
        else:
            events = self._grow("text", "")
        if signature:
            events += self._close_open()
            events += self._carrier(signature)
        return events

    def _grow(self, kind: Literal["text", "thinking"], text: str) -> list[ProviderEvent]:
        """More text for the open block of ``kind``, opening one if needed."""
        events: list[ProviderEvent] = []
        if self._open is None or self._open[1] != kind:
            events += self._close_open()
            index, started = self._assembler.start_block(kind)
            self._open = (index, kind)
            events += started
        events += self._assembler.delta(self._open[0], text)
        return events

    def _close_open(self) -> list[ProviderEvent]:
        if self._open is None:
            return []
        index, kind = self._open
        self._open = None
        if kind == "thinking" and not self._signed:
            self._assembler.update(index, signature=UNSIGNED_THOUGHT)
        self._signed = False
        return self._assembler.end_block(index)

    def _carrier(self, signature: str) -> list[ProviderEvent]:
        index, events = self._assembler.start_block("thinking")
        self._assembler.update(index, signature=signature, redacted=True)
        events += self._assembler.end_block(index)
        return events

    def _function_call(self, call: dict[str, Any]) -> list[ProviderEvent]:
        name = given if isinstance(given := call.get("name"), str) else ""
        arguments = arguments_text(call.get("args"))
        wire = call.get("id")
        if isinstance(wire, str) and wire:
            call_id = wire
        else:
            call_id = synthesized_id(
                self._id_salt, self._assembler.response_id or "", self._calls, name, arguments
            )
        self._calls += 1
        index, events = self._assembler.start_block("tool_use", id=call_id, name=name)
        events += self._assembler.delta(index, arguments)
        events += self._assembler.end_block(index)
        return events
