"""OpenAI Chat Completions response -> canonical events.

One decoder reads both shapes the host hands it: streamed
``chat.completion.chunk`` objects (one :class:`WireEvent` per SSE message)
and a whole ``chat.completion`` body (one event, for ``stream: false``).
A whole message is read as if it were one big delta, so both paths build the
same blocks, ids and argument text.

What it relies on (see ``docs/providers.md``):

* Tool calls stream by ``index``; the id and name come in the first delta of a
  call, argument text in pieces after it, and calls may interleave. Blocks
  open in arrival order and all close when the response ends, in index order.
* A text or reasoning delta after tool calls started closes the calls (the
  content order is the order blocks opened); argument text arriving for a
  closed call ends the message as an error rather than being dropped.
* Reasoning text is read from the profile's ``reasoning_fields``, the first
  non-empty one per delta.
* ``refusal`` text is kept as text and makes the stop reason ``refusal``.
* Only choice 0 is read (we never ask for ``n > 1``).
* A server that omits a tool-call id (Gemini's compatible endpoint sends
  ``""``) gets a synthesized one derived from the request and the call, the
  same on the streamed and the whole path.
* An ``error`` object in the body (HTTP errors, OpenRouter's mid-stream
  errors) ends the message with stop reason ``error`` and its message.
"""

from __future__ import annotations

import hashlib
from typing import Any

from agentkit.plugin_api import (
    MessageAssembler,
    ProviderEvent,
    StopReason,
    Usage,
    WireEvent,
)
from agentkit.plugin_api.codec import count, error_text

from ._compat import CompatProfile

_FINISH_REASONS: dict[str, StopReason] = {
    "stop": StopReason.STOP,
    "length": StopReason.LENGTH,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "content_filter": StopReason.REFUSAL,
    # OpenRouter ends a stream that failed upstream with this reason.
    "error": StopReason.ERROR,
}

#: The key of the single call of the legacy ``function_call`` field.
_LEGACY_CALL = -1


def usage_from_wire(usage: Any) -> Usage | None:
    """Canonical usage from an OpenAI-style ``usage`` object, or ``None``.

    ``prompt_tokens`` includes cached tokens on this wire; they are netted
    out once (``input = prompt_tokens - cached``). The cached count is read
    from every place vendors put it: ``prompt_tokens_details.cached_tokens``
    (OpenAI, OpenRouter, Groq), ``prompt_cache_hit_tokens`` (DeepSeek) and a
    top-level ``cached_tokens`` (Moonshot); the largest wins, since a vendor
    that fills two of them fills them with the same count.
    ``completion_tokens_details.reasoning_tokens`` is reasoning, already
    inside ``completion_tokens``. An absent or all-zero object is ``None``:
    zero usage is never authoritative.
    """
    if not isinstance(usage, dict):
        return None
    prompt = count(usage.get("prompt_tokens"))
    output = count(usage.get("completion_tokens"))
    prompt_details = usage.get("prompt_tokens_details")
    cached = max(
        count(prompt_details.get("cached_tokens")) if isinstance(prompt_details, dict) else 0,
        count(usage.get("prompt_cache_hit_tokens")),
        count(usage.get("cached_tokens")),
    )
    output_details = usage.get("completion_tokens_details")
    reasoning = (
        count(output_details.get("reasoning_tokens")) if isinstance(output_details, dict) else 0
    )
    if not (prompt or output or cached):
        return None
    return Usage(
        input=max(prompt - cached, 0), output=output, reasoning=reasoning, cache_read=cached
    )



class _Call:
    """A tool call as its chunks arrive: its block, its place among the calls, its id, name and argument text.

    A plain class: a ``@dataclass`` writes and compiles its methods when the module is imported.
    """

    __slots__ = ("arguments", "block", "closed", "id", "name", "ordinal")

    def __init__(self, block: int, ordinal: int, id: str = "", name: str = "") -> None:
        self.block = block
        self.ordinal = ordinal
        self.id = id
        self.name = name
        self.arguments: list[str] = []
        self.closed = False


class CompletionsDecoder:
    """The :class:`~agentkit.plugin_api.StreamDecoder` of one response."""

    def __init__(
        self, *, provider: str, api: str, model: str, profile: CompatProfile, id_salt: str
    ) -> None:
        self._assembler = MessageAssembler(provider=provider, api=api, model=model)
        self._reasoning_fields = profile.reasoning_fields
        self._id_salt = id_salt
        self._text: int | None = None
        self._thinking: int | None = None
        self._calls: dict[int, _Call] = {}
        self._by_block: dict[int, _Call] = {}
        self._last_call: int | None = None
        self._finish_reason: str | None = None
        self._refused = False
        self._violation: str | None = None
        self._saw_choices = False

    # -- StreamDecoder -------------------------------------------------

    def feed(self, event: WireEvent) -> list[ProviderEvent]:
        data = event.data
        assembler = self._assembler
        if assembler.ended or not isinstance(data, dict):
            # `data: [DONE]` (if the host passes it on), or anything after the end.
            return []
        events = assembler.start()
        error = data.get("error")
        if error:
            events.extend(self.fail(StopReason.ERROR, error_text(error)))
            return events
        # The response's id (its first) and model (its last), read here: every chunk passes.
        if assembler.response_id is None:
            response_id = data.get("id")
            if isinstance(response_id, str) and response_id:
                assembler.response_id = response_id
        model = data.get("model")
        if isinstance(model, str) and model:
            assembler.response_model = model
        # Most chunks carry no usage: the lookups are asked first, the reading only of what is there.
        wire_usage, groq = data.get("usage"), data.get("x_groq")
        if wire_usage is not None or groq is not None:
            usage = usage_from_wire(wire_usage)
            if usage is None and isinstance(groq, dict):
                usage = usage_from_wire(groq.get("usage"))
            if usage is not None:
                assembler.usage = usage
        choices = data.get("choices")
        if isinstance(choices, list):
            self._saw_choices = True
        for choice in choices or ():
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict):
                self._on_delta(delta, events)
            else:
                message = choice.get("message")
                if isinstance(message, dict):
                    self._on_delta(message, events, whole=True)
            reason = choice.get("finish_reason")
            if isinstance(reason, str) and reason:
                self._finish_reason = reason
        return events

    def finish(self) -> list[ProviderEvent]:
        if self._assembler.ended:
            return []
        events = self._close_through(None)
        raw = self._finish_reason
        if not self._saw_choices:
            self._violation = (
                "openai-completions: the response carried no 'choices'; "
                "check that the base URL points at a Chat Completions endpoint"
            )
        if self._violation is not None:
            events.extend(self._assembler.finish(StopReason.ERROR, raw, self._violation))
            return events
        if raw is None:
            # Some compatible servers never send a finish reason.
            stop = StopReason.TOOL_USE if self._calls else StopReason.STOP
        else:
            stop = _FINISH_REASONS.get(raw, StopReason.STOP)
        if self._refused and stop is StopReason.STOP:
            stop = StopReason.REFUSAL
        message = None
        if stop is StopReason.ERROR:
            message = "openai-completions: the server ended the response with finish_reason 'error'"
        events.extend(self._assembler.finish(stop, raw, message))
        return events

    def fail(self, stop_reason: StopReason, error_message: str) -> list[ProviderEvent]:
        if self._assembler.ended:
            return []
        events = self._close_through(None)
        events.extend(self._assembler.fail(stop_reason, error_message))
        return events

    # -- deltas --------------------------------------------------------

    def _on_delta(self, delta: dict[str, Any], events: list[ProviderEvent], whole: bool = False) -> None:
        """Read one delta, adding its events to ``events``.

        ``whole``: ``delta`` is a whole message, read as one big delta whose
        tool calls are indexed by their position (a message's calls carry no index).
        """
        for name in self._reasoning_fields:
            reasoning = delta.get(name)
            if isinstance(reasoning, str) and reasoning:
                events.extend(self._thinking_delta(reasoning))
                break
        content = delta.get("content")
        if isinstance(content, list):
            # A few compatible servers send content as parts even in responses.
            content = "".join(
                part.get("text") or ""
                for part in content
                if isinstance(part, dict) and part.get("type") == "text"
            )
        if isinstance(content, str) and content:
            events.extend(self._text_delta(content))
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            self._refused = True
            events.extend(self._text_delta(refusal))
        tool_calls = delta.get("tool_calls")
        if isinstance(tool_calls, list):
            if whole:
                for position, call in enumerate(tool_calls):
                    if isinstance(call, dict):
                        self._tool_call_delta(call, position, events)
            else:  # a chunk's few calls, each with the index the wire gave it
                for call in tool_calls:
                    if isinstance(call, dict):
                        self._tool_call_delta(call, call.get("index"), events)
        legacy = delta.get("function_call")
        if isinstance(legacy, dict):
            self._tool_call_delta({"function": legacy}, _LEGACY_CALL, events)

    def _text_delta(self, text: str) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        if self._text is None:
            events.extend(self._close_through(None))
            self._text, started = self._assembler.start_block("text")
            events.extend(started)
        events.extend(self._assembler.delta(self._text, text))
        return events

    def _thinking_delta(self, text: str) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        if self._thinking is None:
            events.extend(self._close_through(None))
            self._thinking, started = self._assembler.start_block("thinking")
            events.extend(started)
        events.extend(self._assembler.delta(self._thinking, text))
        return events

    def _tool_call_delta(self, wire: dict[str, Any], index: Any, events: list[ProviderEvent]) -> None:
        """One call's delta, its events added to ``events``; ``index``: the wire's index of the call (anything,
        as the wire sent it)."""
        function = wire.get("function")
        function = function if isinstance(function, dict) else {}
        call_id = given_id if isinstance(given_id := wire.get("id"), str) else ""
        name = given_name if isinstance(given_name := function.get("name"), str) else ""
        arguments = function.get("arguments")
        key = index if type(index) is int else self._call_key(index, call_id, name)
        call = self._calls.get(key)
        if call is None:
            # Text and reasoning end where tool calls begin.
            if self._text is not None or self._thinking is not None:
                for index in (self._text, self._thinking):
                    if index is not None:
                        events.extend(self._close_through(index))
            block, started = self._assembler.start_block("tool_use", id=call_id or None, name=name)
            call = _Call(block, len(self._calls), call_id, name)
            self._calls[key] = call
            self._by_block[block] = call
            events.extend(started)
        else:
            # Some servers repeat the id and name in every delta: never concatenate them.
            call.id = call.id or call_id
            call.name = call.name or name
        self._last_call = key
        if isinstance(arguments, str) and arguments:
            if call.closed:
                self._violation = (
                    f"openai-completions: argument text for tool call {call.name or key!r} "
                    "arrived after the call was closed by later content"
                )
                return
            call.arguments.append(arguments)
            events.extend(self._assembler.delta(call.block, arguments))

    def _call_key(self, index: Any, call_id: str, name: str) -> int:
        if isinstance(index, int) and not isinstance(index, bool):
            return index
        # No index (a few compatible servers): an id names its call; a new id
        # or name starts a call; a bare argument delta continues the last one.
        if call_id:
            for key, call in self._calls.items():
                if call.id == call_id:
                    return key
        if (call_id or name) or self._last_call is None:
            return max((key for key in self._calls if key >= 0), default=-1) + 1
        return self._last_call

    def _close_through(self, last: int | None) -> list[ProviderEvent]:
        """End every open block up to and including index ``last`` (all when ``None``),
        in index order, so content order stays the order blocks opened."""
        events: list[ProviderEvent] = []
        for index in self._assembler.open_blocks():
            if last is not None and index > last:
                break
            call = self._by_block.get(index)
            if call is not None:
                call.closed = True
                self._assembler.update(
                    index, id=call.id or self._synthesized_id(call), name=call.name
                )
            elif index == self._text:
                self._text = None
            elif index == self._thinking:
                self._thinking = None
            events.extend(self._assembler.end_block(index))
        return events

    def _synthesized_id(self, call: _Call) -> str:
        # Derived from the request (its salt) and the call itself, never from a
        # counter, so the streamed and the whole response get the same id.
        seed = f"{self._id_salt}\x00{call.ordinal}\x00{call.name}\x00{''.join(call.arguments)}"
        return "call_" + hashlib.sha256(seed.encode("utf-8")).hexdigest()[:24]

