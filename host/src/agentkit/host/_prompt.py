"""What a caller may give a run as its prompt, and how it becomes the run's first messages."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agentkit.plugin_api import (
    AssistantMessage,
    Message,
    ModelInfo,
    ToolResultMessage,
    UserContent,
    UserMessage,
)

from ._carries import has_files, has_images

if TYPE_CHECKING:  # the admission modules load when a message carries something to admit
    from ._images import ImageFetcher

__all__ = ["Prompt", "admitted", "admitted_async", "as_messages"]

Prompt = str | Message | Sequence[UserContent]


def as_messages(prompt: Prompt | None) -> list[Message]:
    if prompt is None:
        return []
    if isinstance(prompt, str):
        return [UserMessage.text(prompt)]
    if isinstance(prompt, UserMessage | AssistantMessage | ToolResultMessage):
        return [prompt]
    return [UserMessage(list(prompt))]


def admitted(messages: list[Message], model: ModelInfo, root: Path, fetcher: ImageFetcher | None) -> list[Message]:
    """The embedder's messages with their images normalized for the model (see :mod:`._images`),
    their documents and recordings checked (see :mod:`._media`).

    :raises ImageError: the model takes no images, or one cannot be read or fetched.
    :raises FileInputError: the model takes no such file, or one cannot be read or sent.
    """
    if has_files(messages):
        from ._media import admit_file_messages

        messages = admit_file_messages(messages, model, root=root)
    if not has_images(messages):
        return messages
    from ._images import admit_messages

    return admit_messages(messages, model, root=root, fetcher=fetcher)


async def admitted_async(messages: list[Message], model: ModelInfo, root: Path,
                         fetcher: ImageFetcher | None) -> list[Message]:
    """:func:`admitted` off the event loop when there is an image to decode or a file to read."""
    if not has_images(messages) and not has_files(messages):
        return messages
    return await asyncio.to_thread(admitted, messages, model, root, fetcher)
