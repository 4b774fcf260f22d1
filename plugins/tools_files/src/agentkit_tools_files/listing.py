"""list_files and find_files: what is there, through the ignore engine, with caps that say how to see more."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agentkit.plugin_api import Tool, ToolContext, ToolError, ToolResult
from agentkit.plugin_api.results import Accumulator, Limits, enveloped
from agentkit.plugin_api.workspace import Directory, IgnoreEngine, compile_glob, locate

from .limits import FIND_LIMITS, LIST_LIMITS

__all__ = ["FIND_FILES", "LIST_FILES", "page"]


def _directory(context: ToolContext, raw: str) -> tuple[Directory, str]:
    """Open a directory argument: the open directory and its path relative to the real root."""
    with locate(context.root, raw) as target:
        return target.open_directory(), target.relative


def page(
    items: Iterable[str], limits: Limits, limit: int, offset: int, noun: str
) -> tuple[list[str], dict[str, Any], dict[str, Any]]:
    """Cap ``items`` (already in their final order) to one page.

    :returns: the page, the extra data fields (``truncated`` and, when
        truncated, a ``notice`` naming the offset that continues) and metadata.
    """
    accumulator = Accumulator(min(limit, limits.items), limits.bytes)
    total = 0
    first: list[str] = []
    for index, item in enumerate(items, start=1):
        total = index
        if index < offset:
            continue
        if index == offset:
            first.append(item)
        if not accumulator.full:
            accumulator.add(item)
    # A page always shows at least one item, or the offset it names could never advance.
    shown = accumulator.head or first
    data: dict[str, Any] = {"truncated": False}
    metadata: dict[str, Any] = {"total": total}
    last = offset + len(shown) - 1
    if last < total:
        why = " (50 KB limit)" if accumulator.truncated_by == "bytes" else ""
        data["truncated"] = True
        data["notice"] = (
            f"[Showing {noun} {offset}-{last} of {total}{why}. Use offset={last + 1} to continue.]"
        )
        metadata["truncated_by"] = "bytes" if accumulator.truncated_by == "bytes" else "items"
    return shown, data, metadata


def _check_offset(offset: int, total: int, noun: str) -> None:
    if offset > 1 and offset > total:
        raise ToolError(
            "offset_out_of_range", f"offset={offset} is past the last of {total} {noun}."
        )


@enveloped
def list_files(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
    directory, relative = _directory(context, arguments.get("path", "."))
    engine = IgnoreEngine(context.root)
    names = []
    try:
        entries = directory.entries()
    finally:
        directory.close()
    for entry in entries:
        if entry.name == ".git":
            continue
        is_dir = entry.is_dir(follow_symlinks=False)
        if engine.ignored_in(relative, entry.name, is_dir):
            continue
        names.append(entry.name + ("/" if is_dir else ""))
    offset = max(1, arguments.get("offset", 1))  # 0 also means "from the start"
    _check_offset(offset, len(names), "entries")
    shown, data, metadata = page(
        names, LIST_LIMITS, arguments.get("limit", LIST_LIMITS.items), offset, "entries"
    )
    return ToolResult.success({"entries": shown, **data}, **metadata)


@enveloped
def find_files(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
    directory, relative = _directory(context, arguments.get("path", "."))
    directory.close()  # the walk opens it again from the root, refusing any link on the way
    glob = compile_glob(arguments["pattern"])
    wanted = arguments.get("file_type", "file")
    engine = IgnoreEngine(context.root)
    cut = len(relative) + 1 if relative else 0

    def matches() -> Iterable[str]:
        for entry in engine.walk(relative, include_dirs=wanted != "file"):
            if wanted == "directory" and not entry.is_dir:
                continue
            if glob.matches(entry.path[cut:]):
                yield entry.path + ("/" if entry.is_dir else "")

    found = list(matches())
    offset = max(1, arguments.get("offset", 1))  # 0 also means "from the start"
    _check_offset(offset, len(found), "matches")
    files, data, metadata = page(
        found, FIND_LIMITS, arguments.get("limit", FIND_LIMITS.items), offset, "matches"
    )
    return ToolResult.success({"files": files, **data}, **metadata)


_OFFSET = {
    "type": "integer",
    "minimum": 0,
    "description": (
        "First entry to show, counting from 1 (0 also means the first); truncated results name "
        "the offset that continues."
    ),
}

LIST_FILES = Tool(
    name="list_files",
    description=(
        "List one directory of the workspace, sorted, directories ending in '/'. Entries the "
        "project's .gitignore rules exclude are left out (.git too). At most 500 entries or 50 KB "
        "per call; a notice names the offset that continues."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "Directory, relative to the workspace root (default '.').",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": LIST_LIMITS.items,
                "description": "Most entries to return (default and maximum 500).",
            },
            "offset": _OFFSET,
        },
        "additionalProperties": False,
    },
    handler=list_files,
    retry_safe=True,  # it only reads: a durable run runs an interrupted call again
)

FIND_FILES = Tool(
    name="find_files",
    description=(
        "Find files by glob below a directory, skipping what .gitignore rules exclude. Globs: '*' "
        "and '?' within a name, '**' across directories, '{a,b}' alternatives, '[abc]', '[!x]' and "
        "'[[:digit:]]' classes, as git matches them. A glob without '/' matches file names at any depth ('*.py'); one with '/' matches "
        "the path relative to 'path' ('src/**/test_*.py'). Returns paths relative to the workspace "
        "root, sorted; at most 1000 or 50 KB per call, with a notice naming the offset that continues."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "minLength": 1,
                "description": "The glob, e.g. '**/*.py'.",
            },
            "path": {"type": "string", "description": "Directory to search below (default '.')."},
            "file_type": {
                "type": "string",
                "enum": ["file", "directory", "any"],
                "description": "What to return (default 'file'); directories end in '/'.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": FIND_LIMITS.items,
                "description": "Most paths to return (default and maximum 1000).",
            },
            "offset": _OFFSET,
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
    handler=find_files,
    retry_safe=True,  # it only reads: a durable run runs an interrupted call again
)
