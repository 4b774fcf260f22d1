"""The caps of the file tools; the accumulator they go through is public, in the plugin API.

See :mod:`agentkit.plugin_api.results` for :class:`Accumulator` and :class:`Limits`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentkit.plugin_api.results import Limits, size_option

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "FIND_LIMITS",
    "LIST_LIMITS",
    "LONG_LINE_WORKAROUND",
    "READ_LIMITS",
    "READ_SCAN_BYTES",
    "max_file_bytes",
]

READ_LIMITS = Limits(items=2000)
FIND_LIMITS = Limits(items=1000)
LIST_LIMITS = Limits(items=500)

#: What read_file suggests for a line too long to show: print just that line, capped.
LONG_LINE_WORKAROUND = "sed -n '{line}p' {path} | head -c 51200"

#: How far read_file reads to count a file's lines for its marker; past it the marker says
#: "more than N" (counting costs time, never memory: lines are counted a chunk at a time).
READ_SCAN_BYTES = 64 * 1024 * 1024

#: The largest file edit_file edits whole, unless the embedder's ``max_file_bytes`` tool option
#: says otherwise (an edit holds the file several times over: bytes, text, the result).
DEFAULT_MAX_FILE_BYTES = 32 * 1024 * 1024


def max_file_bytes(options: Mapping[str, Any], default: int = DEFAULT_MAX_FILE_BYTES) -> int:
    """The ``max_file_bytes`` tool option, checked (see :func:`~agentkit.plugin_api.results.size_option`)."""
    return size_option(options, "max_file_bytes", default)
