"""``/compact``: the host's summarizing compaction, made to cut now rather than when the window fills."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentkit.host import Agent, Compaction

#: Of the model's context window, how much a chat's requests may fill before the older part is summarized.
WINDOW_SHARE = 0.75


def chat_compaction(context_window: int) -> Compaction:
    """A chat's compaction: summarize what is cut once a request would pass a share of the window."""
    from agentkit.host import Compaction

    return Compaction.summarize(max(1, int(context_window * WINDOW_SHARE)))


async def compact_now(agent: Agent) -> str | None:
    """Cut the agent's history now: the last turn kept, what precedes it summarized by the agent's model.

    The cut is recorded in the session as any compaction is (a ``compaction``
    entry), and the agent's requests start from it. Returns the summary
    (``""`` when the summary failed and the cut only dropped turns), or
    ``None`` when there is nothing before the last prompt to cut.
    """
    from agentkit.host import Compaction
    from agentkit.host._compaction import Compactor
    from agentkit.plugin_api import UserMessage

    if sum(isinstance(message, UserMessage) for message in agent.history) < 2:
        return None  # a single prompt and its answer: nothing before them to summarize
    # The whole history is summarized afresh (an earlier summary's ground included): one cut, from the start.
    forced = Compactor(Compaction.summarize(1, keep_tokens=1, max_turns=1))
    _, checkpoint = await forced.view(agent, asyncio.Event())
    if checkpoint is None or agent.session is None:
        return None
    for entry in reversed(agent.session.path()):
        if entry.message is checkpoint.first_kept:
            agent.session.append_compaction(checkpoint.summary or "", entry.id)
            break
    agent.compactor.restore(agent.history, checkpoint.first_kept, checkpoint.summary)
    return checkpoint.summary or ""
