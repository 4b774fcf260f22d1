"""``agentkit run --attach FILE|URL``: the files a task comes with, as the content blocks of its prompt.

The kind of each attachment is read from its extension (``.pdf``, ``.txt``,
``.wav``, ``.png``...), else from its first bytes: an image becomes an
:class:`~agentkit.plugin_api.ImageBlock`, a PDF or a text file a
:class:`~agentkit.plugin_api.DocumentBlock`, a recording an
:class:`~agentkit.plugin_api.AudioBlock`. The host then admits each block at
the history boundary, as it admits the blocks of any prompt: a model without
the capability, a file above the wire's cap or one whose type lies is
refused there, before anything is sent. A path on the command line is the
user's own choice: it is read wherever it is.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

from agentkit.plugin_api import AudioBlock, DocumentBlock, ImageBlock, TextBlock, UserContent
from agentkit.plugin_api.errors import UsageError

from .._media import sniff

#: How many bytes of a file tell its kind (the longest magic number read is 12 bytes; text needs more).
_HEAD = 4096
#: An extension -> the kind of block a URL or a file of that name becomes.
_KINDS: dict[str, type[DocumentBlock] | type[AudioBlock] | type[ImageBlock]] = {
    **{ext: DocumentBlock for ext in (".pdf", ".txt", ".md")},
    **{ext: AudioBlock for ext in (".wav", ".mp3", ".flac", ".ogg", ".aac", ".aiff")},
    **{ext: ImageBlock for ext in (".png", ".jpg", ".jpeg", ".gif", ".webp")},
}


def prompt_with(task: str, attachments: list[str], root: Path) -> str | list[UserContent]:
    """The task, followed by a block for each attachment; the task alone when there is none."""
    if not attachments:
        return task
    return [TextBlock(task), *(_block(item, root) for item in attachments)]


def _block(item: str, root: Path) -> UserContent:
    if item.lower().startswith(("http://", "https://")):
        kind = _KINDS.get(os.path.splitext(urlsplit(item).path)[1].lower())
        if kind is None:
            raise UsageError(f"--attach {item}: cannot tell the kind of file from the URL; attach a URL that "
                             "ends in .pdf, .txt, .wav, .mp3, .png, .jpg ... or download it and attach the file")
        return kind.from_url(item)
    path = (root / Path(item).expanduser()).resolve()
    if path.exists() and not path.is_file():  # a FIFO or a device would never end
        raise UsageError(f"--attach {item}: not a regular file; attach a file")
    try:
        with path.open("rb") as file:
            head = file.read(_HEAD)
    except OSError as exc:
        raise UsageError(f"--attach {item}: cannot read it ({exc.strerror or exc})") from None
    by_name = _KINDS.get(path.suffix.lower())
    if by_name is not None:  # the name says what the user means; the host checks the bytes agree
        return by_name.from_path(path)
    shown = sniff(head)
    if shown.startswith("audio/"):
        return AudioBlock.from_path(path)
    if shown:  # a PDF, or text (a text file's first 4 KB may end inside a character: the host reads it all)
        return DocumentBlock.from_path(path)
    if _truncated_text(head):
        return DocumentBlock.from_path(path)
    return ImageBlock.from_path(path)  # anything else is an image, or the host says what it is not


def _truncated_text(head: bytes) -> bool:
    """Whether ``head`` is UTF-8 text cut inside a character at the end of the read."""
    if len(head) < _HEAD or b"\0" in head:
        return False
    for cut in (1, 2, 3):
        try:
            head[:-cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
        return True
    return False
