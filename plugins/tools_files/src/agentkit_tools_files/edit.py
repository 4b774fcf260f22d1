"""edit_file: exact, unique, non-overlapping replacements, each located in the original file.

Order of rejection (nothing is written on any of them): an empty
``old_string``; one not found; one found more than once; two edits that
overlap; a result identical to the file. A non-unique match is never a
replace-all.

Only when exact matching leaves an edit unfound does a tolerant pass run
(see :mod:`.fold`): it matches whole lines by their folded key, keeps every
exact match as it was, and splices original lines back wherever the new text
leaves a line unchanged, so untouched lines keep their bytes. If any edit is
still unmatched the whole batch is rejected.

The BOM and CRLF line endings are taken off before matching and put back on
writing, each line's own (a file may mix CRLF and LF; see :class:`_Endings`). The read-modify-write runs under the file's locks, the in-process one
and an OS lock that other processes honour (see :mod:`.locks`).
"""

from __future__ import annotations

import bisect
import difflib
import itertools
import os
import re
from dataclasses import dataclass
from typing import Any

from agentkit.plugin_api import ExecutionMode, Tool, ToolContext, ToolError, ToolResult
from agentkit.plugin_api.results import enveloped
from agentkit.plugin_api.workspace import locate

from .content import BOM, decode_text, encode_text, is_binary, printable
from .fold import fold_line
from .limits import max_file_bytes
from .locks import locked_file
from .writeback import write_back

__all__ = ["EDIT_FILE"]

NOT_UNIQUE = (
    "Found {count} occurrences of the string to replace. The text must be unique. "
    "Please provide more context to make it unique."
)


@dataclass(frozen=True, slots=True)
class _Span:
    start: int
    end: int
    replacement: str


def _find_all(text: str, needle: str) -> list[int]:
    positions, start = [], text.find(needle)
    while start != -1:
        positions.append(start)
        start = text.find(needle, start + 1)
    return positions


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
    return starts


def _split_block(text: str) -> tuple[list[str], bool]:
    """Lines of an old/new string, and whether it ended with a newline."""
    ends_with_newline = text.endswith("\n")
    lines = text.split("\n")
    if ends_with_newline:
        lines.pop()
    return lines, ends_with_newline


class _Folded:
    """The file's lines and their folded keys, built once per tolerant pass."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = _line_starts(text)
        self.lines = text.split("\n")
        # Keyed as read_file shows each line: a stray byte as U+FFFD, which is what the model copies.
        self.keys = [fold_line(printable(line)) for line in self.lines]

    def hits(self, old: str) -> list[int]:
        """Indices of the first lines of every block whose keys equal old's."""
        keys = [fold_line(line) for line in _split_block(old)[0]]
        size = len(keys)
        return [
            first
            for first in range(len(self.keys) - size + 1)
            if self.keys[first : first + size] == keys
        ]

    def span(self, first: int, old: str, new: str) -> _Span:
        old_lines, old_newline = _split_block(old)
        new_lines, new_newline = _split_block(new)
        last = first + len(old_lines) - 1
        start = self.starts[first]
        end = self.starts[last] + len(self.lines[last])
        if old_newline and not new_newline:
            # The old text took the line break after its block and the new text
            # does not give one back: the break goes, as an exact replace would do.
            end = min(end + 1, len(self.text))
        original = self.lines[first : last + 1]
        spliced: list[str] = []
        matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
        for tag, a0, a1, b0, b1 in matcher.get_opcodes():
            # Lines the edit leaves as they were come back with their original bytes.
            spliced.extend(original[a0:a1] if tag == "equal" else new_lines[b0:b1])
        return _Span(start, end, "\n".join(spliced))


def _plan(
    text: str, edits: list[dict[str, str]], at_start: frozenset[int] = frozenset()
) -> tuple[list[_Span], str]:
    """Where each edit lands; ``at_start`` holds the edits that may only match at offset 0."""
    for index, edit in enumerate(edits):
        if edit["old_string"] == "":
            raise ToolError(
                "empty_old_string",
                f"edits[{index}].old_string is empty; give the exact text to replace "
                "(to create a file use write_file).",
            )
    spans: list[_Span | None] = [None] * len(edits)
    counts: list[int] = []
    for index, edit in enumerate(edits):
        hits = _find_all(text, edit["old_string"])
        if index in at_start:
            hits = hits[:1] if hits[:1] == [0] else []
        counts.append(len(hits))
        if len(hits) == 1:
            spans[index] = _Span(hits[0], hits[0] + len(edit["old_string"]), edit["new_string"])
    mode = "exact"
    if 0 in counts:
        # Exact matching failed for the batch: the tolerant pass, for the missing edits only.
        mode = "folded"
        folded = _Folded(text)
        for index, edit in enumerate(edits):
            if counts[index] == 0:
                hits = folded.hits(edit["old_string"])
                if index in at_start:
                    hits = hits[:1] if hits[:1] == [0] else []
                counts[index] = len(hits)
                if len(hits) == 1:
                    spans[index] = folded.span(hits[0], edit["old_string"], edit["new_string"])
    for index, count in enumerate(counts):
        if count == 0:
            raise ToolError(
                "not_found",
                f"edits[{index}].old_string was not found in the file, not even ignoring trailing "
                "whitespace, curly quotes and Unicode composition. Copy it exactly from read_file "
                "output (whole lines, with their indentation).",
            )
    for index, count in enumerate(counts):
        if count > 1:
            raise ToolError("not_unique", f"edits[{index}]: " + NOT_UNIQUE.format(count=count))
    ordered = sorted(
        ((span, index) for index, span in enumerate(spans) if span is not None),
        key=lambda pair: (pair[0].start, pair[0].end),
    )
    for (before, first), (after, second) in itertools.pairwise(ordered):
        if after.start < before.end:
            raise ToolError(
                "overlapping_edits",
                f"edits[{min(first, second)}] and edits[{max(first, second)}] overlap; merge them "
                "into one edit or make them touch different text.",
            )
    return [span for span, _ in ordered], mode


class _Endings:
    """The line endings of a file that has CRLF (all or some), taken off and put back per line.

    Matching runs on the text with every CRLF made LF. Writing puts back each
    line's own ending: text outside the edits is the original, byte for byte;
    the k-th line break of a replacement takes the ending of the k-th break of
    the text it replaces (the last one for any extra break), and a replacement
    of text within one line takes the ending of that line.
    """

    def __init__(self, original: str) -> None:
        self.original = original
        self.normalized = original.replace("\r\n", "\n")
        # Where, in the normalized text, each break that was CRLF is.
        self.crlf: list[int] = [
            match.start() - index for index, match in enumerate(re.finditer("\r\n", original))
        ]
        self._crlf = set(self.crlf)

    def _raw(self, position: int) -> int:
        """The offset in the original of a normalized offset."""
        return position + bisect.bisect_left(self.crlf, position)

    def _ending(self, newline: int) -> str:
        return "\r\n" if newline in self._crlf else "\n"

    def _endings_for(self, span: _Span) -> tuple[list[str], str]:
        text = self.normalized
        inside, position = [], text.find("\n", span.start, span.end)
        while position != -1:
            inside.append(self._ending(position))
            position = text.find("\n", position + 1, span.end)
        if inside:
            return inside, inside[-1]
        after = text.find("\n", span.end)
        before = text.rfind("\n", 0, span.start)
        nearest = after if after != -1 else before
        return [], self._ending(nearest) if nearest != -1 else "\r\n"

    def apply(self, spans: list[_Span]) -> str:
        """The edited file with every line's ending put back."""
        pieces, cursor = [], 0
        for span in spans:
            pieces.append(self.original[self._raw(cursor) : self._raw(span.start)])
            endings, extra = self._endings_for(span)
            lines = span.replacement.split("\n")
            for index, line in enumerate(lines):
                pieces.append(line)
                if index < len(lines) - 1:
                    pieces.append(endings[index] if index < len(endings) else extra)
            cursor = span.end
        pieces.append(self.original[self._raw(cursor) :])
        return "".join(pieces)


def _bom_as_shown(edits: list[dict[str, str]]) -> tuple[list[dict[str, str]], frozenset[int]]:
    """Edits of a file with a BOM, matched as the file shows it with or without its BOM.

    read_file shows the text after the BOM; a raw view (``cat``, a hex dump) shows it
    first. An old_string that starts with the BOM was copied from the very start of the
    file, so it matches only there; the BOM itself is the file's and is written back
    whatever new_string says.
    """
    kept: list[dict[str, str]] = []
    at_start: set[int] = set()
    for index, edit in enumerate(edits):
        old, new = edit["old_string"], edit["new_string"]
        if old.startswith(BOM):
            at_start.add(index)
            old, new = old[1:], new.removeprefix(BOM)
        kept.append({"old_string": old, "new_string": new})
    return kept, frozenset(at_start)


def _read_within(fd: int, limit: int, shown: str) -> bytes:
    """The file's bytes, or ``file_too_large`` if it holds more than ``limit`` (never read then)."""
    size = os.fstat(fd).st_size
    data = b""
    if size <= limit:
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)  # not more, if it grew since
    if size > limit or len(data) > limit:
        raise ToolError(
            "file_too_large",
            f"{shown} is {max(size, len(data))} bytes, over edit_file's limit of {limit} bytes "
            "(the tool option max_file_bytes). Edit it with a command made for large files, or "
            "ask the embedder to raise max_file_bytes.",
        )
    return data


def _apply(text: str, spans: list[_Span]) -> str:
    pieces, cursor = [], 0
    for span in spans:
        pieces.append(text[cursor : span.start])
        pieces.append(span.replacement)
        cursor = span.end
    pieces.append(text[cursor:])
    return "".join(pieces)


@enveloped
def edit_file(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
    edits = arguments["edits"]
    limit = max_file_bytes(context.options)
    with (
        locate(context.root, arguments["path"]) as target,
        locked_file(target, must_exist=True) as (fd, lock),
    ):
        assert fd is not None  # must_exist
        shown = target.shown
        data = _read_within(fd, limit, shown)
        if is_binary(data):
            raise ToolError(
                "binary_file", f"{shown} is a binary file; edit_file changes text only."
            )
        text, encoding = decode_text(data)
        bom = text.startswith(BOM)
        if bom:
            text = text[1:]
        endings = _Endings(text) if "\r\n" in text else None
        if endings is not None:
            text = endings.normalized
            edits = [
                {key: value.replace("\r\n", "\n") for key, value in edit.items()} for edit in edits
            ]
        edits, at_start = _bom_as_shown(edits) if bom else (edits, frozenset())
        spans, mode = _plan(text, edits, at_start)
        result = _apply(text, spans)
        if result == text:
            raise ToolError(
                "no_change",
                "The edits leave the file exactly as it was; nothing was written. Check new_string.",
            )
        if endings is not None:
            result = endings.apply(spans)
        if bom:
            result = BOM + result
        try:
            encoded = encode_text(result, encoding)
        except UnicodeEncodeError as exc:
            raise ToolError(
                "unencodable",
                f"{shown} is {encoding} text and the new text holds {exc.object[exc.start]!r}, "
                "which it cannot store; use characters that encoding has.",
            ) from None
        written = write_back(target, fd, encoded)
    return ToolResult.success(
        {"edits_applied": len(spans)}, match=mode, path=shown, lock=lock, write=written
    )


EDIT_FILE = Tool(
    name="edit_file",
    description=(
        "Replace exact text in a file. Each edit's old_string must occur exactly once in the "
        "ORIGINAL file (all edits are matched against the file as it was before this call, not "
        "after earlier edits in the list) and edits must not overlap. An old_string found more "
        "than once is rejected (add surrounding lines to make it unique); there is no replace-all. "
        "Nothing is written unless every edit applies. Line endings and a BOM are preserved."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the workspace root."},
            "edits": {
                "type": "array",
                "minItems": 1,
                "description": "Replacements, each matched against the original file.",
                "items": {
                    "type": "object",
                    "properties": {
                        "old_string": {"type": "string", "description": "Exact text to replace."},
                        "new_string": {
                            "type": "string",
                            "description": "Text to put in its place.",
                        },
                    },
                    "required": ["old_string", "new_string"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["path", "edits"],
        "additionalProperties": False,
    },
    handler=edit_file,
    execution_mode=ExecutionMode.PARALLEL,
    prompt_guidelines="Read a file before editing it; copy old_string exactly, with enough context to be unique.",
)
