"""Anthropic Messages response -> canonical events.

One decoder reads either form of a response: the stream (``message_start``,
``content_block_start``/``_delta``/``_stop``, ``message_delta``,
``message_stop``, ``ping``, ``error``) or the whole JSON body of a
non-streaming request (one event whose data is ``{"type": "message", ...}``
or ``{"type": "error", ...}``). Events, fields and block types this decoder
does not know are ignored: server-tool blocks (``server_tool_use``,
``web_search_tool_result``...), ``compaction``, ``fallback``, citations.

Tool-call argument text: the stream's ``partial_json`` pieces concatenated,
exactly. A whole response carries the input as an object, so its text is
``json.dumps(input, ensure_ascii=False)``, which is the spacing the stream
itself uses (``{"key": "value"}``). A call with no argument text at all gets
the block's initial input as JSON (``{}``), the same in both forms.

Usage: Anthropic's ``input_tokens`` already excludes cached tokens, so it is
taken as is (netting cache reads out again would undercount). Counts on
``message_delta`` are cumulative, so they replace earlier ones, except that a
zero never replaces a non-zero count. ``output_tokens_details.thinking_tokens``
is the reasoning part of output.
"""

from __future__ import annotations

import json
from typing import Any

from agentkit.plugin_api import (
    MessageAssembler,
    ProviderEvent,
    StopReason,
    Usage,
    WireEvent,
)

#: Wire stop reason -> canonical. ``pause_turn`` (a server tool paused a long
#: turn; sending the response back continues it) maps to ``stop``: the turn
#: ended without client tool calls. ``model_context_window_exceeded`` ends the
#: output early like ``max_tokens``, so tool calls in it must not run.
STOP_REASONS = {
    "end_turn": StopReason.STOP,
    "max_tokens": StopReason.LENGTH,
    "model_context_window_exceeded": StopReason.LENGTH,
    "tool_use": StopReason.TOOL_USE,
    "stop_sequence": StopReason.STOP_SEQUENCE,
    "refusal": StopReason.REFUSAL,
    "pause_turn": StopReason.STOP,
}

_USAGE_FIELDS = (
    ("input_tokens", "input"),
    ("output_tokens", "output"),
    ("cache_read_input_tokens", "cache_read"),
    ("cache_creation_input_tokens", "cache_write"),
)


class AnthropicDecoder:
    """The :class:`StreamDecoder` of one response."""

    def __init__(self, *, provider: str, api: str, model: str) -> None:
        self._out = MessageAssembler(provider=provider, api=api, model=model)
        # Wire block index -> (assembler index, kind, initial tool input, saw argument text).
        self._blocks: dict[int, list[Any]] = {}
        self._raw_stop: str | None = None

    def feed(self, event: WireEvent) -> list[ProviderEvent]:
        data = event.data
        if self._out.ended or not isinstance(data, dict):
            return []
        kind = data.get("type", event.event)
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        return handler(self, data) if handler else []

    def finish(self) -> list[ProviderEvent]:
        """The stream ended; without ``message_stop`` it was cut short."""
        if self._out.ended:
            return []
        return self._out.fail(StopReason.ERROR, "the Anthropic stream ended before message_stop")

    def fail(self, stop_reason: StopReason, error_message: str) -> list[ProviderEvent]:
        return self._out.fail(stop_reason, error_message)

    # -- stream events -------------------------------------------------------

    def _message_start(self, data: dict[str, Any]) -> list[ProviderEvent]:
        message = data.get("message")
        if isinstance(message, dict):
            self._provenance(message)
        return self._out.start()

    def _block_start(self, data: dict[str, Any]) -> list[ProviderEvent]:
        block = data.get("content_block")
        wire_index = data.get("index")
        if not isinstance(block, dict) or not isinstance(wire_index, int):
            return []
        kind = block.get("type")
        events: list[ProviderEvent] = []
        if kind == "text":
            index, events = self._out.start_block("text")
            events += self._out.delta(index, _text(block, "text"))
        elif kind == "thinking":
            index, events = self._out.start_block("thinking")
            events += self._out.delta(index, _text(block, "thinking"))
            if block.get("signature"):
                self._out.update(index, signature=block["signature"])
        elif kind == "redacted_thinking":
            index, events = self._out.start_block(
                "thinking", redacted=True, signature=_text(block, "data")
            )
        elif kind == "tool_use":
            index, events = self._out.start_block(
                "tool_use", id=_text(block, "id"), name=_text(block, "name")
            )
        else:
            if kind == "fallback":
                self._fallback(block)
            return []
        self._blocks[wire_index] = [index, kind, block.get("input", {}), False]
        return events

    def _block_delta(self, data: dict[str, Any]) -> list[ProviderEvent]:
        state = self._blocks.get(data.get("index"))  # type: ignore[arg-type]  # no index: no block
        delta = data.get("delta")
        if state is None or not isinstance(delta, dict):
            return []
        index, kind = state[0], state[1]
        delta_type = delta.get("type")
        if delta_type == "text_delta" and kind == "text":
            return self._out.delta(index, _text(delta, "text"))
        if delta_type == "thinking_delta" and kind == "thinking":
            return self._out.delta(index, _text(delta, "thinking"))
        if delta_type == "signature_delta" and kind == "thinking":
            self._out.update(index, signature=_text(delta, "signature"))
        elif delta_type == "input_json_delta" and kind == "tool_use":
            piece = _text(delta, "partial_json")
            state[3] = state[3] or bool(piece)
            return self._out.delta(index, piece)
        return []

    def _block_stop(self, data: dict[str, Any]) -> list[ProviderEvent]:
        state = self._blocks.pop(data.get("index"), None)  # type: ignore[arg-type]  # as above
        if state is None:
            return []
        return self._close(state)

    def _message_delta(self, data: dict[str, Any]) -> list[ProviderEvent]:
        delta = data.get("delta")
        if isinstance(delta, dict) and isinstance(delta.get("stop_reason"), str):
            self._raw_stop = delta["stop_reason"]
        self._usage(data.get("usage"))
        return []

    def _message_stop(self, data: dict[str, Any]) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        for wire_index in sorted(self._blocks):
            events += self._close(self._blocks.pop(wire_index))
        return events + self._out.finish(
            STOP_REASONS.get(self._raw_stop or "", StopReason.STOP), self._raw_stop
        )

    def _error(self, data: dict[str, Any]) -> list[ProviderEvent]:
        error = data.get("error")
        if isinstance(error, dict):
            kind, text = error.get("type"), error.get("message")
            message = ": ".join(str(part) for part in (kind, text) if part)
        else:
            message = ""
        return self._out.fail(StopReason.ERROR, message or "Anthropic reported an error")

    # -- a whole (non-streaming) response -------------------------------------

    def _whole(self, data: dict[str, Any]) -> list[ProviderEvent]:
        events = self._message_start({"message": data})
        content = data.get("content")
        for wire_index, block in enumerate(content if isinstance(content, list) else []):
            events += self._block_start({"index": wire_index, "content_block": block})
            state = self._blocks.get(wire_index)
            if state is None:
                continue
            if state[1] == "tool_use":
                events += self._out.delta(state[0], _json_text(state[2]))
                state[3] = True
            events += self._block_stop({"index": wire_index})
        if isinstance(data.get("stop_reason"), str):
            self._raw_stop = data["stop_reason"]
        return events + self._message_stop({})

    # -- helpers ---------------------------------------------------------------

    def _close(self, state: list[Any]) -> list[ProviderEvent]:
        index, kind, initial, saw_text = state
        events: list[ProviderEvent] = []
        if kind == "tool_use" and not saw_text:
            events += self._out.delta(index, _json_text(initial))
        return events + self._out.end_block(index)

    def _provenance(self, message: dict[str, Any]) -> None:
        if isinstance(message.get("id"), str):
            self._out.response_id = message["id"]
        if isinstance(message.get("model"), str):
            self._out.response_model = message["model"]
        self._usage(message.get("usage"))

    def _fallback(self, block: dict[str, Any]) -> None:
        # The request was served by another model from here on: report that one.
        target = block.get("to")
        if isinstance(target, dict) and isinstance(target.get("model"), str):
            self._out.response_model = target["model"]

    def _usage(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        current: Usage = self._out.usage
        for wire_name, name in _USAGE_FIELDS:
            _merge(current, name, usage.get(wire_name))
        details = usage.get("output_tokens_details")
        if isinstance(details, dict):
            _merge(current, "reasoning", details.get("thinking_tokens"))
        # The one-hour cache write is a part of cache_creation_input_tokens, priced apart.
        created = usage.get("cache_creation")
        if isinstance(created, dict):
            _merge(current, "cache_write_1h", created.get("ephemeral_1h_input_tokens"))


def _merge(usage: Usage, name: str, value: Any) -> None:
    """Cumulative counts replace earlier ones; a zero never erases a count."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        setattr(usage, name, value)


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


def _json_text(value: Any) -> str:
    return json.dumps(value if isinstance(value, dict) else {}, ensure_ascii=False)


_HANDLERS = {
    "message_start": AnthropicDecoder._message_start,
    "content_block_start": AnthropicDecoder._block_start,
    "content_block_delta": AnthropicDecoder._block_delta,
    "content_block_stop": AnthropicDecoder._block_stop,
    "message_delta": AnthropicDecoder._message_delta,
    "message_stop": AnthropicDecoder._message_stop,
    "error": AnthropicDecoder._error,
    "message": AnthropicDecoder._whole,
}
