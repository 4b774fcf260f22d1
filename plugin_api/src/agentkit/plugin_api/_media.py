"""What a wire accepts as a document or a recording, and the codec helpers the wires that send them share.

The host admits each :class:`~agentkit.plugin_api.DocumentBlock` and
:class:`~agentkit.plugin_api.AudioBlock` at the history boundary against the
model's catalog row (:attr:`~agentkit.plugin_api.ModelInfo.document_limits`,
:attr:`~agentkit.plugin_api.ModelInfo.audio_limits`): it reads a path with
a bounded read, refuses bytes that contradict their declared type, a file
above the wire's cap, a format the wire does not take, and a URL on a wire
that does not download one. A codec then only writes the block in its
wire's shape. Standard library only.
"""

from __future__ import annotations

import base64

from ._dataclass import dataclass
from ._messages import AudioBlock, DocumentBlock
from .errors import ProviderError

PDF = "application/pdf"
PLAIN_TEXT = "text/plain"
#: The document formats agentkit recognizes (by their bytes, never by their name alone).
DOCUMENT_FORMATS = frozenset({PDF, PLAIN_TEXT})
#: The audio formats agentkit recognizes by their bytes.
AUDIO_FORMATS = frozenset({"audio/wav", "audio/mpeg", "audio/flac", "audio/ogg", "audio/aac", "audio/aiff"})


@dataclass(frozen=True, slots=True)
class FileLimits:
    """What one wire (or model) documents as the documents, or the recordings, it accepts.

    :param max_bytes: the largest file, in bytes before base64; a larger one is
        refused with an error naming the cap (a document is never cut short).
    :param formats: the MIME types the wire takes.
    :param urls: the wire takes an ``http(s)`` URL and downloads the file
        itself; without it a URL is refused (the host never fetches one on a
        model's behalf).
    """

    max_bytes: int
    formats: frozenset[str]
    urls: bool = False

    def __post_init__(self) -> None:
        if self.max_bytes < 1 or not self.formats:
            raise ValueError(f"FileLimits needs a positive max_bytes and at least one format, not {self!r}")


#: The limits of a row that says ``document_input`` and gives none: PDF and plain text, base64,
#: below every documented cap (Gemini's 20 MB inline request is the smallest).
DEFAULT_DOCUMENT_LIMITS = FileLimits(max_bytes=20 * 1000 * 1000, formats=DOCUMENT_FORMATS)
#: The limits of a row that says ``audio_input`` and gives none: WAV and MP3, the two every audio wire takes.
DEFAULT_AUDIO_LIMITS = FileLimits(max_bytes=20 * 1000 * 1000, formats=frozenset({"audio/wav", "audio/mpeg"}))


def file_data_url(block: DocumentBlock | AudioBlock) -> str:
    """The block's bytes as a ``data:`` URL (the ``file_data`` of the OpenAI wires)."""
    return f"data:{block.mime_type};base64,{block.data}"


def document_text(block: DocumentBlock) -> str:
    """A plain-text document as the text a wire without text documents is sent: its name, then its text."""
    text = base64.b64decode(block.data).decode("utf-8")
    return f"<document name={(block.name or 'document.txt')!r}>\n{text}\n</document>"


def inline_file(block: DocumentBlock | AudioBlock, api: str) -> DocumentBlock | AudioBlock:
    """``block`` when it carries its bytes; a wire that takes no URL calls this before sending one.

    :raises ProviderError: the block holds only a URL or a path (a transcript
        written for another wire, or a block that skipped the host).
    """
    if block.data and not block.url and not block.path:
        return block
    raise ProviderError(
        f"{api} cannot send a {block.type} by reference ({block.url or block.path}); it takes the file's "
        "bytes. Pass the bytes (DocumentBlock.from_bytes / AudioBlock.from_bytes), or use a wire that "
        "downloads URLs (anthropic-messages and openai-responses for PDFs, google-generative-ai)"
    )


def unsendable(block: DocumentBlock | AudioBlock, api: str) -> ProviderError:
    """The error of a wire that takes no such block at all (the host refuses it earlier, by the catalog)."""
    return ProviderError(f"{api} does not take {block.type} input; use a model whose catalog row says "
                         f"{block.type}_input")
