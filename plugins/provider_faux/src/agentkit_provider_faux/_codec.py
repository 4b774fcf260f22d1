"""The ``faux`` wire: a canonical request out, a simple JSON event stream back.

The request body is the canonical request as JSON, serialized with the codec
kit as the host would (``bytes``: per session only new messages are encoded). The response is SSE, one
JSON object per event::

    {"type": "message_start", "id": ..., "model": ...}
    {"type": "block_start", "kind": "text" | "thinking" | "tool_use", "id": ..., "name": ...}
    {"type": "delta", "text": ...}                     # for the open block
    {"type": "block_end", "signature": ..., "redacted": ...}
    {"type": "message_end", "stop_reason": ..., "raw_stop_reason": ..., "usage": {...}}
    {"type": "error", "message": ...}                  # ends the response as an error
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, ClassVar

from agentkit.plugin_api import (
    Message,
    MessageAssembler,
    ModelInfo,
    ProviderEvent,
    ProviderRequest,
    StopReason,
    ToolSpec,
    Usage,
    WireEvent,
    WireRequest,
)
from agentkit.plugin_api.codec import (
    SAMPLING_SETTINGS,
    CodecProvider,
    IdentityCache,
    SamplingRules,
    TranscriptEncoder,
    array,
    dumps,
    sampling,
    structured_output,
    tool_choice,
)

from ._conformance import FauxResponder

API = "faux"
#: The scripted wire carries every setting under its canonical name, so a test reads back what the host sent.
SAMPLING = SamplingRules("faux", {name: name for name in SAMPLING_SETTINGS})
CATALOG = (
    ModelInfo(
        vendor="faux",
        id="scripted",
        api=API,
        base_url="http://faux.invalid",
        context_window=200_000,
        max_output=32_000,
        image_input=True,
        document_input=True,  # with the default limits: a test of documents and audio needs no vendor
        audio_input=True,
        reasoning_levels=("low", "medium", "high"),
        default=True,
    ),
    # The same scripted model, taking a request's output_schema natively (see structured_output).
    ModelInfo(
        vendor="faux",
        id="structured",
        api=API,
        base_url="http://faux.invalid",
        context_window=200_000,
        max_output=32_000,
        structured_output=True,
    ),
)


def _message_json(message: Message) -> bytes:
    return dumps(message.to_dict())


def _tool_json(spec: ToolSpec) -> bytes:
    tool: dict[str, Any] = {"name": spec.name, "description": spec.description, "input_schema": spec.input_schema}
    if spec.deferred:
        tool["deferred"] = True
    return dumps(tool)


class FauxDecoder:
    """Decodes the faux event stream into the normative canonical event order."""

    def __init__(self, request: ProviderRequest) -> None:
        self.assembler = MessageAssembler(provider=request.model.vendor, api=API, model=request.model.id)
        self.index: int | None = None

    def feed(self, event: WireEvent) -> list[ProviderEvent]:
        data = event.data if isinstance(event.data, dict) else {}
        kind = data.get("type")
        a = self.assembler
        if kind == "message_start":
            a.response_id = data.get("id")
            a.response_model = data.get("model")
            return a.start()
        if kind == "block_start":
            self.index, events = a.start_block(data.get("kind", "text"), id=data.get("id"), name=data.get("name"))
            return events
        if kind == "delta" and self.index is not None:
            return a.delta(self.index, data.get("text", ""))
        if kind == "block_end" and self.index is not None:
            a.update(self.index, signature=data.get("signature"), redacted=data.get("redacted", False))
            index, self.index = self.index, None
            return a.end_block(index)
        if kind == "message_end":
            a.usage = Usage.from_dict(data.get("usage") or {})
            reason = data.get("stop_reason", "stop")
            return a.finish(StopReason(reason), data.get("raw_stop_reason", reason))
        if kind == "error":
            return a.fail(StopReason.ERROR, data.get("message", "error"))
        return []

    def finish(self) -> list[ProviderEvent]:
        if self.assembler.ended:
            return []
        return self.assembler.fail(StopReason.ERROR, "the response ended before message_end")

    def fail(self, stop_reason: StopReason, error_message: str) -> list[ProviderEvent]:
        return self.assembler.fail(stop_reason, error_message)


class FauxProvider(CodecProvider):
    """The scripted provider's codec. No credential, no network: see :class:`Script`."""

    api: ClassVar[str] = API
    #: Renders canonical responses as this wire's events, for the conformance suite.
    conformance_responder: ClassVar[FauxResponder] = FauxResponder()
    models = CATALOG

    def __init__(self) -> None:
        self._messages: IdentityCache[bytes] = IdentityCache(16384)
        self._tools: IdentityCache[bytes] = IdentityCache(1024)
        # A transcript only grows between turns: per session, only new messages are serialized.
        self._transcript: TranscriptEncoder[tuple[bytes, ...]] = TranscriptEncoder(self._extend)

    def _extend(self, done: tuple[bytes, ...] | None, new: Sequence[Message]) -> tuple[bytes, ...]:
        return (*(done or ()), *(self._messages.get(m, partial(_message_json, m)) for m in new))

    def encode(self, request: ProviderRequest) -> WireRequest:
        tool_choice(request)  # refused here as on every wire: a choice naming no tool
        settings = sampling(request, SAMPLING)
        head = {
            "model": request.model.id,
            "system": request.system,
            "max_tokens": request.max_tokens,
            "temperature": settings.pop("temperature", None),
            "tool_choice": request.tool_choice,
            "reasoning": request.reasoning,
            **settings,  # the other sampling settings, only those set
            **({"output_schema": schema} if (schema := structured_output(request, "faux")) is not None else {}),
            "stream": request.stream,
        }
        tools = [self._tools.get(spec, partial(_tool_json, spec)) for spec in request.tools]
        body = b"".join(
            [
                dumps(head)[:-1],
                b',"tools":', *array(tools),
                b',"messages":', *array(self._transcript.encode(request.messages)),
                b"}",
            ]
        )
        return WireRequest(path="/v1/script", body=body, headers={"x-faux-model": request.model.id}, framing="sse")

    def decoder(self, request: ProviderRequest) -> FauxDecoder:
        return FauxDecoder(request)

    def script(self, turns: list[Any], **options: Any) -> Any:
        """A :class:`Script` of ``turns``: the transport that plays them (``options``: :class:`Script`'s)."""
        from ._script import Script  # httpx loads only when a script is played

        return Script(turns, **options)
