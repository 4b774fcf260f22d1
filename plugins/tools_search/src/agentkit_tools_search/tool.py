"""search_files: the tool, its schema, the choice of backend and the capped answer."""

from __future__ import annotations

import json
import stat
from typing import Any

from agentkit.plugin_api import Tool, ToolContext, ToolError, ToolResult
from agentkit.plugin_api.results import Accumulator, Limits, clip_line, enveloped, size_option
from agentkit.plugin_api.workspace import IgnoreEngine, compile_glob, locate

from .dialect import PatternError, UntranslatablePattern, translate
from .native import search_native
from .query import (
    DEFAULT_MAX_FILE_BYTES,
    FileList,
    Match,
    Outcome,
    Query,
    smart_case_ignores,
    walk_files,
)
from .ripgrep import RipgrepError, RipgrepRefused, find_rg, search_rg

__all__ = ["SEARCH_FILES", "SEARCH_LIMITS", "run_search"]

#: At most 100 matches, 500 characters per line and 50 KB per call.
SEARCH_LIMITS = Limits(items=100, line_chars=500)


def _clip(text: str, file: str, line: int) -> str:
    clipped, was_clipped = clip_line(text, SEARCH_LIMITS.line_chars)
    if not was_clipped:
        return clipped
    return (
        f"{clipped}… [line clipped at {SEARCH_LIMITS.line_chars} characters; "
        f"see it whole with read_file(path={json.dumps(file, ensure_ascii=False)}, offset={line}, limit=1)]"
    )


def _render(match: Match) -> dict[str, Any]:
    first = match.line - len(match.before)
    return {
        "file": match.file,
        "line": match.line,
        "text": _clip(match.text, match.file, match.line),
        "before": [_clip(t, match.file, first + i) for i, t in enumerate(match.before)],
        "after": [_clip(t, match.file, match.line + 1 + i) for i, t in enumerate(match.after)],
    }


#: How many files left out for their size a notice names (the rest are counted).
NAMED_OVERSIZE = 5


def _oversize_notice(oversize: list[tuple[str, int]], limit: int) -> str:
    named = ", ".join(f"{path} ({size} bytes)" for path, size in oversize[:NAMED_OVERSIZE])
    more = f" and {len(oversize) - NAMED_OVERSIZE} more" if len(oversize) > NAMED_OVERSIZE else ""
    return (
        f"[Not searched, over the {limit}-byte limit (tool option max_file_bytes): {named}{more}. "
        "Search such a file with a command made for large files.]"
    )


def _native(query: Query) -> Outcome:
    try:
        return search_native(query)
    except UntranslatablePattern as exc:
        raise ToolError("pattern_needs_rg", str(exc)) from None


def run_search(query: Query, backend: str, rg: str | None) -> Outcome:
    """Run ``query`` on the chosen backend ("auto", "rg" or "native")."""
    if backend == "native" or (backend == "auto" and rg is None):
        return _native(query)
    if rg is None:
        raise ToolError(
            "rg_not_found", "backend 'rg' was asked for but no rg executable was found."
        )
    try:
        return search_rg(query, rg)
    except RipgrepRefused as exc:
        # The dialect is ripgrep's: what it refuses is not a pattern, on either backend.
        raise ToolError(
            "invalid_pattern",
            f"{query.pattern!r} is not a valid regular expression: {exc}",
        ) from None
    except RipgrepError as exc:
        # An rg that will not run: the native backend answers the same contract.
        outcome = _native(query)
        outcome.backend = f"native (rg failed: {str(exc).splitlines()[0][:200]})"
        return outcome


@enveloped
def search_files(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
    pattern = arguments["pattern"]
    try:
        translate(pattern)
    except PatternError as exc:
        raise ToolError("invalid_pattern", str(exc)) from None
    except UntranslatablePattern:
        pass  # ripgrep matches it; the native backend refuses it if it is the one chosen
    options = context.options or {}
    limit = size_option(options, "max_file_bytes", DEFAULT_MAX_FILE_BYTES)
    glob = compile_glob(arguments["file_glob"]) if arguments.get("file_glob") else None
    engine = IgnoreEngine(context.root)
    with locate(context.root, arguments.get("path", ".")) as target:
        info = target.lstat()
        relative = target.relative
    if info is None:
        raise ToolError("not_found", f"{relative or '.'} does not exist.")
    # The walk and the backends open everything again from the root, refusing links.
    backend, rg = options.get("backend", "auto"), find_rg(options.get("rg_path"))
    oversize: list[tuple[str, int]] = []
    if stat.S_ISDIR(info.st_mode):
        # ripgrep reads a file it is handed to its end, whatever its size: the walk leaves out what is
        # too large for it, at a stat per file. The native backend needs none: it reads each file
        # through a descriptor whose size it checks first (bench_search: the walk's stat made a
        # native search of 20,000 files up to 1.4x slower).
        rg_may_run = backend != "native" and rg is not None
        files = FileList(walk_files(engine, relative, glob, limit if rg_may_run else None, oversize))
    elif not stat.S_ISREG(info.st_mode) or (
        glob is not None and not glob.matches(relative.rsplit("/", 1)[-1])
    ):
        files = FileList([])
    elif info.st_size > limit:
        raise ToolError(
            "file_too_large",
            f"{relative} is {info.st_size} bytes, over search_files' limit of {limit} bytes "
            "(the tool option max_file_bytes). Search it with a command made for large files, "
            "or ask the embedder to raise max_file_bytes.",
        )
    else:
        files = FileList([relative])
    case_sensitive = arguments.get("case_sensitive")
    ignore_case = smart_case_ignores(pattern) if case_sensitive is None else not case_sensitive
    max_matches = arguments.get("max_matches", SEARCH_LIMITS.items)
    offset = max(1, arguments.get("offset", 1))  # 0 also means "from the start"
    query = Query(
        pattern,
        ignore_case,
        arguments.get("context_lines", 0),
        engine.root,
        files,
        needed=offset - 1 + max_matches,
        max_file_bytes=limit,
    )
    outcome = run_search(query, backend, rg)
    if offset > 1 and offset > len(outcome.matches):
        raise ToolError(
            "offset_out_of_range",
            f"offset={offset} is past the last of {len(outcome.matches)} matches.",
        )
    accumulator = Accumulator(max_matches, SEARCH_LIMITS.bytes)
    shown_matches: list[dict[str, Any]] = []
    for match in outcome.matches[offset - 1 :]:
        rendered = _render(match)
        if not accumulator.add(json.dumps(rendered, ensure_ascii=False)) and shown_matches:
            break
        # A page always shows at least one match, or the offset it names could never advance.
        shown_matches.append(rendered)
    last = offset - 1 + len(shown_matches)
    truncated = len(outcome.matches) > last
    data: dict[str, Any] = {
        "matches": shown_matches,
        "truncated": truncated,
        "files_searched": outcome.files_searched,
    }
    metadata: dict[str, Any] = {"backend": outcome.backend, "files_listed": files.listed}
    if truncated:
        why = " (50 KB limit)" if accumulator.truncated_by == "bytes" else ""
        data["notice"] = (
            f"[Showing matches {offset}-{last}{why}; there are more. Use offset={last + 1} to "
            "continue, or narrow the search with path or file_glob.]"
        )
        metadata["truncated_by"] = "bytes" if accumulator.truncated_by == "bytes" else "matches"
    oversize.extend(outcome.oversize)
    if oversize:
        skipped = _oversize_notice(oversize, limit)
        data["notice"] = f"{data['notice']} {skipped}" if "notice" in data else skipped
        metadata["oversize"] = len(oversize)
    return ToolResult.success(data, **metadata)


SEARCH_FILES = Tool(
    name="search_files",
    description=(
        "Search file contents with a regular expression (ripgrep's Rust regex syntax), line by "
        "line, skipping "
        "what .gitignore rules exclude and binary files. Case-insensitive unless the pattern has an "
        "uppercase letter (or set case_sensitive). Returns matches in file and line order with "
        "context lines; at most 100 matches, 500 characters per line and 50 KB per call, with a "
        "notice naming the offset that continues."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1, "description": "Regular expression."},
            "path": {"type": "string", "description": "File or directory to search (default '.')."},
            "context_lines": {
                "type": "integer",
                "minimum": 0,
                "maximum": 20,
                "description": "Lines of context before and after each match (default 0).",
            },
            "file_glob": {
                "type": "string",
                "minLength": 1,
                "description": "Only files matching this glob, e.g. '*.py' or 'src/**/*.{ts,tsx}'.",
            },
            "case_sensitive": {
                "type": "boolean",
                "description": "Force case sensitivity; default is smart case.",
            },
            "max_matches": {
                "type": "integer",
                "minimum": 1,
                "maximum": SEARCH_LIMITS.items,
                "description": "Most matches to return (default and maximum 100).",
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "description": "First match to return, counting from 1 (0 also means the first); a notice names it.",
            },
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
    handler=search_files,
    retry_safe=True,  # it only reads: a durable run runs an interrupted call again
)
