"""Canonical request -> OpenAI Chat Completions request body.

Wire decisions (documented in ``docs/providers.md``):

* One ``role: tool`` message per canonical tool result, keyed by
  ``tool_call_id``, in transcript order.
* ``is_error`` has no field on this wire: an error result's text is sent as
  ``"Error: " + text`` (:data:`ERROR_PREFIX`), so the model can tell a failed
  call from a successful one.
* A ``role: tool`` message carries text only. Images from tool results are
  sent in one ``user`` message right after the run of tool messages (a user
  message between two tool messages would orphan the later ones).
* Assistant tool calls replay ``ToolUseBlock.arguments`` byte for byte as the
  ``function.arguments`` string: re-encoding would change the text the model
  is conditioned on and shift the provider's prompt-cache prefix. The one
  exception is a call without argument text (``null`` or ``""`` on the wire,
  or blank from another wire): it is sent as ``"{}"``, because empty text is
  not a JSON object and the vendor refuses the replayed turn.
* ``tool_choice``: ``auto``, ``none``, ``required``, or
  ``{"type": "function", "function": {"name": ...}}`` for a tool's name; not
  sent when the request has no tools (OpenAI refuses a choice without tools;
  ``required`` or a name without tools is refused before sending).
* Sampling: ``temperature`` (0..2), ``top_p``, ``stop`` (at most 4 on
  OpenAI), ``seed``; ``top_k`` only where the compatibility profile has it.
* Structured output: ``output_schema`` -> ``response_format``
  ``{"type": "json_schema", "json_schema": {name, schema, strict}}``, strict
  when the schema meets OpenAI's strict rules, for the rows that say
  ``structured_output``.
* Thinking blocks are not sent. Chat Completions has no field for reasoning
  in a request, and DeepSeek answers 400 when ``reasoning_content`` is
  echoed back.

The body is sent as ``bytes`` of JSON, serialized the way the host would
(UTF-8, compact separators, no NaN), so that a turn costs nearly the same at
any depth: each tool definition (keyed by the identity of its
:class:`ToolSpec`, which the host reuses across turns) and each message
(keyed by its identity; history messages are never edited in place, the host
replaces them) is serialized once, and per session the transcript encoded
last time is kept, so a request that extends it serializes only the new
messages. Parse ``WireRequest.body`` to inspect it.
"""

from __future__ import annotations

import functools
import hashlib
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
    ToolResultMessage,
    ToolSpec,
    ToolUseBlock,
    UserContent,
    UserMessage,
    WireRequest,
)
from agentkit.plugin_api.codec import (
    PLAIN_TEXT,
    IdentityCache,
    SamplingRules,
    ToolChoice,
    TranscriptEncoder,
    array,
    document_text,
    dumps,
    file_data_url,
    image_url,
    inline_file,
    is_strict,
    output_name,
    sampling,
    structured_output,
    tool_choice,
)
from agentkit.plugin_api.errors import ProviderError

from ._catalog import API
from ._compat import CompatProfile

#: Prepended to the text of a tool result whose ``is_error`` is set.
ERROR_PREFIX = "Error: "
#: Sent as a tool message's text when the result had only images.
IMAGES_ATTACHED = "(the result is the image(s) in the next user message)"
#: Longest ``prompt_cache_key`` OpenAI accepts.
PROMPT_CACHE_KEY_LIMIT = 64

class _Encoded:
    """A transcript as far as it was encoded: its serialized wire messages, joined with
    commas, and tool-result image parts not yet flushed into a user message.

    Kept joined: each turn then copies the transcript's bytes once, to extend
    them, instead of joining one piece per message (a join pays per piece far
    more than per byte), and the body takes them as one piece.

    A plain class, like :class:`_Parts`: a ``@dataclass`` writes and compiles its methods
    when the module is imported, which a provider's import pays for every process.
    """

    __slots__ = ("joined", "pending_images")

    def __init__(self, joined: bytes = b"", pending_images: tuple[dict[str, Any], ...] = ()) -> None:
        self.joined = joined
        self.pending_images = pending_images


class _Parts:
    """One canonical message on the wire: a serialized message (``None``: nothing
    to send) and, for a tool result, image parts that travel in a later user message."""

    __slots__ = ("images", "wire")

    def __init__(self, wire: bytes | None, images: tuple[dict[str, Any], ...] = ()) -> None:
        self.wire = wire
        self.images = images


# Body fields written around the serialized messages and tools; extra_body may not replace them.
_ASSEMBLED = frozenset({"model", "messages", "tools"})


class CompletionsEncoder:
    """Builds request bodies; one per provider object, holding its caches.

    Three caches keep a turn's cost nearly independent of the transcript's
    depth: serialized tool definitions by :class:`ToolSpec` identity, each
    message's serialized wire form by message identity, and per session (keyed
    by the identity of its first message) the last encoded transcript, so a
    request that extends it only serializes what is new.
    """

    def __init__(self) -> None:
        self.tools: IdentityCache[bytes] = IdentityCache(1024)
        self.messages: IdentityCache[_Parts] = IdentityCache(16384)
        # One transcript encoder per tool-call id limit: the limit changes the wire ids.
        self._transcripts: dict[int | None, TranscriptEncoder[_Encoded]] = {}
        # The system prompt, the same text every turn (often the longest message), serialized once.
        self._system: tuple[str, str, bytes] = ("", "", b"")
        # The sampling rules of the profile used last (a profile is immutable), made once.
        self._rules: tuple[CompatProfile, SamplingRules] | None = None

    def encode(self, request: ProviderRequest, profile: CompatProfile) -> WireRequest:
        rules = self._rules
        if rules is None or rules[0] is not profile:  # the same profile object every turn of a model
            self._rules = rules = (profile, _sampling_rules(profile))
        rest = _settings(request, profile, rules[1])
        extra = request.options.get("extra_body") or {}
        rest.update({key: value for key, value in extra.items() if key not in _ASSEMBLED})
        parts = [b'{"model":', dumps(extra.get("model", request.model.id))]
        messages = extra.get("messages")
        if messages is not None:
            parts += [b',"messages":', dumps(messages)]
        else:
            # One join for the whole body: the transcript is its largest part, and one piece.
            parts.append(b',"messages":[')
            for index, item in enumerate(self._messages(request, profile)):
                if index:
                    parts.append(b",")
                parts.append(item)
            parts.append(b"]")
        if "tools" in extra:
            parts += [b',"tools":', dumps(extra["tools"])]
        elif request.tools:
            strict = bool(request.options.get("strict_tools")) and profile.supports_strict_tools
            tools = [self.tools.get(spec, partial(_tool, spec, strict), strict) for spec in request.tools]
            parts += [b',"tools":', *array(tools)]
        if rest:
            parts += [b",", dumps(rest)[1:-1]]
        parts.append(b"}")
        return WireRequest(
            path="/chat/completions",
            body=b"".join(parts),
            framing="sse" if request.stream else "json",
        )

    def _messages(self, request: ProviderRequest, profile: CompatProfile) -> list[bytes]:
        """The message array's items, each serialized: the system prompt, the transcript's
        messages already joined with commas, pending images."""
        id_limit = profile.max_tool_call_id_length
        transcript = self._transcripts.get(id_limit)
        if transcript is None:
            transcript = self._transcripts.setdefault(
                id_limit,
                TranscriptEncoder(partial(self._extend, id_limit=id_limit)),
            )
        encoded = transcript.encode(request.messages)
        out = []
        if request.system:
            developer = profile.supports_developer_role and bool(request.model.reasoning_levels)
            role = "developer" if developer else "system"
            out.append(self._system_message(role, request.system))
        if encoded.joined:
            out.append(encoded.joined)
        if encoded.pending_images:
            out.append(dumps({"role": "user", "content": list(encoded.pending_images)}))
        return out

    def _system_message(self, role: str, text: str) -> bytes:
        kept_role, kept_text, wire = self._system
        if role != kept_role or text != kept_text:
            wire = dumps({"role": role, "content": text})
            self._system = (role, text, wire)
        return wire

    def _extend(self, done: _Encoded | None, new: Sequence[Message], id_limit: int | None) -> _Encoded:
        wire = [done.joined] if done is not None and done.joined else []
        pending = list(done.pending_images) if done else []
        cache = self.messages
        for message in new:
            if pending and not isinstance(message, ToolResultMessage):
                wire.append(dumps({"role": "user", "content": pending}))
                pending = []
            if done is None:  # from the start: messages encoded before are looked up
                parts = cache.get(message, partial(_message, message, id_limit), id_limit)
            else:
                # Past a kept transcript, the messages appended since: never encoded, so not looked
                # up; kept for a transcript rewritten later (an encoding depends on the message only).
                parts = _message(message, id_limit)
                cache.put(message, parts, id_limit)
            if parts.wire is not None:
                wire.append(parts.wire)
            pending.extend(parts.images)
        return _Encoded(b",".join(wire), tuple(pending))


def _settings(request: ProviderRequest, profile: CompatProfile, rules: SamplingRules) -> dict[str, Any]:
    """Every body field but the model, the messages and the tools, in wire order."""
    body: dict[str, Any] = {}
    choice = tool_choice(request)
    if choice is not None and request.tools:
        # OpenAI answers 400 to a tool_choice without tools ("only allowed
        # when 'tools' are specified"); with no tools none is the only outcome.
        body["tool_choice"] = _tool_choice(choice)
    if request.max_tokens is not None:
        body[profile.max_tokens_field] = request.max_tokens
    body.update(sampling(request, rules))
    schema = structured_output(request, API)
    if schema is not None:
        # strict only where the schema meets OpenAI's strict rules, which it would otherwise refuse
        body["response_format"] = {"type": "json_schema", "json_schema": {
            "name": output_name(schema), "schema": schema, "strict": is_strict(schema)}}
    if request.reasoning is not None:
        if profile.reasoning_effort_style == "reasoning_effort":
            body["reasoning_effort"] = request.reasoning
        elif profile.reasoning_effort_style == "openrouter":
            body["reasoning"] = {"effort": request.reasoning}
    if request.session_id and profile.supports_prompt_cache_key:
        body["prompt_cache_key"] = request.session_id[:PROMPT_CACHE_KEY_LIMIT]
    body["stream"] = request.stream
    if request.stream and profile.supports_stream_usage:
        body["stream_options"] = {"include_usage": True}
    return body


def _message(message: Message, id_limit: int | None) -> _Parts:
    """The wire form of one message."""
    # The most frequent kind first: a turn of tool calls adds one result per call.
    if isinstance(message, ToolResultMessage):
        tool, images = _tool_result(message, id_limit)
        return _Parts(dumps(tool), images)
    if isinstance(message, AssistantMessage):
        wire = _assistant(message, id_limit)
        return _Parts(None if wire is None else dumps(wire))
    if isinstance(message, UserMessage):
        return _Parts(dumps(_user(message)))
    raise TypeError(f"openai-completions cannot encode a {type(message).__name__}")


def _user(message: UserMessage) -> dict[str, Any]:
    content = message.content
    if len(content) == 1 and isinstance(content[0], TextBlock):
        # A plain string is what every compatible server accepts.
        return {"role": "user", "content": content[0].text}
    return {"role": "user", "content": [_part(block) for block in content]}


def _part(block: UserContent) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, DocumentBlock):
        inline_file(block, "openai-completions")  # Chat's file part takes the bytes, never a URL
        if block.mime_type == PLAIN_TEXT:  # a file part takes PDFs: a text document is sent as its text
            return {"type": "text", "text": document_text(block)}
        return {"type": "file", "file": {"file_data": file_data_url(block), "filename": block.name or "document.pdf"}}
    if isinstance(block, AudioBlock):
        inline_file(block, "openai-completions")
        if block.mime_type not in _AUDIO_FORMAT:
            raise ProviderError(f"openai-completions takes WAV and MP3 audio, not {block.mime_type or 'untyped'}")
        return {"type": "input_audio", "input_audio": {"data": block.data, "format": _AUDIO_FORMAT[block.mime_type]}}
    return {"type": "image_url", "image_url": {"url": image_url(block)}}


#: An admitted recording's MIME type -> the ``input_audio.format`` the wire names it by.
_AUDIO_FORMAT = {"audio/wav": "wav", "audio/mpeg": "mp3"}


def _assistant(message: AssistantMessage, id_limit: int | None) -> dict[str, Any] | None:
    text = "".join(block.text for block in message.content if isinstance(block, TextBlock))
    calls = [block for block in message.content if isinstance(block, ToolUseBlock)]
    if not text and not calls:
        # Only thinking (not sent) or nothing at all: no wire message.
        return None
    wire: dict[str, Any] = {"role": "assistant"}
    if text:
        # Without text the key is left out, which the spec allows next to tool
        # calls; some compatible servers fail on an explicit null.
        wire["content"] = text
    if calls:
        wire["tool_calls"] = [
            {
                "id": wire_tool_call_id(call.id, id_limit),
                "type": "function",
                "function": {"name": call.name, "arguments": _replayed_arguments(call)},
            }
            for call in calls
        ]
    return wire


def _replayed_arguments(call: ToolUseBlock) -> str:
    return call.arguments if call.arguments.strip() else "{}"


def _tool_result(
    message: ToolResultMessage, id_limit: int | None
) -> tuple[dict[str, Any], tuple[dict[str, Any], ...]]:
    content = message.content
    if len(content) == 1 and type(content[0]) is TextBlock:  # nearly every result: its envelope's text alone
        text, images = content[0].text, []
    else:
        text = "".join(block.text for block in content if isinstance(block, TextBlock))
        images = [_part(block) for block in content if isinstance(block, ImageBlock)]
    if images and not text:
        text = IMAGES_ATTACHED
    if message.is_error:
        text = ERROR_PREFIX + text
    wire_id = wire_tool_call_id(message.tool_use_id, id_limit)
    tool = {"role": "tool", "tool_call_id": wire_id, "content": text}
    if not images:
        return tool, ()
    label = {"type": "text", "text": f"Image(s) from tool call {wire_id} ({message.tool_name}):"}
    return tool, (label, *images)


def wire_tool_call_id(call_id: str, limit: int | None) -> str:
    """``call_id``, or a stable digest of it when the wire's length limit forbids it.

    The same canonical id always maps to the same wire id, so a call and its
    result still pair and the replayed prefix does not change between turns.
    """
    if limit is None or len(call_id) <= limit:
        return call_id
    digest = hashlib.sha256(call_id.encode("utf-8")).hexdigest()
    return ("call_" + digest)[:limit]


def _tool(spec: ToolSpec, strict: bool) -> bytes:
    function: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description,
        "parameters": dict(spec.input_schema),
    }
    if strict:
        function["strict"] = True
    return dumps({"type": "function", "function": function})


def _tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    if choice.mode == "tool":
        return {"type": "function", "function": {"name": choice.name}}
    return choice.mode


@functools.cache
def _sampling_rules(profile: CompatProfile) -> SamplingRules:
    fields = {"temperature": "temperature", "top_p": "top_p", "stop_sequences": "stop", "seed": "seed"}
    if profile.supports_top_k:
        fields["top_k"] = "top_k"
    return SamplingRules(f"openai-completions ({profile.name} profile)", fields,
                         max_stop_sequences=profile.max_stop_sequences)
