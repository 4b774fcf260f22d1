"""Canonical transcript -> the ``contents`` array of a Gemini request.

The wire rules:

* Roles are ``user`` and ``model``; a user message becomes a ``user`` content,
  an assistant message a ``model`` content, in transcript order.
* Tool results: the canonical transcript holds one message per call; this
  wire wants a batch (consecutive results) as ONE ``user`` content with one
  ``functionResponse`` part per result, in call order. Pairing is by position:
  ``{"name", "response"}``, plus ``id`` only when the call's id came from the
  wire (see ``_ids``). The response object is ``{"output": text}``, or
  ``{"error": text}`` when ``is_error`` is set (the two keys the API documents
  for function output and error details). Images in results follow the
  batch's ``functionResponse`` parts as ``inlineData`` parts of the same
  content, in result order.
* Tool-call arguments: ``functionCall.args`` is a JSON object, not text, so
  the canonical argument text is parsed (key order kept) and the host's
  serializer writes it back; decoding writes it compactly, so a transcript
  this wire produced round-trips byte for byte. Text that is not a JSON
  object (a call cut off by the token limit) is sent as ``{}``.
* Thought signatures are put back on the part they came with (see ``_ids``).
  Thinking from another wire is sent as text; its signature is meaningless
  here and is never sent.
* Empty text parts are rejected by the API and dropped, except an empty part
  that carries a signature. A model turn left with no parts is dropped, and
  the user contents on either side of it are joined into one (two user turns
  in a row would read as if the model had never been asked, and the API
  refuses them); so are two prompts in a row (a run that failed before the
  model answered leaves its prompt last). The function responses that answer
  a model turn stay a content of their own.
  A user message with no parts is still a user turn: it is sent as one blank
  text part, so an empty prompt never makes ``contents: []``, which the API
  refuses.

Cost per turn stays nearly flat with depth: each message's parts are
serialized once (keyed by object identity; the host reuses history messages
across turns), and per conversation the last encoded transcript is kept, so a
turn that extends it only serializes what is new.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from agentkit.plugin_api import (
    AssistantMessage,
    AudioBlock,
    DocumentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolUseBlock,
    UserMessage,
)
from agentkit.plugin_api.codec import (
    IdentityCache,
    TranscriptEncoder,
    array,
    dumps,
    inline_file,
    inline_image,
)
from agentkit.plugin_api.errors import ProviderError

from ._catalog import API
from ._ids import is_carrier, wire_id, wire_signature

Wire = dict[str, Any]


@dataclass(frozen=True, slots=True)
class _Parts:
    """One message's parts, serialized: ``main`` joined by commas (empty: none);
    for a tool result, ``images`` are the parts that follow its batch."""

    main: bytes
    images: bytes = b""


@dataclass(frozen=True, slots=True)
class _Content:
    """One ``contents`` entry: its role and its parts joined by commas."""

    role: bytes
    parts: bytes
    #: It answers function calls: it stays a content of functionResponse parts (and their images).
    answers: bool = False

    def wire(self) -> bytes:
        return b'{"role":"' + self.role + b'","parts":[' + self.parts + b"]}"


@dataclass(frozen=True, slots=True)
class _State:
    """A transcript as far as it was encoded: the closed contents serialized (the
    last one also unserialized, for a join), the open batch, and whether a
    dropped model turn lets the next content join the last one."""

    contents: tuple[bytes, ...] = ()
    last: _Content | None = None
    batch: tuple[_Parts, ...] = ()
    joins: bool = False


_BLANK_PROMPT = b'{"text":" "}'


class _Contents:
    """The ``contents`` being built: serialized entries and the last one's parts."""

    def __init__(self, wire: list[bytes], last: _Content | None) -> None:
        self.wire = wire
        self.last = last

    def add(self, content: _Content, *, joins: bool) -> None:
        """Append ``content``, or join it to the last one across a dropped model turn."""
        if joins and self.last is not None and self.last.role == content.role:
            content = _Content(content.role, self.last.parts + b"," + content.parts, self.last.answers)
            self.wire.pop()
        self.wire.append(content.wire())
        self.last = content


class Transcript:
    """Builds ``contents`` arrays; shared by every request of one provider object."""

    def __init__(self, *, message_cache_size: int = 16384, session_cache_size: int = 64) -> None:
        self._parts: IdentityCache[_Parts] = IdentityCache(message_cache_size)
        self._states: TranscriptEncoder[_State] = TranscriptEncoder(
            self._extend, max_sessions=session_cache_size
        )

    def encode(self, messages: Sequence[Message]) -> list[bytes]:
        """The serialized ``contents`` array, in pieces for the caller to join once
        (a deep transcript is large: every extra copy costs more than the encoding)."""
        state = self._states.encode(messages)
        contents = _Contents(list(state.contents), state.last)
        if state.batch:
            contents.add(_batch_content(state.batch), joins=state.joins)
        return array(contents.wire)

    def _extend(self, done: _State | None, new: Sequence[Message]) -> _State:
        kept = done or _State()
        batch, joins = list(kept.batch), kept.joins
        contents = _Contents(list(kept.contents), kept.last)
        for message in new:
            parts = self._parts.get(message, partial(_parts, message))
            if isinstance(message, ToolResultMessage):
                batch.append(parts)
                continue
            if batch:
                contents.add(_batch_content(batch), joins=joins)
                batch, joins = [], False
            if isinstance(message, AssistantMessage):
                if not parts.main:
                    joins = True
                    continue
                contents.add(_Content(b"model", parts.main), joins=joins)
            else:
                # A prompt joins a prompt before it (a run that failed before the model answered
                # leaves one last), never a content of function responses, which stays whole.
                after_prompt = contents.last is not None and not contents.last.answers
                contents.add(_Content(b"user", parts.main or _BLANK_PROMPT), joins=joins or after_prompt)
            joins = False
        return _State(tuple(contents.wire), contents.last, tuple(batch), joins)


def _batch_content(batch: Sequence[_Parts]) -> _Content:
    parts = [item.main for item in batch] + [item.images for item in batch if item.images]
    return _Content(b"user", b",".join(parts), answers=True)


def _parts(message: Message) -> _Parts:
    if isinstance(message, ToolResultMessage):
        return _Parts(dumps(function_response(message)), b",".join(map(dumps, _images(message))))
    if isinstance(message, UserMessage):
        return _Parts(b",".join(dumps(part) for part in user_parts(message.content)))
    if isinstance(message, AssistantMessage):
        return _Parts(b",".join(dumps(part) for part in model_parts(message)))
    raise TypeError(f"{API} cannot encode a {type(message).__name__}")


def user_parts(blocks: Sequence[Any]) -> list[Wire]:
    """The parts of user content: text (empty text dropped), ``inlineData`` images, documents and
    recordings (``fileData`` for a URL the API fetches)."""
    parts: list[Wire] = []
    for block in blocks:
        if isinstance(block, TextBlock):
            if block.text:
                parts.append({"text": block.text})
        elif isinstance(block, ImageBlock):
            parts.append(_inline(block))
        elif isinstance(block, DocumentBlock | AudioBlock):
            parts.append(_file(block))
        else:
            raise TypeError(f"{type(block).__name__} cannot appear in user content")
    return parts


def _inline(block: ImageBlock) -> Wire:
    # Gemini's fileData takes only Files API and Cloud Storage URIs: a web URL
    # image reaches it as bytes the host fetched.
    block = inline_image(block, API)
    return {"inlineData": {"mimeType": block.mime_type, "data": block.data}}


def _file(block: DocumentBlock | AudioBlock) -> Wire:
    if block.url and not block.path:  # a public or signed URL the API fetches itself
        if not block.mime_type:
            raise ProviderError(f"{API} needs the MIME type of the {block.type} at {block.url}; "
                                f"pass it: {type(block).__name__}.from_url(url, mime_type)")
        return {"fileData": {"mimeType": block.mime_type, "fileUri": block.url}}
    block = inline_file(block, API)
    return {"inlineData": {"mimeType": block.mime_type, "data": block.data}}


def function_response(message: ToolResultMessage) -> Wire:
    """The ``functionResponse`` part answering one call."""
    text = "".join(block.text for block in message.content if isinstance(block, TextBlock))
    response: Wire = {}
    call_id = wire_id(message.tool_use_id)
    if call_id is not None:
        response["id"] = call_id
    response["name"] = message.tool_name
    response["response"] = {"error" if message.is_error else "output": text}
    return {"functionResponse": response}


def _images(message: ToolResultMessage) -> list[Wire]:
    return [_inline(block) for block in message.content if isinstance(block, ImageBlock)]


def model_parts(message: AssistantMessage) -> list[Wire]:
    """The parts of a model turn, each thought signature back on its own part."""
    ours = message.api == API
    parts: list[Wire] = []
    # The part made from the previous block, which a signature carrier signs;
    # ``None`` when that block made no part.
    previous: Wire | None = None
    for block in message.content:
        part: Wire | None = None
        if isinstance(block, TextBlock):
            # Kept provisionally even when empty: a carrier may sign it next.
            part = {"text": block.text}
        elif isinstance(block, ToolUseBlock):
            call: Wire = {}
            call_id = wire_id(block.id)
            if call_id is not None:
                call["id"] = call_id
            call["name"] = block.name
            call["args"] = block.arguments_object()
            part = {"functionCall": call}
        elif isinstance(block, ThinkingBlock):
            if is_carrier(block):
                if ours and previous is not None and "thoughtSignature" not in previous:
                    previous["thoughtSignature"] = block.signature
                elif ours:
                    parts.append({"text": "", "thoughtSignature": block.signature})
                previous = None
                continue
            if block.redacted:
                previous = None
                continue  # opaque reasoning of another wire
            if ours:
                part = {"text": block.thinking, "thought": True}
                signature = wire_signature(block.signature)
                if signature:
                    part["thoughtSignature"] = signature
            elif block.thinking:
                part = {"text": block.thinking}
        elif isinstance(block, ImageBlock):
            part = _inline(block)
        if part is not None:
            parts.append(part)
        previous = part
    return [part for part in parts if not _empty_text(part)]


def _empty_text(part: Wire) -> bool:
    """An empty text or thought part that carries no signature: the API rejects it."""
    return "text" in part and not part["text"] and set(part) <= {"text", "thought"}

