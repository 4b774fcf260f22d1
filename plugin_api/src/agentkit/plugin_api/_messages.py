"""The canonical transcript: content blocks, messages, stop reasons and usage.

Every provider translates between these types and its wire format; the loop
and every tool see only these. Each type converts to and from a plain JSON
object (``to_dict`` / ``from_dict``) with a ``type`` or ``role`` discriminator,
so transcripts and events can be stored and sent as JSON.
"""

from __future__ import annotations

import base64
import json
import os
import time
from dataclasses import field
from typing import Any, Literal, TypeAlias

from ._dataclass import StrEnumBase, dataclass, str_enum


@str_enum  # the class statement's enum, made cheaper (see str_enum)
class StopReason(StrEnumBase):
    """Why an assistant message ended, in the vocabulary shared by every wire.

    The raw reason the wire sent is kept beside it on the message
    (:attr:`AssistantMessage.raw_stop_reason`) for reporting only: the loop
    never decides anything from either, except that ``ERROR`` and ``ABORTED``
    end a run early and ``LENGTH`` forbids executing the message's tool calls.
    """

    STOP = "stop"
    LENGTH = "length"
    TOOL_USE = "tool_use"
    STOP_SEQUENCE = "stop_sequence"
    REFUSAL = "refusal"
    ERROR = "error"
    ABORTED = "aborted"


@dataclass(slots=True)
class TextBlock:
    """Plain text from the user, the model or a tool."""

    text: str
    type: Literal["text"] = field(default="text", init=False)

    def to_dict(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@dataclass(slots=True)
class ImageBlock:
    """An image, carried as base64 ``data`` with its MIME type, or named by ``url`` or ``path``.

    ``url`` is an ``http(s)`` address (``data`` and ``mime_type`` are then
    empty): a wire that takes URLs gets it as it is, any other gets the image
    the host fetched, only when the embedder allows it. ``path`` names a file
    the host reads at the history boundary (relative to the workspace; from a
    tool, only inside it). The host normalizes every image before it enters
    the history (see :class:`~agentkit.plugin_api.codec.ImageLimits`), so a
    codec sees ``data`` or a ``url``, never a ``path``. Build one with
    :meth:`from_bytes`, :meth:`from_url` (``http(s)`` or ``data:`` URLs) or
    :meth:`from_path`.
    """

    data: str
    mime_type: str
    url: str | None = field(default=None, kw_only=True)
    path: str | None = field(default=None, kw_only=True)
    type: Literal["image"] = field(default="image", init=False)

    @classmethod
    def from_bytes(cls, data: bytes, mime_type: str = "") -> ImageBlock:
        """An image from its encoded bytes (a PNG, a JPEG file's content); the host finds the format."""
        return cls(base64.b64encode(data).decode("ascii"), mime_type)

    @classmethod
    def from_url(cls, url: str) -> ImageBlock:
        """An image at an ``http(s)`` URL, or the content of a ``data:`` URL (base64 only).

        :raises ValueError: another scheme, or a ``data:`` URL that is not base64.
        """
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        if scheme in ("http", "https"):
            return cls("", "", url=url)
        if scheme == "data":
            header, _, payload = url[5:].partition(",")
            media_type, *params = header.split(";")
            if "base64" not in params:
                raise ValueError("a data: URL image must be base64 (data:image/png;base64,...)")
            try:
                raw = base64.b64decode(payload, validate=True)
            except ValueError:
                raise ValueError("the data: URL's payload is not valid base64") from None
            return cls.from_bytes(raw, media_type.strip().lower())
        raise ValueError(f"an image URL must be http(s) or data:, not {url[:40]!r}")

    @classmethod
    def from_path(cls, path: str | os.PathLike[str]) -> ImageBlock:
        """An image file the host reads when the block enters the history (a relative path: in the workspace)."""
        return cls("", "", path=os.fspath(path))

    def to_dict(self) -> dict[str, Any]:
        data = {"type": "image", "data": self.data, "mime_type": self.mime_type}
        if self.url is not None:
            data["url"] = self.url
        if self.path is not None:
            data["path"] = self.path
        return data


def _file_from_url(url: str, kind: str) -> tuple[str, str, str | None]:
    """``(data, mime_type, url)`` of a document or audio URL: ``http(s)`` kept, ``data:`` decoded."""
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme in ("http", "https"):
        return "", "", url
    if scheme == "data":
        header, _, payload = url[5:].partition(",")
        media_type, *params = header.split(";")
        if "base64" not in params:
            raise ValueError(f"a data: URL {kind} must be base64 (data:application/pdf;base64,...)")
        try:
            base64.b64decode(payload, validate=True)
        except ValueError:
            raise ValueError("the data: URL's payload is not valid base64") from None
        return payload, media_type.strip().lower(), None
    raise ValueError(f"a {kind} URL must be http(s) or data:, not {url[:40]!r}")


@dataclass(slots=True)
class DocumentBlock:
    """A document (a PDF or plain text), carried as base64 ``data``, or named by ``url`` or ``path``.

    Like :class:`ImageBlock`: the host reads a ``path``, checks the bytes
    against the declared ``mime_type`` and the model's
    :attr:`~agentkit.plugin_api.ModelInfo.document_limits` once, at the
    history boundary, so a codec sees ``data`` (with the MIME type the bytes
    show) or an ``http(s)`` ``url`` its wire downloads itself. ``name`` is the
    file name a wire that asks for one is given. Build one with
    :meth:`from_bytes`, :meth:`from_url` or :meth:`from_path`.
    """

    data: str
    mime_type: str
    url: str | None = field(default=None, kw_only=True)
    path: str | None = field(default=None, kw_only=True)
    name: str | None = field(default=None, kw_only=True)
    type: Literal["document"] = field(default="document", init=False)

    @classmethod
    def from_bytes(cls, data: bytes, mime_type: str = "", *, name: str | None = None) -> DocumentBlock:
        """A document from its bytes (a PDF file's content, UTF-8 text); the host finds the type."""
        return cls(base64.b64encode(data).decode("ascii"), mime_type, name=name)

    @classmethod
    def from_url(cls, url: str, mime_type: str = "", *, name: str | None = None) -> DocumentBlock:
        """A document at an ``http(s)`` URL (sent only to wires that download it), or a ``data:`` URL.

        :raises ValueError: another scheme, or a ``data:`` URL that is not base64.
        """
        data, declared, address = _file_from_url(url, "document")
        return cls(data, declared or mime_type, url=address, name=name)

    @classmethod
    def from_path(cls, path: str | os.PathLike[str], mime_type: str = "") -> DocumentBlock:
        """A document file the host reads when the block enters the history (a relative path: in the workspace)."""
        return cls("", mime_type, path=os.fspath(path), name=os.path.basename(os.fspath(path)))

    def to_dict(self) -> dict[str, Any]:
        data = {"type": "document", "data": self.data, "mime_type": self.mime_type}
        for key in ("url", "path", "name"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


@dataclass(slots=True)
class AudioBlock:
    """A sound recording (WAV, MP3, ...), carried as base64 ``data``, or named by ``url`` or ``path``.

    Admitted by the host like a :class:`DocumentBlock`, against the model's
    :attr:`~agentkit.plugin_api.ModelInfo.audio_limits`.
    """

    data: str
    mime_type: str
    url: str | None = field(default=None, kw_only=True)
    path: str | None = field(default=None, kw_only=True)
    type: Literal["audio"] = field(default="audio", init=False)

    @classmethod
    def from_bytes(cls, data: bytes, mime_type: str = "") -> AudioBlock:
        """A recording from its bytes (a WAV or MP3 file's content); the host finds the format."""
        return cls(base64.b64encode(data).decode("ascii"), mime_type)

    @classmethod
    def from_url(cls, url: str, mime_type: str = "") -> AudioBlock:
        """A recording at an ``http(s)`` URL (sent only to wires that download it), or a ``data:`` URL.

        :raises ValueError: another scheme, or a ``data:`` URL that is not base64.
        """
        data, declared, address = _file_from_url(url, "audio")
        return cls(data, declared or mime_type, url=address)

    @classmethod
    def from_path(cls, path: str | os.PathLike[str], mime_type: str = "") -> AudioBlock:
        """A sound file the host reads when the block enters the history (a relative path: in the workspace)."""
        return cls("", mime_type, path=os.fspath(path))

    def to_dict(self) -> dict[str, Any]:
        data = {"type": "audio", "data": self.data, "mime_type": self.mime_type}
        for key in ("url", "path"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


#: What a user message may hold: text, images, documents and audio.
UserContent: TypeAlias = TextBlock | ImageBlock | DocumentBlock | AudioBlock


@dataclass(slots=True)
class ToolUseBlock:
    """A tool call the model made.

    ``arguments`` is the argument text exactly as the model produced it. It is
    what goes back on the wire when the transcript is replayed, byte for byte:
    re-serializing a parsed object would reorder keys and change spacing, which
    shifts the provider's prompt-cache prefix.
    """

    id: str
    name: str
    arguments: str
    type: Literal["tool_use"] = field(default="tool_use", init=False)

    def parsed_arguments(self) -> Any:
        """The arguments as JSON values; raises ``ValueError`` when they are not JSON."""
        return json.loads(self.arguments) if self.arguments.strip() else {}

    def arguments_object(self) -> dict[str, Any]:
        """The arguments as the JSON object a wire that carries objects sends back, key order kept.

        ``{}`` when the text is empty, not JSON, not an object, or could not be
        written back as JSON: ``NaN``, ``Infinity``, a number past a float, or
        nesting deeper than :data:`MAX_REPLAYED_DEPTH`. The loop answered such a
        call with an error already; replaying its text as it is would make every
        later request of the session fail to encode.
        """
        if not self.arguments.strip():
            return {}
        try:
            value = json.loads(self.arguments)
            if not isinstance(value, dict) or not _nested_within(value, MAX_REPLAYED_DEPTH):
                return {}
            json.dumps(value, allow_nan=False)
        except (ValueError, RecursionError):
            return {}
        return value

    def to_dict(self) -> dict[str, Any]:
        return {"type": "tool_use", "id": self.id, "name": self.name, "arguments": self.arguments}


#: The deepest nesting of replayed arguments (no tool schema needs more; the
#: recursion limit of ``json`` is about a thousand).
MAX_REPLAYED_DEPTH = 256


def _nested_within(value: Any, limit: int) -> bool:
    """Whether no list or object in ``value`` is nested deeper than ``limit``, without recursion."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return False
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return True


@dataclass(slots=True)
class ThinkingBlock:
    """Model reasoning, with the provider's signature when it sent one.

    ``redacted`` marks reasoning the provider returned only in encrypted form
    (kept in ``signature``) so that it can be replayed untouched.
    """

    thinking: str
    signature: str | None = None
    redacted: bool = False
    type: Literal["thinking"] = field(default="thinking", init=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "thinking",
            "thinking": self.thinking,
            "signature": self.signature,
            "redacted": self.redacted,
        }


ContentBlock: TypeAlias = TextBlock | ImageBlock | ToolUseBlock | ThinkingBlock | DocumentBlock | AudioBlock


def block_from_dict(data: dict[str, Any]) -> ContentBlock:
    """Rebuild a content block from :meth:`to_dict` output."""
    kind = data.get("type")
    if kind == "text":
        return TextBlock(data["text"])
    if kind == "image":
        return ImageBlock(data["data"], data["mime_type"], url=data.get("url"), path=data.get("path"))
    if kind == "document":
        return DocumentBlock(data["data"], data["mime_type"], url=data.get("url"), path=data.get("path"),
                             name=data.get("name"))
    if kind == "audio":
        return AudioBlock(data["data"], data["mime_type"], url=data.get("url"), path=data.get("path"))
    if kind == "tool_use":
        return ToolUseBlock(data["id"], data["name"], data["arguments"])
    if kind == "thinking":
        return ThinkingBlock(data["thinking"], data.get("signature"), bool(data.get("redacted")))
    raise ValueError(f"unknown content block type {kind!r}")


@dataclass(slots=True)
class Usage:
    """Token counts and cost of one response, or the sum of several.

    ``input`` excludes cached tokens on every wire (providers net them out
    once); ``reasoning`` is a part of ``output``, never added to it;
    ``cache_write_1h`` (tokens written to a one-hour cache, priced at the
    row's ``cache_write_1h_price``) is likewise a part of ``cache_write``.
    ``cost`` is in US dollars; ``None`` when it is unknown (a model whose
    catalog row has no prices, see ``ModelInfo.priced``): a sum with an
    unknown cost is unknown, never a partial figure.
    """

    input: int = 0
    output: int = 0
    reasoning: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float | None = 0.0
    cache_write_1h: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input + other.input,
            self.output + other.output,
            self.reasoning + other.reasoning,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
            None if self.cost is None or other.cost is None else self.cost + other.cost,
            self.cache_write_1h + other.cache_write_1h,
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "input": self.input,
            "output": self.output,
            "reasoning": self.reasoning,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "cost": self.cost,
        }
        if self.cache_write_1h:  # only then: records of wires without it stay as they were
            data["cache_write_1h"] = self.cache_write_1h
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Usage:
        if data.keys() <= _USAGE_FIELDS:  # what to_dict wrote: passed as it is (a resumed session reads thousands)
            return cls(**data)
        return cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})


_USAGE_FIELDS = frozenset(Usage.__dataclass_fields__)


def _now() -> float:
    return time.time()


@dataclass(slots=True)
class UserMessage:
    """What the user (or the embedder on their behalf) said: text, images, documents, audio."""

    content: list[UserContent]
    timestamp: float = field(default_factory=_now)
    role: Literal["user"] = field(default="user", init=False)

    @classmethod
    def text(cls, text: str) -> UserMessage:
        return cls([TextBlock(text)])

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": "user",
            "content": [block.to_dict() for block in self.content],
            "timestamp": self.timestamp,
        }


@dataclass(slots=True)
class AssistantMessage:
    """One model response, as complete as it got.

    A response that failed or was cancelled is still an assistant message:
    ``stop_reason`` is ``ERROR`` or ``ABORTED``, ``error_message`` says why and
    ``content`` keeps whatever arrived before the end.
    """

    content: list[ContentBlock]
    stop_reason: StopReason
    raw_stop_reason: str | None = None
    provider: str = ""
    api: str = ""
    model: str = ""
    response_model: str | None = None
    response_id: str | None = None
    usage: Usage = field(default_factory=Usage)
    error_message: str | None = None
    timestamp: float = field(default_factory=_now)
    role: Literal["assistant"] = field(default="assistant", init=False)

    @property
    def tool_calls(self) -> list[ToolUseBlock]:
        return [block for block in self.content if isinstance(block, ToolUseBlock)]

    @property
    def text(self) -> str:
        return "".join(block.text for block in self.content if isinstance(block, TextBlock))

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": "assistant",
            "content": [block.to_dict() for block in self.content],
            "stop_reason": self.stop_reason.value,
            "raw_stop_reason": self.raw_stop_reason,
            "provider": self.provider,
            "api": self.api,
            "model": self.model,
            "response_model": self.response_model,
            "response_id": self.response_id,
            "usage": self.usage.to_dict(),
            "error_message": self.error_message,
            "timestamp": self.timestamp,
        }


@dataclass(slots=True)
class ToolResultMessage:
    """The answer to exactly one tool call.

    The canonical transcript holds one of these per call, in call order;
    grouping several into one wire message is the concern of the providers
    whose wire asks for it.
    """

    tool_use_id: str
    tool_name: str
    content: list[TextBlock | ImageBlock]
    is_error: bool = False
    timestamp: float = field(default_factory=_now)
    role: Literal["tool_result"] = field(default="tool_result", init=False)

    @property
    def text(self) -> str:
        return "".join(block.text for block in self.content if isinstance(block, TextBlock))

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": "tool_result",
            "tool_use_id": self.tool_use_id,
            "tool_name": self.tool_name,
            "content": [block.to_dict() for block in self.content],
            "is_error": self.is_error,
            "timestamp": self.timestamp,
        }


Message: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage


def _user_side_content(content: list[ContentBlock], role: str) -> list[UserContent]:
    """``content`` if ``role`` may hold it: tool calls and thinking are the assistant's alone,
    documents and audio the user's."""
    plain: list[UserContent] = []
    allowed = (TextBlock, ImageBlock, DocumentBlock, AudioBlock) if role == "user" else (TextBlock, ImageBlock)
    for block in content:
        if not isinstance(block, allowed):
            raise ValueError(
                f"a {role} message cannot hold a {block.type!r} block; only "
                + ("text, image, document and audio blocks" if role == "user" else "text and image blocks")
            )
        plain.append(block)
    return plain


#: By value: a dict lookup where calling the enum costs a microsecond (a resumed session reads thousands).
_STOP_REASONS: dict[Any, StopReason] = {reason.value: reason for reason in StopReason}


def message_from_dict(data: dict[str, Any]) -> Message:
    """Rebuild a message from :meth:`to_dict` output; unknown keys are ignored."""
    role = data.get("role")
    content = [block_from_dict(block) for block in data.get("content", [])]
    timestamp = data["timestamp"] if "timestamp" in data else _now()  # the clock only when none was kept
    if role == "user":
        return UserMessage(_user_side_content(content, "user"), timestamp)
    if role == "assistant":
        return AssistantMessage(
            content,
            _STOP_REASONS.get(data["stop_reason"]) or StopReason(data["stop_reason"]),
            raw_stop_reason=data.get("raw_stop_reason"),
            provider=data.get("provider", ""),
            api=data.get("api", ""),
            model=data.get("model", ""),
            response_model=data.get("response_model"),
            response_id=data.get("response_id"),
            usage=Usage.from_dict(data.get("usage", {})),
            error_message=data.get("error_message"),
            timestamp=timestamp,
        )
    if role == "tool_result":
        return ToolResultMessage(
            data["tool_use_id"],
            data["tool_name"],
            _user_side_content(content, "tool_result"),  # type: ignore[arg-type]  # text and images only
            bool(data.get("is_error")),
            timestamp,
        )
    raise ValueError(f"unknown message role {role!r}")
