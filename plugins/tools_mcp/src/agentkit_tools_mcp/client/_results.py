"""An MCP ``CallToolResult`` as an agentkit :class:`ToolResult`, within the character cap.

Text blocks join into the envelope's ``data`` text; images become image blocks
beside it; structured content rides along as ``structured``, and a text
block that only repeats it (the JSON the spec asks servers to send beside
it, for clients that read no structured content) is left out, so the model
reads it, and the cap counts it, once. An embedded
resource with text joins the text under a line naming its URI; one with a
picture (``blob`` of an image type the host decodes) becomes an image block;
any other blob, and audio (agentkit has no audio block for tool results), is
a line naming what it was (URI, MIME type, size), never its base64. Resource
links are named, never fetched (REQ-SEC-08: no resource auto-fetch). The cap
counts every character the model would read, text and structured JSON
together, and a cut result says so in a note the model sees.
"""

from __future__ import annotations

import json
from typing import Any

from agentkit.plugin_api import ImageBlock, ToolResult

from ._json import one_shot

RESULT_CHARACTER_CAP = 50_000
"""The most characters of one MCP result the model is shown (REQ-MCP-CLIENT-09)."""

TOOL_ERROR = "mcp_tool_error"
"""The error code of a result the server marked ``isError``."""

#: The image types of embedded blobs shown to the model as pictures: those the host decodes.
_PICTURE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/tiff",
                            "image/heif", "image/heic", "image/avif"})


def to_tool_result(result: Any, *, cap: int = RESULT_CHARACTER_CAP, **metadata: Any) -> ToolResult:
    """Map a ``CallToolResult`` to a :class:`ToolResult`, cut to ``cap`` characters with a note."""
    texts: list[str] = []
    images: list[ImageBlock] = []
    structured = result.structured_content
    for block in result.content or ():
        kind = getattr(block, "type", None)
        if kind == "text":
            if structured is not None and not result.is_error and _repeats(block.text, structured):
                continue
            texts.append(block.text)
        elif kind == "image":
            images.append(ImageBlock(data=block.data, mime_type=block.mime_type))
        elif kind == "audio":
            texts.append(f"[audio ({block.mime_type}, {_decoded_size(block.data):,} bytes) not shown: "
                         "agentkit passes no audio from tools to the model]")
        elif kind == "resource_link":
            texts.append(f"[resource link: {block.uri}]")
        elif kind == "resource":
            picture = _embedded_picture(block.resource)
            if picture is None:
                texts.append(_embedded_resource_text(block.resource))
            else:
                images.append(picture)
        else:
            texts.append(f"[{kind} content omitted]")
    text = "\n".join(texts)
    structured_text = "" if structured is None else _structured_json(structured)
    total = len(text) + len(structured_text)
    note = None
    if total > cap:
        note = (f"[truncated: the result had {total:,} characters; the first {cap:,} are shown. "
                "Ask the tool for less (a narrower query, a page) to see the rest.]")
        # A cut JSON document is no longer JSON: the structured part joins the text, and the whole is cut.
        whole = "\n".join(part for part in (text, structured_text) if part)
        text, structured = f"{whole[:cap]}\n{note}", None
    metadata["truncated"], metadata["characters"] = note is not None, total  # ``metadata`` is this call's own
    if result.is_error:  # what ToolResult.failure and .success make, without copying the metadata twice more
        return ToolResult(False, error=TOOL_ERROR, detail=text or "the MCP tool reported an error", metadata=metadata,
                          images=images)
    data: Any = text
    if structured is not None:
        data = {"text": text, "structured": structured} if text else {"structured": structured}
    return ToolResult(True, data=data, metadata=metadata, images=images)


#: ``json.dumps(structured, ensure_ascii=False, default=str)``, its encoder made once rather than per result.
_structured_json = one_shot(json.JSONEncoder(ensure_ascii=False, default=str))


def _repeats(text: str, structured: Any) -> bool:
    """Whether ``text`` is ``structured`` as JSON, or its only field (as text or JSON).

    The SDK's server wraps a value that is not an object as ``{"result": value}``
    and sends a string's text as it is; server-memory sends ``{"entities": [...]}``
    beside the list's JSON.
    """
    only = next(iter(structured.values())) if isinstance(structured, dict) and len(structured) == 1 else None
    if only is not None and only == text:
        return True
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return value == structured or (only is not None and value == only)


def _embedded_picture(resource: Any) -> ImageBlock | None:
    blob, mime_type = getattr(resource, "blob", None), (getattr(resource, "mime_type", None) or "").lower()
    if isinstance(blob, str) and mime_type in _PICTURE_TYPES:
        return ImageBlock(data=blob, mime_type=mime_type)
    return None


def _embedded_resource_text(resource: Any) -> str:
    mime_type = getattr(resource, "mime_type", None)
    text = getattr(resource, "text", None)
    if isinstance(text, str):
        return f"[resource {resource.uri}{f' ({mime_type})' if mime_type else ''}]\n{text}"
    blob = getattr(resource, "blob", None)
    size = f", {_decoded_size(blob):,} bytes" if isinstance(blob, str) else ""
    return f"[embedded resource {resource.uri} ({mime_type or 'application/octet-stream'}{size}) not shown]"


def _decoded_size(data: str) -> int:
    """The size in bytes of base64 ``data``, without decoding it."""
    return len(data.strip().rstrip("=")) * 3 // 4
