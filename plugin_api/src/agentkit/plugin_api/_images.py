"""What a wire accepts as an image, and the codec helpers every wire that sends images shares.

The host normalizes each image at the history boundary to the limits of the
model's catalog row (:attr:`~agentkit.plugin_api.ModelInfo.image_limits`):
it applies the EXIF orientation, re-encodes a format the wire does not take,
scales the image down to the wire's largest edge and caps its size. A codec
then only writes the block in its wire's shape; :func:`image_url` and
:func:`inline_image` are the two shapes a wire needs. Standard library only.
"""

from __future__ import annotations

from ._dataclass import dataclass
from ._messages import ImageBlock
from .errors import ProviderError

#: The formats every image wire takes (and the ones the host re-encodes to).
PNG_AND_JPEG = frozenset({"image/png", "image/jpeg"})


@dataclass(frozen=True, slots=True)
class ImageLimits:
    """What one wire (or model) documents as the images it accepts.

    :param max_edge: the longest side, in pixels, an image is scaled down to.
    :param max_bytes: the largest image, in bytes of the encoded file (before
        base64); a larger one is re-encoded smaller, with a note to the model.
    :param formats: the MIME types the wire takes; anything else is re-encoded
        (to PNG when it has transparency, JPEG otherwise).
    :param urls: the wire takes an ``http(s)`` URL and downloads the image
        itself; without it the host fetches the image (only when the embedder
        allows it) and sends the bytes.
    """

    max_edge: int
    max_bytes: int
    formats: frozenset[str] = PNG_AND_JPEG
    urls: bool = False

    def __post_init__(self) -> None:
        if self.max_edge < 1 or self.max_bytes < 1:
            raise ValueError(f"ImageLimits needs a positive max_edge and max_bytes, not {self!r}")
        if not PNG_AND_JPEG & self.formats:
            raise ValueError("ImageLimits.formats must hold image/png or image/jpeg, which the host re-encodes to")


#: The limits of a model whose row says ``image_input`` and gives none: formats
#: every vision wire takes, and sizes below every documented limit.
DEFAULT_IMAGE_LIMITS = ImageLimits(max_edge=2048, max_bytes=5 * 1024 * 1024)


def image_url(block: ImageBlock) -> str:
    """The block as the one URL a wire of ``image_url`` fields takes: its ``url``, or a ``data:`` URL."""
    return block.url or f"data:{block.mime_type};base64,{block.data}"


def inline_image(block: ImageBlock, api: str) -> ImageBlock:
    """``block`` when it carries its bytes; a wire that takes no URL calls this before sending one.

    :raises ProviderError: the block holds only a URL or a path (the host
        normalizes every image before a request, so this is a transcript
        written for another wire, or a block that skipped the host).
    """
    if block.data and not block.url and not block.path:
        return block
    where = block.url or block.path
    raise ProviderError(
        f"{api} cannot send an image by reference ({where}); it takes the image's bytes. "
        "Set AgentConfig.image_fetcher to let the host download URL images, or pass the bytes"
    )
