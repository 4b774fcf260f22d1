"""Ollama ``/api/chat`` response -> canonical events.

One decoder reads both shapes the host hands it: the streamed chunks (one
:class:`WireEvent` per NDJSON line) and a whole response (``stream: false``,
one event). A whole response is one chunk with ``done: true``, so both paths
build the same blocks, ids and argument text.

What it relies on (see ``docs/providers.md``, section *ollama-chat*):

* ``message.thinking`` and ``message.content`` are deltas when streamed;
  ``message.tool_calls`` holds whole calls, usually all in one chunk. Blocks
  open in arrival order; a tool call closes the text and thinking before it.
* **Arguments arrive as a JSON object.** The canonical argument text is that
  object serialized compactly, in the order the server sent its keys
  (:func:`argument_text`), the same on both paths.
* **The wire carries no tool-call id.** Each call gets one derived from the
  request (the model and the transcript length: the response's position) and
  the call's ordinal and name (:func:`synthesized_call_id`), never from a
  counter, so a streamed and a whole response give the same ids and a
  replayed transcript keeps matching its results.
* The line with ``done: true`` ends the message: ``done_reason`` ``stop`` is
  stop, ``length`` is length, anything else is kept raw and read as stop.
  Ollama says ``stop`` beside tool calls; the message then reports
  ``tool_use`` (the raw reason stays ``stop``). ``prompt_eval_count`` is
  input and ``eval_count`` output (thinking included; the wire reports no
  cached or reasoning counts).
* An ``error`` string inside a 200 body, as a line of the stream or as the
  whole body, ends the message with stop reason ``error`` and that text,
  keeping what arrived before it. A stream that ends without its ``done``
  line is an error too: the response is incomplete.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from agentkit.plugin_api import (
    MessageAssembler,
    ProviderEvent,
    StopReason,
    Usage,
    WireEvent,
)
from agentkit.plugin_api.codec import count

#: Marks thinking this wire produced. The host's send-time repair turns
#: unsigned thinking into plain text; Ollama takes its own thinking back as
#: is (in the ``thinking`` field), so its blocks carry this marker. Other
#: models never see it: for them the repair turns the block into text.
THINKING_SIGNATURE = "ollama-chat"

DONE_REASONS: dict[str, StopReason] = {
    "stop": StopReason.STOP,
    "length": StopReason.LENGTH,
}


def argument_text(arguments: Any) -> str:
    """The canonical argument text of a call whose ``arguments`` the server sent.

    An object (what Ollama sends) becomes compact JSON in the server's key
    order; a string (a server that sends text) is kept as it is; nothing is
    ``{}``.
    """
    if isinstance(arguments, str):
        return arguments
    if arguments is None:
        return "{}"
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))


def synthesized_call_id(salt: str, ordinal: int, name: str) -> str:
    """The id of the ``ordinal``-th call (from 0) of the response to the request ``salt`` names."""
    seed = f"{salt}\x00{ordinal}\x00{name}"
    return "call_" + hashlib.sha256(seed.encode("utf-8")).hexdigest()[:24]


def error_text(error: Any) -> str:
    """A one-line description of the server's ``error`` value."""
    if isinstance(error, dict):
        message = error.get("message")
        error = message if isinstance(message, str) and message else json.dumps(error)
    return f"the Ollama server reported an error: {error}"


class ChatDecoder:
    """The :class:`~agentkit.plugin_api.StreamDecoder` of one ``/api/chat`` response.

    :param id_salt: names the request, for :func:`synthesized_call_id`.
    """

    def __init__(self, *, provider: str, api: str, model: str, id_salt: str) -> None:
        self._assembler = MessageAssembler(provider=provider, api=api, model=model)
        self._id_salt = id_salt
        self._text: int | None = None
        self._thinking: int | None = None
        self._calls = 0

    # -- StreamDecoder -------------------------------------------------

    def feed(self, event: WireEvent) -> list[ProviderEvent]:
        data = event.data
        if self._assembler.ended or not isinstance(data, dict):
            return []
        events = self._assembler.start()
        error = data.get("error")
        if error:
            events.extend(self.fail(StopReason.ERROR, error_text(error)))
            return events
        model = data.get("model")
        if isinstance(model, str) and model:
            self._assembler.response_model = model
        message = data.get("message")
        if isinstance(message, dict):
            events.extend(self._on_message(message))
        if data.get("done") is True:
            events.extend(self._on_done(data))
        return events

    def finish(self) -> list[ProviderEvent]:
        # Only reached when no ``done`` line arrived: the stream was cut short.
        return self.fail(
            StopReason.ERROR,
            "ollama-chat: the response ended before its final line (done: true); "
            "it is incomplete, so retry the request",
        )

    def fail(self, stop_reason: StopReason, error_message: str) -> list[ProviderEvent]:
        if self._assembler.ended:
            return []
        return self._assembler.fail(stop_reason, error_message)

    # -- chunks --------------------------------------------------------

    def _on_message(self, message: dict[str, Any]) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        thinking = message.get("thinking")
        if isinstance(thinking, str) and thinking:
            if self._thinking is None:
                events.extend(self._close_all())
                self._thinking, started = self._assembler.start_block(
                    "thinking", signature=THINKING_SIGNATURE
                )
                events.extend(started)
            events.extend(self._assembler.delta(self._thinking, thinking))
        content = message.get("content")
        if isinstance(content, str) and content:
            if self._text is None:
                events.extend(self._close_all())
                self._text, started = self._assembler.start_block("text")
                events.extend(started)
            events.extend(self._assembler.delta(self._text, content))
        tool_calls = message.get("tool_calls")
        if isinstance(tool_calls, list):
            for call in tool_calls:
                if isinstance(call, dict):
                    events.extend(self._tool_call(call))
        return events

    def _tool_call(self, call: dict[str, Any]) -> list[ProviderEvent]:
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        name = given if isinstance(given := function.get("name"), str) else ""
        call_id = synthesized_call_id(self._id_salt, self._calls, name)
        self._calls += 1
        events = self._close_all()
        index, started = self._assembler.start_block("tool_use", id=call_id, name=name)
        events.extend(started)
        events.extend(self._assembler.delta(index, argument_text(function.get("arguments"))))
        events.extend(self._assembler.end_block(index))
        return events

    def _close_all(self) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        for index in self._assembler.open_blocks():
            events.extend(self._assembler.end_block(index))
        self._text = self._thinking = None
        return events

    def _on_done(self, data: dict[str, Any]) -> list[ProviderEvent]:
        prompt, output = count(data.get("prompt_eval_count")), count(data.get("eval_count"))
        if prompt or output:
            # Ollama reports no cached count: nothing to net out of the prompt.
            self._assembler.usage = Usage(input=prompt, output=output)
        raw = data.get("done_reason")
        raw = raw if isinstance(raw, str) and raw else None
        stop = DONE_REASONS.get(raw, StopReason.STOP) if raw is not None else StopReason.STOP
        if stop is StopReason.STOP and self._calls:
            stop = StopReason.TOOL_USE
        events = self._close_all()
        events.extend(self._assembler.finish(stop, raw))
        return events

