"""OpenAI Responses response -> canonical events.

One decoder reads both shapes the host hands it: the streamed events (one
:class:`WireEvent` per SSE message, named by their ``type``) and a whole
``response`` object (one event, for ``stream: false``). A whole response is
read as if each output item had been added and then finished in one piece,
through the same code, so both paths build the same blocks, ids and argument
text.

What it relies on (see ``docs/providers.md``):

* Output items are keyed by ``output_index``. A ``reasoning`` item is a
  thinking block, a ``message`` item a text block (its ``output_text`` and
  ``refusal`` parts joined), a ``function_call`` item a tool-use block whose
  id is ``"<call_id>|<item id>"`` (see ``_ids``). Other item types (server
  tools) are skipped.
* Argument text is exactly the concatenation of the
  ``response.function_call_arguments.delta`` pieces. The ``arguments`` of the
  ``output_item.added`` item (``""``, a placeholder) is never used.
  ``...arguments.done`` and ``output_item.done`` must agree with the deltas:
  when no delta came their text is used, a text that extends the deltas
  supplies the rest, and one that contradicts them ends the message as an
  error rather than guess.
* Each reasoning summary part with text is a thinking block of its own, in
  the stream as in a whole response (empty parts make none; a reasoning item
  without a summary is one empty, redacted block). Each block's signature
  names the item (``{"id": ...}``); the last one's also holds the item's
  ``encrypted_content``, taken from ``output_item.done`` (the ``added`` copy
  may be incomplete). The encoder sends consecutive blocks of one item back
  as that one item, with its summary parts.
* ``response.completed`` -> ``stop`` (``tool_use`` when it holds function
  calls); ``response.incomplete`` -> ``length`` (``refusal`` for
  ``content_filter``); ``response.failed`` and ``error`` -> ``error``. A stream
  that ends without one of them is an error too. The raw status (and the
  incomplete reason) is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentkit.plugin_api import (
    MessageAssembler,
    ProviderEvent,
    StopReason,
    Usage,
    WireEvent,
)
from agentkit.plugin_api.codec import count
from agentkit.plugin_api.codec import error_text as _error_text

from ._ids import ReasoningRef, join_call_id

_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})
_KINDS: dict[str, Any] = {
    "message": "text",
    "reasoning": "thinking",
    "function_call": "tool_use",
}


def usage_from_wire(usage: Any) -> Usage | None:
    """Canonical usage from a Responses ``usage`` object, or ``None``.

    ``input_tokens`` counts every input token, cached ones included; the
    cached (``input_tokens_details.cached_tokens``) and cache-written
    (``cache_write_tokens``) counts are netted out of it once.
    ``output_tokens_details.reasoning_tokens`` is already inside
    ``output_tokens``. An absent or all-zero object is ``None``.
    """
    if not isinstance(usage, dict):
        return None
    details = usage.get("input_tokens_details")
    details = details if isinstance(details, dict) else {}
    cached = count(details.get("cached_tokens"))
    written = count(details.get("cache_write_tokens"))
    output_details = usage.get("output_tokens_details")
    reasoning = (
        count(output_details.get("reasoning_tokens")) if isinstance(output_details, dict) else 0
    )
    total_input = count(usage.get("input_tokens"))
    output = count(usage.get("output_tokens"))
    if not (total_input or output):
        return None
    return Usage(
        input=max(total_input - cached - written, 0),
        output=output,
        reasoning=reasoning,
        cache_read=cached,
        cache_write=written,
    )



def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def error_text(error: Any) -> str:
    """A one-line description of a Responses ``error`` object: its message and code (or type)."""
    return _error_text(error, details=("code", "type"), most=1)


@dataclass(slots=True)
class _Item:
    """One output item as far as it arrived."""

    type: str
    block: int | None = None
    parts: list[str] = field(default_factory=list)
    summary_index: int = 0
    done: bool = False
    #: A reasoning item's summary parts before the one being read, each a block already ended.
    earlier: list[str] = field(default_factory=list)
    #: A reasoning item's signature naming it, for each part's block (``None``: no id yet).
    ref: str | None = None

    @property
    def text(self) -> str:
        return "".join(self.parts)


class ResponsesDecoder:
    """The :class:`~agentkit.plugin_api.StreamDecoder` of one response."""

    def __init__(self, *, provider: str, api: str, model: str) -> None:
        self._assembler = MessageAssembler(provider=provider, api=api, model=model)
        self._items: dict[int, _Item] = {}
        self._by_item_id: dict[str, int] = {}
        self._calls = 0
        self._refused = False
        self._violation: str | None = None

    # -- StreamDecoder -------------------------------------------------

    def feed(self, event: WireEvent) -> list[ProviderEvent]:
        data = event.data
        if self._assembler.ended or not isinstance(data, dict):
            return []
        kind = data.get("type")
        if not isinstance(kind, str):
            kind = event.event or ""
        if not kind and data.get("object") == "response":
            return self._whole(data)
        events = self._assembler.start()
        if kind in ("response.created", "response.in_progress", "response.queued"):
            self._note(data.get("response"))
        elif kind == "response.output_item.added":
            events += self._added(data.get("output_index"), data.get("item"))
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            if kind == "response.refusal.delta":
                self._refused = True
            events += self._delta(data, "message", _text(data.get("delta")))
        elif kind == "response.function_call_arguments.delta":
            events += self._delta(data, "function_call", _text(data.get("delta")))
        elif kind == "response.function_call_arguments.done":
            index = self._index(data)
            item = self._items.get(index) if index is not None else None
            if item is not None and item.type == "function_call":
                events += self._settle(item, data.get("arguments"), "arguments")
        elif kind == "response.reasoning_summary_text.delta":
            events += self._summary_delta(data)
        elif kind == "response.output_item.done":
            events += self._done(data.get("output_index"), data.get("item"))
        elif kind in _TERMINAL:
            events += self._terminal(data.get("response"), kind)
        elif kind == "error":
            events += self.fail(StopReason.ERROR, f"openai-responses: {error_text(data)}")
        return events

    def finish(self) -> list[ProviderEvent]:
        if self._assembler.ended:
            return []
        return self._end(
            StopReason.ERROR,
            None,
            self._violation or "openai-responses: the stream ended before response.completed",
        )

    def fail(self, stop_reason: StopReason, error_message: str) -> list[ProviderEvent]:
        if self._assembler.ended:
            return []
        return self._end(stop_reason, None, error_message)

    # -- items ---------------------------------------------------------

    def _note(self, response: Any) -> None:
        if not isinstance(response, dict):
            return
        assembler = self._assembler
        if assembler.response_id is None and _text(response.get("id")):
            assembler.response_id = response["id"]
        if _text(response.get("model")):
            assembler.response_model = response["model"]

    def _index(self, data: dict[str, Any]) -> int | None:
        index = data.get("output_index")
        if isinstance(index, int) and not isinstance(index, bool):
            return index
        return self._by_item_id.get(_text(data.get("item_id")))

    def _added(self, index: Any, wire: Any) -> list[ProviderEvent]:
        if not isinstance(index, int) or not isinstance(wire, dict) or index in self._items:
            return []
        item = _Item(_text(wire.get("type")))
        self._items[index] = item
        if _text(wire.get("id")):
            self._by_item_id[wire["id"]] = index
        if item.type == "function_call":
            self._calls += 1
            # The block opens now, with both ids; the added item's `arguments`
            # is a placeholder and is deliberately not read.
            return self._open(item, id=_call_id(wire), name=_text(wire.get("name")))
        if item.type == "reasoning":
            if not _text(wire.get("id")):
                return self._open(item)
            # The id alone, until output_item.done brings the encrypted content:
            # a reasoning item that never finishes is then known to be
            # unreplayable, and so are the item ids of the calls after it.
            item.ref = ReasoningRef(wire["id"]).to_signature()
            return self._open(item, signature=item.ref)
        return []  # a message opens its block at its first text

    def _open(self, item: _Item, **fields: Any) -> list[ProviderEvent]:
        item.block, events = self._assembler.start_block(_KINDS[item.type], **fields)
        return events

    def _append(self, item: _Item, text: str) -> list[ProviderEvent]:
        if not text or item.done:
            return []
        events = self._open(item) if item.block is None else []
        item.parts.append(text)
        events += self._assembler.delta(item.block, text)  # type: ignore[arg-type]  # opened above
        return events

    def _delta(self, data: dict[str, Any], expected: str, text: str) -> list[ProviderEvent]:
        index = self._index(data)
        item = self._items.get(index) if index is not None else None
        if item is None or item.type != expected:
            return []
        return self._append(item, text)

    def _summary_delta(self, data: dict[str, Any]) -> list[ProviderEvent]:
        index = self._index(data)
        item = self._items.get(index) if index is not None else None
        if item is None or item.type != "reasoning":
            return []
        text = _text(data.get("delta"))
        part = data.get("summary_index")
        events: list[ProviderEvent] = []
        if text and isinstance(part, int) and part > item.summary_index:
            # The next part's block opens at its first text, so empty parts
            # make no block, as in a whole response.
            item.summary_index = part
            if item.parts:
                events += self._next_part(item)
        return events + self._append(item, text)

    def _next_part(self, item: _Item) -> list[ProviderEvent]:
        """End the block of a reasoning item's summary part and open the next part's."""
        events = self._assembler.end_block(item.block) if item.block is not None else []
        item.earlier.append(item.text)
        item.parts = []
        return events + (self._open(item, signature=item.ref) if item.ref else self._open(item))

    def _settle_summary(self, item: _Item, finals: list[str]) -> list[ProviderEvent]:
        """Reconcile a reasoning item's streamed summary parts with the item's complete ``finals``."""
        streamed = [*item.earlier, item.text] if item.parts else list(item.earlier)
        if finals[: len(item.earlier)] != item.earlier or len(finals) < len(streamed):
            if self._violation is None:
                self._violation = ("openai-responses: the final summary of a reasoning item differs from "
                                   "the streamed deltas; the response cannot be trusted")
            return []
        events: list[ProviderEvent] = []
        if item.parts:
            events += self._settle(item, finals[len(item.earlier)], "summary")
        for text in finals[len(streamed):]:
            if item.parts:
                events += self._next_part(item)
            events += self._append(item, text)
        return events

    def _settle(self, item: _Item, final: Any, what: str) -> list[ProviderEvent]:
        """Reconcile the streamed text of ``item`` with the complete ``final`` text."""
        if not isinstance(final, str):
            return []
        streamed = item.text
        if final == streamed:
            return []
        if final.startswith(streamed):
            return self._append(item, final[len(streamed) :])
        if self._violation is None:
            self._violation = (
                f"openai-responses: the final {what} of output item {item.type!r} differ from "
                "the streamed deltas; the response cannot be trusted"
            )
        return []

    def _done(self, index: Any, wire: Any) -> list[ProviderEvent]:
        if not isinstance(index, int) or not isinstance(wire, dict):
            return []
        events: list[ProviderEvent] = []
        item = self._items.get(index)
        if item is None:
            events += self._added(index, wire)
            item = self._items.get(index)
        if item is None or item.done:
            return events
        if item.type == "function_call":
            events += self._settle(item, wire.get("arguments"), "arguments")
            if item.block is not None:
                self._assembler.update(item.block, id=_call_id(wire), name=_text(wire.get("name")))
        elif item.type == "message":
            events += self._settle(item, _message_text(wire), "text")
            if any(
                isinstance(part, dict) and part.get("type") == "refusal"
                for part in _list(wire.get("content"))
            ):
                self._refused = True
        elif item.type == "reasoning":
            events += self._settle_summary(item, _summary_texts(wire))
            if item.block is not None and _text(wire.get("id")):
                encrypted = _text(wire.get("encrypted_content")) or None
                self._assembler.update(
                    item.block,
                    signature=ReasoningRef(wire["id"], encrypted).to_signature(),
                    redacted=not (item.parts or item.earlier),
                )
        events += self._close_before(index)
        if item.block is not None:
            events += self._assembler.end_block(item.block)
        item.done = True
        return events

    def _close_before(self, index: int | None) -> list[ProviderEvent]:
        """End the open blocks of items before output ``index`` (all when ``None``),
        in output order, so the content keeps the order of the output."""
        events: list[ProviderEvent] = []
        for position in sorted(self._items):
            if index is not None and position >= index:
                break
            item = self._items[position]
            if item.block is not None and not item.done:
                events += self._assembler.end_block(item.block)
            item.done = True
        return events

    # -- the end -------------------------------------------------------

    def _whole(self, response: dict[str, Any]) -> list[ProviderEvent]:
        events = self._assembler.start()
        self._note(response)
        status = _text(response.get("status"))
        kind = {"incomplete": "response.incomplete", "failed": "response.failed"}.get(
            status, "response.completed"
        )
        return events + self._terminal(response, kind)

    def _terminal(self, response: Any, kind: str) -> list[ProviderEvent]:
        response = response if isinstance(response, dict) else {}
        self._note(response)
        events: list[ProviderEvent] = []
        # Items the stream never showed (or all of them, for a whole response).
        for position, wire in enumerate(_list(response.get("output"))):
            if position not in self._items or not self._items[position].done:
                events += self._done(position, wire)
        usage = usage_from_wire(response.get("usage"))
        if usage is not None:
            self._assembler.usage = usage
        status = _text(response.get("status")) or kind.removeprefix("response.")
        if self._violation is not None:
            return events + self._end(StopReason.ERROR, status, self._violation)
        if kind == "response.failed" or status == "failed":
            message = f"openai-responses: {error_text(response.get('error'))}"
            return events + self._end(StopReason.ERROR, status, message)
        if kind == "response.incomplete" or status == "incomplete":
            details = response.get("incomplete_details")
            reason = _text(details.get("reason")) if isinstance(details, dict) else ""
            stop = StopReason.REFUSAL if reason == "content_filter" else StopReason.LENGTH
            raw = f"incomplete:{reason}" if reason else "incomplete"
            return events + self._end(stop, raw, None)
        if status not in ("completed", ""):
            message = f"openai-responses: the response ended with status {status!r}"
            return events + self._end(StopReason.ERROR, status, message)
        if self._calls:
            stop = StopReason.TOOL_USE
        elif self._refused:
            stop = StopReason.REFUSAL
        else:
            stop = StopReason.STOP
        return events + self._end(stop, status or "completed", None)

    def _end(self, stop: StopReason, raw: str | None, message: str | None) -> list[ProviderEvent]:
        events = self._assembler.start() + self._close_before(None)
        return events + self._assembler.finish(stop, raw, message)


def _call_id(wire: dict[str, Any]) -> str:
    return join_call_id(_text(wire.get("call_id")), _text(wire.get("id")) or None)


def _message_text(wire: dict[str, Any]) -> str:
    parts = wire.get("content")
    return "".join(
        _text(part.get("text")) if part.get("type") == "output_text" else _text(part.get("refusal"))
        for part in _list(parts)
        if isinstance(part, dict)
    )


def _summary_texts(wire: dict[str, Any]) -> list[str]:
    """The texts of a reasoning item's summary parts, empty ones left out."""
    texts = (_text(part.get("text")) for part in _list(wire.get("summary")) if isinstance(part, dict))
    return [text for text in texts if text]
