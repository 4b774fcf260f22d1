"""What a run's messages carry that must be admitted first: images, documents, recordings.

Asked of every prompt; the modules that admit them (:mod:`._images`, with
Pillow on first decode, and :mod:`._media`) load only when the answer is yes.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentkit.plugin_api import AudioBlock, DocumentBlock, ImageBlock, Message, UserMessage

__all__ = ["has_files", "has_images"]


def has_images(messages: Sequence[Message]) -> bool:
    """Whether any of ``messages`` carries an image (which :func:`._images.admit_messages` must see)."""
    return any(isinstance(block, ImageBlock) for message in messages for block in message.content)


def has_files(messages: Sequence[Message]) -> bool:
    """Whether any user message of ``messages`` carries a document or a recording."""
    return any(isinstance(block, DocumentBlock | AudioBlock)
               for message in messages if isinstance(message, UserMessage) for block in message.content)
