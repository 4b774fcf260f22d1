"""Documents and recordings at the history boundary: read, checked and typed once, for the model's wire.

Every :class:`~agentkit.plugin_api.DocumentBlock` and
:class:`~agentkit.plugin_api.AudioBlock` that enters the history (in a prompt,
a steering or follow-up message) passes through :func:`admit_files` first:

* a model whose catalog row lacks ``document_input`` (``audio_input``)
  refuses the block, naming the model: a file is never dropped quietly;
* a ``path`` is read with a bounded read (never more than the wire's cap and
  one byte), and only when it names a regular file;
* an ``http(s)`` URL goes as it is to a wire that downloads it; any other
  wire refuses it: the host never fetches a file on a model's behalf;
* the bytes decide the type: ``%PDF-`` is a PDF, UTF-8 text without NUL is
  plain text, ``RIFF``/``WAVE``, ``ID3`` or an MPEG frame sync, ``fLaC``,
  ``OggS``... are recordings. A declared MIME type or a file extension that
  contradicts them is refused (a lying type), as is a file above the wire's
  cap or in a format the wire does not take.

Nothing is decompressed or parsed beyond the first bytes: a PDF's streams
are the model vendor's to read.
"""

from __future__ import annotations

import base64
import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

from agentkit.plugin_api import (
    AudioBlock,
    DocumentBlock,
    Message,
    ModelInfo,
    UserContent,
    UserMessage,
)
from agentkit.plugin_api.codec import (
    DEFAULT_AUDIO_LIMITS,
    DEFAULT_DOCUMENT_LIMITS,
    PDF,
    PLAIN_TEXT,
    FileLimits,
)

from ._carries import has_files
from .errors import FileInputError

#: The built-in wires that download a file by URL, for the refusal of the others.
URL_WIRES = {"document": "anthropic-messages (PDF), openai-responses, google-generative-ai",
             "audio": "google-generative-ai"}
#: A declared MIME type -> the one the bytes must show (aliases vendors and browsers use).
_ALIASES = {"audio/x-wav": "audio/wav", "audio/wave": "audio/wav", "audio/vnd.wave": "audio/wav",
            "audio/mp3": "audio/mpeg", "audio/x-flac": "audio/flac", "audio/x-aiff": "audio/aiff",
            "audio/x-aac": "audio/aac", "application/ogg": "audio/ogg"}
#: A file extension -> the type it claims.
_EXTENSIONS = {".pdf": PDF, ".txt": PLAIN_TEXT, ".wav": "audio/wav", ".mp3": "audio/mpeg",
               ".flac": "audio/flac", ".ogg": "audio/ogg", ".aac": "audio/aac", ".aiff": "audio/aiff"}
#: Wire names of the audio formats (OpenAI's ``input_audio.format``).
AUDIO_FORMAT_NAMES = {"audio/wav": "wav", "audio/mpeg": "mp3", "audio/flac": "flac", "audio/ogg": "ogg",
                      "audio/aac": "aac", "audio/aiff": "aiff"}

FileBlock = DocumentBlock | AudioBlock


def admit_file_messages(messages: Sequence[Message], model: ModelInfo, *, root: Path) -> list[Message]:
    """``messages`` with the documents and recordings of their user messages admitted (:func:`admit_files`)."""
    admitted: list[Message] = []
    for message in messages:
        if isinstance(message, UserMessage) and has_files([message]):
            message = dataclasses.replace(message, content=admit_files(message.content, model, root=root))
        admitted.append(message)
    return admitted


def admit_files(content: Sequence[UserContent], model: ModelInfo, *, root: Path) -> list[UserContent]:
    """``content`` with each document and recording checked and typed for ``model``; the rest as it is.

    :param root: the workspace relative paths are read from.
    :raises FileInputError: the model takes no such input, or a file cannot be
        read, lies about its type, is above the wire's cap or in a format the
        wire does not take; the one-line message names the file and the fix.
    """
    admitted: list[UserContent] = []
    for block in content:
        if isinstance(block, DocumentBlock | AudioBlock):
            block = _admit(block, model, root)
        admitted.append(block)
    return admitted


def _admit(block: FileBlock, model: ModelInfo, root: Path) -> FileBlock:
    kind = block.type
    able = model.document_input if kind == "document" else model.audio_input
    if not able:
        raise FileInputError(f"{model.key} does not take {kind} input (its catalog row has no {kind}_input); "
                             f"use a model that does, or send the {kind}'s content as text")
    default = DEFAULT_DOCUMENT_LIMITS if kind == "document" else DEFAULT_AUDIO_LIMITS
    limits = (model.document_limits if kind == "document" else model.audio_limits) or default
    if block.url is not None and block.path is None:
        return _admit_url(block, model, limits)
    name = block.path or f"the {block.mime_type or 'untyped'} {kind}"
    raw = _read(block.path, root, limits, kind) if block.path is not None else _decoded(block, limits, name)
    if len(raw) > limits.max_bytes:
        raise FileInputError(f"{name} is larger than {model.key}'s {limits.max_bytes}-byte {kind} limit; "
                             "send a smaller file")
    mime_type = _checked_type(raw, block, name)
    if mime_type not in limits.formats:
        raise FileInputError(f"{name} is {mime_type}, which {model.key} does not take as {kind} input; "
                             f"send one of {', '.join(sorted(limits.formats))}")
    data = block.data if block.path is None else base64.b64encode(raw).decode("ascii")
    if isinstance(block, DocumentBlock):
        return DocumentBlock(data, mime_type, name=block.name)
    return AudioBlock(data, mime_type)


def _admit_url(block: FileBlock, model: ModelInfo, limits: FileLimits) -> FileBlock:
    url = block.url or ""
    if url[:5].lower() == "data:":  # built by hand rather than with from_url
        try:
            parsed = (DocumentBlock.from_url(url, name=block.name) if isinstance(block, DocumentBlock)
                      else AudioBlock.from_url(url))
        except ValueError as exc:
            raise FileInputError(f"the {block.type}'s data: URL is invalid: {exc}") from None
        return _admit(parsed, model, Path("."))
    if not url.lower().startswith(("https://", "http://")):
        raise FileInputError(f"a {block.type} URL must be http(s) or data:, not {url[:40]!r}")
    if not limits.urls:
        raise FileInputError(f"{model.api} takes no {block.type} URLs ({url}), and agentkit does not download "
                             f"files for a model; pass the file's path or bytes, or use a wire that downloads "
                             f"them: {URL_WIRES[block.type]}")
    declared = _normal(block.mime_type) or _EXTENSIONS.get(os.path.splitext(url.split("?")[0])[1].lower(), "")
    return dataclasses.replace(block, mime_type=declared)


def _read(path: str, root: Path, limits: FileLimits, kind: str) -> bytes:
    target = (root.resolve() / path)
    if target.exists() and not target.is_file():  # a FIFO or a device would never end
        raise FileInputError(f"the {kind} {path} is not a regular file")
    try:
        with target.open("rb") as file:
            return file.read(limits.max_bytes + 1)  # one byte past the cap says it is too large
    except OSError as exc:
        raise FileInputError(f"cannot read the {kind} {path}: {exc.strerror or exc}") from None


def _decoded(block: FileBlock, limits: FileLimits, name: str) -> bytes:
    # Four base64 characters per three bytes: a text longer than the cap's is refused before decoding.
    if len(block.data) > (limits.max_bytes + 2) // 3 * 4 + 4:
        raise FileInputError(f"{name} is above the {limits.max_bytes}-byte {block.type} limit; send a smaller file")
    try:
        return base64.b64decode(block.data, validate=True)
    except ValueError:
        raise FileInputError(f"{name}'s data is not base64; build the block with "
                             f"{type(block).__name__}.from_bytes") from None


def sniff(raw: bytes) -> str:
    """The MIME type ``raw``'s first bytes show, ``text/plain`` for UTF-8 text, or ``""``."""
    head = raw[:12]
    if head[:5] == b"%PDF-":  # at the start, as file(1) checks: a text that mentions %PDF- stays text
        return PDF
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "audio/wav"
    if head[:3] == b"ID3":
        return "audio/mpeg"
    if head[:4] == b"fLaC":
        return "audio/flac"
    if head[:4] == b"OggS":
        return "audio/ogg"
    if head[:4] == b"FORM" and head[8:12] in (b"AIFF", b"AIFC"):
        return "audio/aiff"
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0:
        # An MPEG frame sync: layer bits 00 are AAC's ADTS header, the others MPEG audio (MP3).
        return "audio/aac" if head[1] & 0x06 == 0 else "audio/mpeg"
    if b"\0" not in raw:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return ""
        return PLAIN_TEXT
    return ""


def _normal(mime_type: str) -> str:
    declared = mime_type.split(";")[0].strip().lower()
    if declared.startswith("text/") or declared in ("application/json", "application/yaml", "application/xml"):
        return PLAIN_TEXT
    return _ALIASES.get(declared, declared)


def _checked_type(raw: bytes, block: FileBlock, name: str) -> str:
    """The type ``raw`` shows, refused when it contradicts the block's kind, declared type or extension."""
    shown = sniff(raw)
    kind = block.type
    if not shown or (kind == "document") != (shown in (PDF, PLAIN_TEXT)):
        what = f"{shown}, which is not a document" if kind == "document" and shown else \
            f"{shown}, which is not audio" if shown else "of no type agentkit recognizes"
        raise FileInputError(f"{name} is {what}; send a PDF or UTF-8 text as a DocumentBlock, "
                             "a WAV, MP3, FLAC, OGG, AAC or AIFF recording as an AudioBlock")
    claims = [("declared as", _normal(block.mime_type))]
    if block.path is not None:
        claims.append(("named", _EXTENSIONS.get(os.path.splitext(block.path)[1].lower(), "")))
    for how, claim in claims:
        if claim and claim != shown:
            raise FileInputError(f"{name} is {how} {claim}, but its bytes are {shown}; "
                                 "give the file its real type (or none: agentkit reads it from the bytes)")
    return shown
