"""Canonical request -> Ollama ``POST /api/chat`` body.

Wire decisions (documented in ``docs/providers.md``, section *ollama-chat*):

* The system prompt is a first ``role: system`` message.
* Each canonical tool result becomes one ``role: tool`` message with
  ``tool_name`` and ``content``, in transcript order. **This wire has no
  tool-call id**: the server pairs results with calls by position, so the
  order of the canonical results (the host's repair pass guarantees one per
  call, right after the call) is what carries the pairing.
* ``is_error`` has no field on this wire: an error result's text is sent as
  ``"Error: " + text`` (:data:`ERROR_PREFIX`).
* Images travel in the message's ``images`` list as bare base64 (the server
  sniffs the format; the MIME type is not sent), on user and tool messages
  alike. Their place among the text blocks is lost: a message's text blocks
  are joined with a newline and its images follow.
* Tool calls replay ``ToolUseBlock.arguments`` parsed back into an object,
  key order kept: the wire takes ``arguments`` as an object, not a string.
  Text that is not a JSON object (a call cut off by the output limit, or
  from another wire) is sent as ``{}``.
* Thinking goes back in the assistant message's ``thinking`` field. Redacted
  thinking (another wire's opaque reasoning) is never sent.
* ``content`` is left out when empty: the server reads a missing one as
  ``""``, and the ``ollama`` SDK drops it the same way.
* The wire has no ``tool_choice``: ``auto`` sends the tools, ``none`` sends
  none (so no call can be made); ``required`` and a tool's name, which
  nothing on this wire can force, are refused with an error naming the wire.
* Sampling settings go in ``options``: ``temperature``, ``top_p``, ``top_k``,
  ``stop``, ``seed`` (and ``num_predict`` for the output limit); a setting on
  the request wins over the same option set through ``ProviderRequest.options``
  or the model row.
* An ``output_schema`` is ``format``, the JSON Schema the server constrains
  the answer to (every row: Ollama 0.5 and later take it for any model).

The body is ``bytes`` of JSON serialized the way the host serializes bodies,
built so that a turn costs nearly the same at any depth: each tool definition
is serialized once per :class:`ToolSpec` object, each message once per
message object, and per session (keyed by its first message) the transcript
encoded last is kept, so a request that extends it serializes only what is
new.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from agentkit.plugin_api import (
    AssistantMessage,
    AudioBlock,
    DocumentBlock,
    ImageBlock,
    Message,
    ProviderRequest,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolSpec,
    ToolUseBlock,
    UserContent,
    UserMessage,
    WireRequest,
)
from agentkit.plugin_api.codec import (
    IdentityCache,
    SamplingRules,
    TranscriptEncoder,
    array,
    dumps,
    inline_image,
    refusal,
    sampling,
    structured_output,
    tool_choice,
    unsendable,
)

PATH = "/api/chat"
SAMPLING = SamplingRules(
    "ollama-chat",
    {"temperature": "temperature", "top_p": "top_p", "top_k": "top_k", "stop_sequences": "stop", "seed": "seed"},
)
#: Prepended to the text of a tool result whose ``is_error`` is set.
ERROR_PREFIX = "Error: "
#: Joins the text blocks of one message: the wire has one ``content`` string.
TEXT_SEPARATOR = "\n"
#: Levels sent as themselves to a row whose ``options["think"]`` is ``"levels"``.
THINK_LEVELS = frozenset({"low", "medium", "high"})
_THINK_OFF = frozenset({"none", "off"})

# Request options copied into the wire's ``options`` object after num_predict/temperature.
_MODEL_OPTIONS = ("num_ctx", "seed", "top_k", "top_p", "min_p", "stop", "repeat_penalty")
# Body fields written by the codec; extra_body may not replace them.
_ASSEMBLED = frozenset({"model", "messages", "tools"})


class ChatEncoder:
    """Builds request bodies; one per provider object, holding its caches."""

    def __init__(self) -> None:
        self.tools: IdentityCache[bytes] = IdentityCache(1024)
        self.messages: IdentityCache[bytes] = IdentityCache(16384)
        # Per session, the serialized wire messages of the transcript encoded last.
        self.transcript: TranscriptEncoder[tuple[bytes, ...]] = TranscriptEncoder(self._extend)

    def encode(self, request: ProviderRequest) -> WireRequest:
        extra = request.options.get("extra_body") or {}
        messages = list(self.transcript.encode(request.messages))
        if request.system:
            messages.insert(0, dumps({"role": "system", "content": request.system}))
        parts = [b'{"model":', dumps(request.model.id), b',"messages":', *array(messages)]
        tools = _offered_tools(request)
        if tools:
            wire_tools = [self.tools.get(spec, partial(_tool, spec)) for spec in tools]
            parts += [b',"tools":', *array(wire_tools)]
        rest = _settings(request)
        rest.update({key: value for key, value in extra.items() if key not in _ASSEMBLED})
        if rest:
            parts += [b",", dumps(rest)[1:-1]]
        parts.append(b"}")
        return WireRequest(
            path=PATH,
            body=b"".join(parts),
            framing="ndjson" if request.stream else "json",
        )

    def _extend(self, done: tuple[bytes, ...] | None, new: Sequence[Message]) -> tuple[bytes, ...]:
        """The serialized messages after ``new``; a message that sends nothing adds none."""
        wire = [self.messages.get(message, partial(wire_message, message)) for message in new]
        return (*(done or ()), *(item for item in wire if item))


def _offered_tools(request: ProviderRequest) -> tuple[ToolSpec, ...]:
    """The tools to send. The wire has no ``tool_choice``: ``"none"`` sends no
    tools; a forcing choice is refused, since nothing on this wire can force a call."""
    choice = tool_choice(request)
    if choice is None or choice.mode == "auto":
        return tuple(request.tools)
    if choice.mode == "none":
        return ()
    what = "tool_choice='required'" if choice.mode == "required" else f"a forced tool (tool_choice={choice.name!r})"
    raise refusal("ollama-chat", what, "it has no tool_choice; use 'auto' or 'none', or a wire that forces calls")


def _settings(request: ProviderRequest) -> dict[str, Any]:
    """Every body field after the tools, in wire order."""
    body: dict[str, Any] = {}
    schema = structured_output(request, "ollama-chat")
    if schema is not None:
        body["format"] = schema
    think = _think(request)
    if think is not None:
        body["think"] = think
    options: dict[str, Any] = {}
    if request.max_tokens is not None:
        options["num_predict"] = request.max_tokens
    settings = sampling(request, SAMPLING)
    if "temperature" in settings:
        options["temperature"] = settings.pop("temperature")
    for name in _MODEL_OPTIONS:
        value = settings.pop(name, None)
        if value is None:
            value = request.options.get(name, request.model.options.get(name))
        if value is not None:
            options[name] = value
    options.update(settings)
    if options:
        body["options"] = options
    body["stream"] = request.stream
    keep_alive = request.options.get("keep_alive")
    if keep_alive is not None:
        body["keep_alive"] = keep_alive
    return body


def _think(request: ProviderRequest) -> bool | str | None:
    level = request.reasoning
    if level is None:
        return None
    if level in _THINK_OFF:
        return False
    if request.model.options.get("think") == "levels" and level in THINK_LEVELS:
        return level
    return True


def wire_message(message: Message) -> bytes:
    """One canonical message as wire bytes; ``b""`` when it sends nothing."""
    if isinstance(message, UserMessage):
        return dumps(_with_content({"role": "user"}, message.content))
    if isinstance(message, AssistantMessage):
        wire = _assistant(message)
        return b"" if wire is None else dumps(wire)
    if isinstance(message, ToolResultMessage):
        return dumps(_tool_result(message))
    raise TypeError(f"ollama-chat cannot encode a {type(message).__name__}")


def _with_content(
    wire: dict[str, Any], blocks: Sequence[UserContent], prefix: str = ""
) -> dict[str, Any]:
    for block in blocks:
        if isinstance(block, DocumentBlock | AudioBlock):  # /api/chat takes text and images only
            raise unsendable(block, "ollama-chat")
    text = TEXT_SEPARATOR.join(block.text for block in blocks if isinstance(block, TextBlock))
    text = prefix + text
    if text:
        wire["content"] = text
    images = [inline_image(block, "ollama-chat").data for block in blocks if isinstance(block, ImageBlock)]
    if images:
        wire["images"] = images
    return wire


def _assistant(message: AssistantMessage) -> dict[str, Any] | None:
    text = "".join(block.text for block in message.content if isinstance(block, TextBlock))
    thinking = "".join(
        block.thinking
        for block in message.content
        if isinstance(block, ThinkingBlock) and not block.redacted
    )
    calls = [block for block in message.content if isinstance(block, ToolUseBlock)]
    if not (text or thinking or calls):
        return None
    wire: dict[str, Any] = {"role": "assistant"}
    if text:
        wire["content"] = text
    if thinking:
        wire["thinking"] = thinking
    if calls:
        wire["tool_calls"] = [
            {"function": {"name": call.name, "arguments": call.arguments_object()}}
            for call in calls
        ]
    return wire


def wire_arguments(text: str) -> dict[str, Any]:
    """The argument object to replay for a call's argument text, key order kept.

    Only a JSON object can go on this wire; anything else (empty, cut off by
    the output limit, another type, or text that could not be written back as
    JSON) is sent as ``{}`` (see :meth:`ToolUseBlock.arguments_object`).
    """
    return ToolUseBlock("", "", text).arguments_object()


def _tool_result(message: ToolResultMessage) -> dict[str, Any]:
    wire: dict[str, Any] = {"role": "tool", "tool_name": message.tool_name}
    return _with_content(wire, message.content, ERROR_PREFIX if message.is_error else "")


def _tool(spec: ToolSpec) -> bytes:
    return dumps(
        {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": dict(spec.input_schema),
            },
        }
    )
