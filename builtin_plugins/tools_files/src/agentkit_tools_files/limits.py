"""The caps of the file tools; the accumulator they go through is public, in the plugin API.

See :mod:`agentkit.plugin_api.results` for :class:`Accumulator` and :class:`Limits`.
"""

from __future__ import annotations

from agentkit.plugin_api.results import Limits

__all__ = ["FIND_LIMITS", "LIST_LIMITS", "LONG_LINE_WORKAROUND", "READ_LIMITS"]

READ_LIMITS = Limits(items=2000)
FIND_LIMITS = Limits(items=1000)
LIST_LIMITS = Limits(items=500)

#: What read_file suggests for a line too long to show: print just that line, capped.
LONG_LINE_WORKAROUND = "sed -n '{line}p' {path} | head -c 51200"
