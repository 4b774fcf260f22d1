"""read_file: numbered text with head limits, images by content, binary refused."""

from __future__ import annotations

import base64
import os
import shlex
from typing import Any

from agentkit.plugin_api import ImageBlock, Tool, ToolContext, ToolError, ToolResult
from agentkit.plugin_api.results import Accumulator, enveloped
from agentkit.plugin_api.workspace import locate

from .content import BOM, decode_text, detect_image, is_binary, printable, split_editor_lines
from .limits import LONG_LINE_WORKAROUND, READ_LIMITS

__all__ = ["READ_FILE"]

#: Largest image handed to the host (which normalizes images at the history boundary).
MAX_IMAGE_BYTES = 20 * 1024 * 1024


def _number(line_number: int, text: str) -> str:
    return f"{line_number:>6}\t{text}"


def _root_for(raw: str, context: ToolContext) -> str:
    """The workspace root, or the folder the embedder granted that holds the absolute path ``raw``.

    ``options["readable_paths"]`` lists folders outside the workspace that
    ``read_file`` may read (the host grants the folders of the agent's skills);
    the path is still resolved beneath that folder, links included.
    """
    if os.path.isabs(raw):
        wanted = os.path.normpath(raw)
        for granted in context.options.get("readable_paths", ()):
            folder = os.path.normpath(str(granted))
            if wanted == folder or wanted.startswith(folder.rstrip(os.sep) + os.sep):
                return folder
    return str(context.root)


@enveloped
def read_file(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
    with locate(_root_for(arguments["path"], context), arguments["path"]) as target:
        shown = target.shown
        with os.fdopen(target.open_file(), "rb") as handle:
            head = handle.read(16)
            mime = detect_image(head)
            if mime is not None:
                data = head + handle.read(MAX_IMAGE_BYTES)
                if len(data) > MAX_IMAGE_BYTES:
                    raise ToolError(
                        "too_large", f"{shown} is an image over {MAX_IMAGE_BYTES} bytes."
                    )
                result = ToolResult.success(
                    {"content": f"[{mime} image, {len(data)} bytes]", "encoding": "base64"},
                    mime_type=mime,
                )
                result.images.append(ImageBlock(base64.b64encode(data).decode("ascii"), mime))
                return result
            data = head + handle.read()
    if is_binary(data):
        raise ToolError(
            "binary_file",
            f"{shown} is a binary file ({len(data)} bytes); it has no text to show.",
        )
    text, encoding = decode_text(data)
    text = printable(text)
    if text.startswith(BOM):
        text, encoding = text[1:], "utf-8-sig"
    lines = split_editor_lines(text)
    offset = max(1, arguments.get("offset", 1))  # 0 also means "from the start"
    limit = arguments.get("limit")
    total = len(lines)
    if total == 0:
        return ToolResult.success({"content": "", "encoding": encoding}, total_lines=0)
    if offset > total:
        raise ToolError(
            "offset_out_of_range",
            f"offset={offset} is past the end of {shown}, which has {total} lines.",
        )
    window = lines[offset - 1 : (offset - 1 + limit) if limit else None]
    accumulator = Accumulator.for_limits(READ_LIMITS)
    for index, line in enumerate(window):
        if not accumulator.add(_number(offset + index, line)):
            break
    kept = len(accumulator.head)
    if kept == 0:
        # The first line alone is over the byte cap: it gets its own marker and a way to see it.
        too_long = offset
        workaround = LONG_LINE_WORKAROUND.format(line=too_long, path=shlex.quote(shown))
        size = len(window[0].encode("utf-8"))
        marker = (
            f"[Line {too_long} is {size} bytes, over the {READ_LIMITS.bytes}-byte limit. "
            f"Show a piece of it with: {workaround}]"
        )
        if total > too_long:
            marker += f"\n[Use offset={too_long + 1} to continue.]"
        return ToolResult.success(
            {"content": marker, "encoding": encoding}, truncated_by="line", total_lines=total
        )
    last = offset + kept - 1
    content = "\n".join(accumulator.head)
    metadata: dict[str, Any] = {"total_lines": total}
    if last < total:
        why = " (50 KB limit)" if accumulator.truncated_by == "bytes" else ""
        content += (
            f"\n\n[Showing lines {offset}-{last} of {total}{why}. "
            f"Use offset={last + 1} to continue.]"
        )
        metadata["truncated_by"] = accumulator.truncated_by or "limit"
    return ToolResult.success({"content": content, "encoding": encoding}, **metadata)


READ_FILE = Tool(
    name="read_file",
    description=(
        "Read a file in the workspace. Text comes back with line numbers (as an editor counts "
        "them), at most 2000 lines or 50 KB per call; a marker at the end says which offset "
        "continues. Images come back as images; other binary files are refused."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the workspace root."},
            "offset": {
                "type": "integer",
                "minimum": 0,
                "description": "First line to show, counting from 1 (default 1; 0 also means the start).",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "description": "Most lines to show (default: up to 2000 / 50 KB).",
            },
        },
        "required": ["path"],
        "additionalProperties": False,
    },
    handler=read_file,
    prompt_guidelines="Read a file before editing it; continue long files with the offset the marker names.",
)
