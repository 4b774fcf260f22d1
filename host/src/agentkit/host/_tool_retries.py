"""A tool's ``Retry``: the model is asked to call it again, so many turns in a row.

A handler that raises :class:`~agentkit.plugin_api.Retry` gets an error
result (``retry``) carrying its reason and asking for corrected arguments. The
count is per tool and goes up once per turn in which the tool asked (several
calls of one turn count once), and starts again after a turn in which it did
not: pydantic-ai's rule for ``ModelRetry``. Past ``Tool.max_retries`` the
result is a ``retries_exhausted`` error instead, and the run goes on (where
pydantic-ai would end the run). Either way it is a tool result like any
other, so a durable run checkpoints it as one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

# The event loads with the first refusal.
from agentkit import plugin_api
from agentkit.plugin_api import Retry, Tool, ToolError, ToolResult, ToolUseBlock

if TYPE_CHECKING:
    from agentkit.plugin_api import RetryRequested

__all__ = ["REFUSALS", "ToolRetries"]

#: The exceptions a handler raises to choose the error the model sees.
REFUSALS = (ToolError, Retry)


class ToolRetries:
    """One run's count of the turns in a row each tool asked for a retry.

    :param turn: the run's current turn (a caller without turns: always 0, so each ask is the first).
    :param report: told each ask, as a ``retry_requested`` event.
    """

    def __init__(self, turn: Callable[[], int] = lambda: 0,
                 report: Callable[[RetryRequested], None] | None = None) -> None:
        self.turn = turn
        self.report = report
        self._streaks: dict[str, tuple[int, int]] = {}  # tool -> (the last turn it asked, turns in a row)

    def answer(self, tool: Tool, call: ToolUseBlock, exc: ToolError | Retry) -> ToolResult:
        """The result of a call whose handler raised ``exc``."""
        if isinstance(exc, ToolError):
            return ToolResult.failure(exc.error, exc.detail)
        turn = self.turn()
        last, streak = self._streaks.get(tool.name, (-2, 0))
        if last != turn:
            streak = streak + 1 if last == turn - 1 else 1
            self._streaks[tool.name] = (turn, streak)
        retried = streak <= tool.max_retries
        reason = str(exc.reason)
        if self.report is not None:
            self.report(plugin_api.RetryRequested(reason, f"tool:{tool.name}", streak, tool.max_retries, retried, call.id))
        if retried:
            return ToolResult.failure("retry", f"{reason} Call {tool.name} again with corrected arguments.")
        return ToolResult.failure(
            "retries_exhausted", f"{reason} ({tool.name} asked for a retry {streak} turns in a row, more than its "
            f"max_retries={tool.max_retries}: do not call it again for this.)")
