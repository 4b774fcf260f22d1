"""read_file: numbered text with head limits, images by content, binary refused.

Text is streamed (:mod:`.stream`): the lines before the window are skipped a
chunk at a time, each line keeps at most the byte cap plus one, and the lines
after the window are only counted, up to :data:`.limits.READ_SCAN_BYTES` read,
so memory stays bounded whatever the file's size or the length of its lines.
"""

from __future__ import annotations

import base64
import os
import shlex
from typing import Any, BinaryIO

from agentkit.plugin_api import ImageBlock, Tool, ToolContext, ToolError, ToolResult
from agentkit.plugin_api.results import Accumulator, enveloped
from agentkit.plugin_api.workspace import locate

from .content import detect_image
from .limits import LONG_LINE_WORKAROUND, READ_LIMITS, READ_SCAN_BYTES
from .stream import BinaryContent, LineReader, RawLine

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
                return _image(handle, head, mime, shown)
            try:
                reader = LineReader(handle, keep=READ_LIMITS.bytes + 1, prefix=head)
                return _text(reader, arguments, shown)
            except BinaryContent:
                size = os.fstat(handle.fileno()).st_size
                raise ToolError(
                    "binary_file",
                    f"{shown} is a binary file ({size} bytes); it has no text to show.",
                ) from None


def _image(handle: BinaryIO, head: bytes, mime: str, shown: str) -> ToolResult:
    data = head + handle.read(MAX_IMAGE_BYTES)
    if len(data) > MAX_IMAGE_BYTES:
        raise ToolError("too_large", f"{shown} is an image over {MAX_IMAGE_BYTES} bytes.")
    result = ToolResult.success(
        {"content": f"[{mime} image, {len(data)} bytes]", "encoding": "base64"}, mime_type=mime
    )
    result.images.append(ImageBlock(base64.b64encode(data).decode("ascii"), mime))
    return result


def _window(reader: LineReader, offset: int, limit: int | None) -> list[RawLine]:
    """The lines from ``offset`` that the caps could show, and one past them (so the caps see it).

    A line's shown form is never shorter than its bytes, so once the bytes pass
    the byte cap the accumulator would stop there: nothing further is kept.
    """
    for _ in range(offset - 1):
        if reader.next_line() is None:
            return []
    wanted = min(limit or READ_LIMITS.items + 1, READ_LIMITS.items + 1)
    window: list[RawLine] = []
    size = 0
    while len(window) < wanted and size <= READ_LIMITS.bytes:
        line = reader.next_line()
        if line is None:
            break
        window.append(line)
        size += line.size + 1
    return window


def _text(reader: LineReader, arguments: dict[str, Any], shown: str) -> ToolResult:
    offset = max(1, arguments.get("offset", 1))  # 0 also means "from the start"
    window = _window(reader, offset, arguments.get("limit"))
    # The total is counted (in constant memory) only up to a budget: past it, it is "more than".
    counted = reader.at_end or reader.count_rest(READ_SCAN_BYTES)
    total = reader.lines
    encoding = reader.encoding
    of = f"{total}" if counted else f"more than {total}"
    metadata: dict[str, Any] = {"total_lines": total} if counted else {"lines_counted": total}
    if total == 0:
        return ToolResult.success({"content": "", "encoding": encoding}, total_lines=0)
    if not window:
        raise ToolError(
            "offset_out_of_range",
            f"offset={offset} is past the end of {shown}, which has {total} lines.",
        )
    accumulator = Accumulator.for_limits(READ_LIMITS)
    for index, line in enumerate(window):
        if not accumulator.add(_number(offset + index, reader.decode(line))):
            break
    kept = len(accumulator.head)
    if kept == 0:
        # The first line alone is over the byte cap: it gets its own marker and a way to see it.
        too_long = offset
        workaround = LONG_LINE_WORKAROUND.format(line=too_long, path=shlex.quote(shown))
        marker = (
            f"[Line {too_long} is {window[0].size} bytes, over the {READ_LIMITS.bytes}-byte limit. "
            f"Show a piece of it with: {workaround}]"
        )
        if not counted or total > too_long:
            marker += f"\n[Use offset={too_long + 1} to continue.]"
        return ToolResult.success(
            {"content": marker, "encoding": encoding}, truncated_by="line", **metadata
        )
    last = offset + kept - 1
    content = "\n".join(accumulator.head)
    if not counted or last < total:
        why = " (50 KB limit)" if accumulator.truncated_by == "bytes" else ""
        content += (
            f"\n\n[Showing lines {offset}-{last} of {of}{why}. Use offset={last + 1} to continue.]"
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
    retry_safe=True,  # it only reads: a durable run runs an interrupted call again
)
