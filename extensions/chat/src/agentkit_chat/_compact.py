"""A chat's compaction: the host's summarizing one, at a share of the model's window (``/compact`` cuts now)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentkit.host import Compaction

#: Of the model's context window, how much a chat's requests may fill before the older part is summarized.
WINDOW_SHARE = 0.75


def chat_compaction(context_window: int) -> Compaction:
    """A chat's compaction: summarize what is cut once a request would pass a share of the window."""
    from agentkit.host import Compaction

    return Compaction.summarize(max(1, int(context_window * WINDOW_SHARE)))
