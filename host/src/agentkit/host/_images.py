"""Images at the history boundary: read, checked and normalized once, for the model's wire.

Every image that enters the history (in a prompt, a steering or follow-up
message, or a tool result) passes through :func:`admit` first, so that the
history holds only what the model's wire takes:

* a model whose catalog row lacks ``image_input`` refuses the image with an
  error: an image is never dropped quietly;
* a ``path`` is read (from a tool, only inside the workspace);
* a URL goes to a wire that takes URLs as it is; any other wire gets the
  bytes, fetched through ``Connection.image_fetcher`` only when the embedder
  set one;
* the bytes are decoded by Pillow, whatever the declared media type says:
  Pillow's decompression-bomb limit holds, a truncated or non-image file is
  refused with an error (in a tool result, a one-line note in the image's
  place: the result's text and other images still arrive), the EXIF
  orientation is applied, the image is scaled
  to the wire's largest edge, re-encoded when the wire does not take its
  format (WebP, the first frame of an animated GIF, HEIC where a Pillow plugin
  reads it), and re-encoded smaller, with a note to the model, above the
  wire's size cap.

Pillow is imported here, on the first image, never by ``import agentkit.host``.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agentkit.plugin_api import (
    ImageBlock,
    Message,
    ModelInfo,
    TextBlock,
    ToolResultMessage,
    UserContent,
    UserMessage,
)
from agentkit.plugin_api.codec import DEFAULT_IMAGE_LIMITS, ImageLimits

from ._carries import has_images
from .errors import ImageError

if TYPE_CHECKING:
    from PIL import Image

#: The largest image file read or fetched, before any decoding (a camera's RAW is smaller).
MAX_SOURCE_BYTES = 64 * 1024 * 1024
#: The most pixels decoded, whatever ``PIL.Image.MAX_IMAGE_PIXELS`` says: Pillow's own default,
#: so an embedder who lifts Pillow's limit does not lift ours.
MAX_SOURCE_PIXELS = 89_478_485
#: Pillow's format name -> the MIME type wires use.
_MIME = {"PNG": "image/png", "JPEG": "image/jpeg", "MPO": "image/jpeg", "GIF": "image/gif",
         "WEBP": "image/webp", "HEIF": "image/heif", "HEIC": "image/heic"}
#: The only formats Pillow is asked to decode: raster formats of pictures, HEIF and AVIF where a
#: plugin reads them. Never EPS or PDF, whose Pillow readers run Ghostscript on the file.
_READABLE = ("PNG", "JPEG", "MPO", "GIF", "WEBP", "BMP", "TIFF", "HEIF", "AVIF")
#: How a re-encoded image is written: transparency keeps PNG, the rest is a JPEG.
_JPEG_QUALITY = 85
_ORIENTATION = 0x0112

ImageFetcher = Callable[[str], bytes]
Content = list[TextBlock | ImageBlock]
#: A user message's content: images among documents and recordings, which :func:`admit` keeps as they are.
Mixed = list[UserContent]


def admit_messages(messages: Sequence[Message], model: ModelInfo, *, root: Path,
                   fetcher: ImageFetcher | None) -> list[Message]:
    """The embedder's ``messages`` with their images admitted (see :func:`admit`); paths are not confined."""
    admitted: list[Message] = []
    for message in messages:
        if isinstance(message, UserMessage | ToolResultMessage) and has_images([message]):
            content = admit(message.content, model, root=root, fetcher=fetcher, from_tool=False)
            message = dataclasses.replace(message, content=content)  # type: ignore[arg-type]  # a tool result holds text and images only
        admitted.append(message)
    return admitted


def admit(content: Sequence[UserContent], model: ModelInfo, *, root: Path,
          fetcher: ImageFetcher | None, from_tool: bool) -> Mixed:
    """``content`` with each image normalized for ``model``; text (documents, recordings) is kept as it is.

    :param root: the workspace: relative paths are read from it, and a tool's
        path must stay inside it.
    :param fetcher: downloads a URL image for a wire that takes no URLs;
        ``None``: never fetch.
    :param from_tool: the content is a tool's result (its paths are confined).
    :raises ImageError: the model takes no images, or an image cannot be read,
        fetched or decoded; the message names the image and the fix.
    """
    if not any(isinstance(block, ImageBlock) for block in content):
        return list(content)
    if not model.image_input:
        raise ImageError(f"{model.key} does not take images (its catalog row has no image_input); "
                         "use a model with vision, or send the image as a description")
    limits = model.image_limits or DEFAULT_IMAGE_LIMITS
    admitted: Mixed = []
    position = 0
    for block in content:
        if not isinstance(block, ImageBlock):
            admitted.append(block)
            continue
        position += 1
        try:
            admitted.extend(_admit_image(block, model, limits, root, fetcher, from_tool))
        except UnusableImage as exc:
            if not from_tool:
                raise
            # One block a tool could not make usable never costs the rest of its result (an MCP
            # server's picture with a bad checksum): the model reads why, in the picture's place.
            admitted.append(TextBlock(f"[image {position} not shown: {exc}]"))
    return admitted


class UnusableImage(ImageError):
    """The image's own bytes cannot be taken: not base64, not a picture Pillow reads, damaged, too large.

    In a prompt it is an error like any :class:`ImageError`; in a tool result,
    a note in the image's place. Refusals of where an image comes from (a path
    outside the workspace, a URL not to be fetched) or of the model (no
    vision) stay errors of the whole result: the tool asked for something it
    may not have.
    """


def _admit_image(block: ImageBlock, model: ModelInfo, limits: ImageLimits, root: Path,
                 fetcher: ImageFetcher | None, from_tool: bool) -> Content:
    if block.path is not None:
        name = block.path
        raw = _read(block.path, root, from_tool)
    elif block.url:
        if block.url[:5].lower() == "data:":  # built by hand rather than with ImageBlock.from_url
            try:
                parsed = ImageBlock.from_url(block.url)
            except ValueError as exc:
                raise ImageError(f"the image's data: URL is invalid: {exc}") from None
            return _admit_image(parsed, model, limits, root, fetcher, from_tool)
        if not block.url.lower().startswith(("https://", "http://")):
            raise ImageError(f"an image URL must be http(s) or data:, not {block.url[:40]!r}")
        if limits.urls:
            return [ImageBlock("", "", url=block.url)]  # the wire downloads it itself
        if fetcher is None:
            raise ImageError(f"{model.api} takes no image URLs, and fetching {block.url} is not allowed; "
                             "set Connection.image_fetcher (agentkit_tools_web.image_fetcher() is "
                             "SSRF-guarded) or pass the image's bytes")
        name = block.url
        raw = _fetch(block.url, fetcher)
    else:
        name = f"the {block.mime_type or 'untyped'} image"
        try:
            raw = base64.b64decode(block.data, validate=True)
        except ValueError:
            raise UnusableImage(f"{name}'s data is not base64; build the block with ImageBlock.from_bytes") from None
    try:
        data, mime_type, note = normalize(raw, limits, name=name)
    except ImageError as exc:
        raise UnusableImage(str(exc)) from None
    image = ImageBlock(base64.b64encode(data).decode("ascii"), mime_type)
    return [image, TextBlock(note)] if note else [image]


def _read(path: str, root: Path, from_tool: bool) -> bytes:
    workspace = root.resolve()
    target = (workspace / path).resolve()
    if from_tool and not target.is_relative_to(workspace):
        raise ImageError(f"the image {path} is outside the workspace {workspace}; "
                         "a tool may only name image files inside it")
    if target.exists() and not target.is_file():  # a FIFO or a device would never end
        raise ImageError(f"the image {path} is not a regular file")
    try:
        with target.open("rb") as file:
            raw = file.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise ImageError(f"cannot read the image {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_SOURCE_BYTES:
        raise ImageError(f"the image {path} is larger than {MAX_SOURCE_BYTES} bytes; send a smaller file")
    return raw


def _fetch(url: str, fetcher: ImageFetcher) -> bytes:
    try:
        raw = fetcher(url)
    except Exception as exc:  # the embedder's fetcher: whatever it raises is the reason
        raise ImageError(f"fetching the image {url} failed: {exc}") from None
    if not isinstance(raw, bytes | bytearray):
        raise ImageError(f"the image_fetcher returned {type(raw).__name__} for {url}, not bytes")
    if len(raw) > MAX_SOURCE_BYTES:
        raise ImageError(f"the image {url} is larger than {MAX_SOURCE_BYTES} bytes")
    return bytes(raw)


def normalize(raw: bytes, limits: ImageLimits, *, name: str = "the image") -> tuple[bytes, str, str]:
    """``raw`` as the wire takes it: ``(bytes, MIME type, note)``; the note is empty unless capped.

    The original bytes are kept when the wire takes the format and nothing
    needs changing (no rotation, no scaling, within the size cap).

    :raises ImageError: not an image Pillow reads, truncated, or more pixels
        than :data:`MAX_SOURCE_PIXELS` (a decompression bomb).
    """
    image, size = _decode(raw, name, limits.max_edge)
    try:
        return _fitted(image, size, raw, limits, name)
    except ImageError:
        raise
    except Exception as exc:  # damage the decoder let through: in the EXIF block, or in a later frame
        raise ImageError(f"{name} cannot be processed ({type(exc).__name__}: {exc}); "
                         "send it as a PNG or JPEG") from None
    finally:
        image.close()


def _fitted(image: Image.Image, size: tuple[int, int], raw: bytes, limits: ImageLimits,
            name: str) -> tuple[bytes, str, str]:
    """:func:`normalize` once the image is decoded."""
    mime_type = _MIME.get(image.format or "", "")
    animated = getattr(image, "n_frames", 1) > 1
    rotated = image.getexif().get(_ORIENTATION, 1) not in (1, None)
    fits = max(size) <= limits.max_edge
    if mime_type in limits.formats and fits and not (animated or rotated) and len(raw) <= limits.max_bytes:
        return raw, mime_type, ""
    scale = min(1.0, limits.max_edge / max(image.size))  # of what was decoded, maybe already smaller
    image = _oriented(image)
    if scale < 1:
        image = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))))
    keep = mime_type in limits.formats and not animated and mime_type != "image/gif"
    data, mime_type = _encode(image, mime_type if keep else _reencoded_type(image, limits))
    if len(data) <= limits.max_bytes:
        return data, mime_type, ""
    return _capped(image, limits, len(data), name)


def _decode(raw: bytes, name: str, max_edge: int) -> tuple[Image.Image, tuple[int, int]]:
    """The decoded image and its size in the file; a large JPEG is decoded at a reduced scale
    already (the decoder's DCT scaling: a 12-megapixel photo in a third of the time)."""
    from PIL import Image, UnidentifiedImageError

    try:
        # Pillow raises above twice its limit and only warns between: our own cap (its default,
        # checked before any pixel is decoded) refuses those too, whatever its global says.
        # (No warnings filter here: changing one is not thread-safe, and tools render in threads.)
        Image.init()  # registers every reader once; a format named before its reader is a KeyError
        image = Image.open(io.BytesIO(raw), formats=[kind for kind in _READABLE if kind in Image.OPEN])
        if image.width * image.height > MAX_SOURCE_PIXELS:
            raise Image.DecompressionBombError(f"{image.width * image.height} pixels")
        size = image.size
        if image.format == "JPEG" and max(size) > max_edge:
            shrink = max_edge / max(size)
            image.draft("RGB", (math.ceil(image.width * shrink), math.ceil(image.height * shrink)))
        image.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageError(f"{name} has too many pixels to decode safely ({exc}); "
                         f"send an image of at most {MAX_SOURCE_PIXELS} pixels") from None
    except UnidentifiedImageError:
        raise ImageError(f"{name} is not an image of a format agentkit reads (PNG, JPEG, GIF, WebP, "
                         "BMP, TIFF; HEIC with the pillow-heif plugin registered); send one of those") from None
    except Exception as exc:  # Pillow's decoders raise many types on damaged data (EOFError, struct.error...)
        raise ImageError(f"{name} is truncated or damaged ({type(exc).__name__}: {exc}); "
                         "send the whole file") from None
    return image, size


def _oriented(image: Image.Image) -> Image.Image:
    from PIL import ImageOps

    image.seek(0)  # an animation's first frame
    upright = ImageOps.exif_transpose(image)
    return upright if upright is not None else image


def _has_alpha(image: Image.Image) -> bool:
    return image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info)


def _reencoded_type(image: Image.Image, limits: ImageLimits) -> str:
    prefer = "image/png" if _has_alpha(image) or image.mode == "P" else "image/jpeg"
    return prefer if prefer in limits.formats else next(iter(sorted({"image/png", "image/jpeg"} & limits.formats)))


def _encode(image: Image.Image, mime_type: str) -> tuple[bytes, str]:
    out = io.BytesIO()
    if mime_type == "image/jpeg":
        image.convert("RGB").save(out, "JPEG", quality=_JPEG_QUALITY)
    elif mime_type == "image/png":
        image.save(out, "PNG", optimize=True)
    else:  # a format the wire takes and the image came in (WebP): written again, scaled
        image.save(out, image.format or mime_type.split("/")[1].upper())
    return out.getvalue(), mime_type


def _capped(image: Image.Image, limits: ImageLimits, size: int, name: str) -> tuple[bytes, str, str]:
    """A JPEG under the cap: scaled down step by step until it fits."""
    if "image/jpeg" not in limits.formats:
        raise ImageError(f"{name} is {size} bytes once encoded, above the wire's {limits.max_bytes}; "
                         "send a smaller image")
    current = image.convert("RGB")
    while True:
        data, mime_type = _encode(current, "image/jpeg")
        if len(data) <= limits.max_bytes or max(current.size) <= 16:
            break
        current = current.resize((max(1, current.width * 3 // 4), max(1, current.height * 3 // 4)))
    if len(data) > limits.max_bytes:
        raise ImageError(f"{name} cannot be made smaller than the wire's {limits.max_bytes} bytes")
    note = (f"[The image was {size} bytes, above this model's {limits.max_bytes}-byte limit; it is shown "
            f"as a {current.width}x{current.height} JPEG of {len(data)} bytes, with less detail.]")
    return data, mime_type, note
