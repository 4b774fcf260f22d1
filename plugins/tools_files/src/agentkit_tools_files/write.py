"""write_file: create or replace a file, creating its parent directories inside the root."""

from __future__ import annotations

from typing import Any

from agentkit.plugin_api import ExecutionMode, Tool, ToolContext, ToolResult
from agentkit.plugin_api.results import enveloped
from agentkit.plugin_api.workspace import locate

from .locks import locked_file
from .writeback import write_back

__all__ = ["WRITE_FILE"]


@enveloped
def write_file(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
    data = arguments["content"].encode("utf-8")
    # The lock is taken on an existing file, so an edit in progress is never overwritten by
    # a write that started after it (and the reverse).
    with (
        locate(context.root, arguments["path"], make_parents=True) as target,
        locked_file(target, must_exist=False) as (fd, lock),
    ):
        written = write_back(target, fd, data)
    return ToolResult.success(
        {"written": target.shown, "bytes": len(data)}, created=fd is None, lock=lock, write=written
    )


WRITE_FILE = Tool(
    name="write_file",
    description=(
        "Create a file or replace its whole content (UTF-8). Missing parent directories inside "
        "the workspace are created. To change part of an existing file, use edit_file."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the workspace root."},
            "content": {"type": "string", "description": "The complete new content of the file."},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    },
    handler=write_file,
    execution_mode=ExecutionMode.PARALLEL,
)
