"""write_file: create or replace a file, creating its parent directories inside the root."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

from agentkit.plugin_api import ExecutionMode, Tool, ToolContext, ToolError, ToolResult

from .envelope import enveloped
from .locks import path_locks
from .paths import display_path, resolve_inside

__all__ = ["WRITE_FILE", "atomic_write"]


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old or the new file, never half.

    The file's permission bits survive the replacement.
    """
    try:
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


@enveloped
def write_file(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
    resolved = resolve_inside(context.root, arguments["path"])
    shown = display_path(context.root, resolved)
    if resolved.is_dir():
        raise ToolError("is_a_directory", f"{shown} is a directory; give a file path.")
    data = arguments["content"].encode("utf-8")
    with path_locks.hold(resolved):
        created = not resolved.exists()
        resolved.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(resolved, data)
    return ToolResult.success({"written": shown, "bytes": len(data)}, created=created)


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
