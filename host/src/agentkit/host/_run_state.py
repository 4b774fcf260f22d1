"""What a run has done so far, and how it ends: the part of a run that changes as it goes, and its spending."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import Message, Outcome, Usage

if TYPE_CHECKING:
    from ._budget import Budget

__all__ = ["RetryBudget", "RunAccount", "RunState"]


class RunState:
    """What a run has done so far, and how it ends.

    A plain class, not a dataclass: nothing compares, copies or prints one, and declaring it and
    :class:`RetryBudget` as dataclasses was 0.6 M instructions of a first use (``bench/_first_use.py``
    under callgrind).
    """

    def __init__(self) -> None:
        self.added: list[Message] = []
        self.usage = Usage()
        self.turn = 0
        self.outcome = Outcome.COMPLETED
        self.error: str | None = None
        self.stopped_by: str | None = None
        self.skills: list[str] = []
        self.output: Any = None  # the validated value of a run with an output_type


class RetryBudget:
    """The retries a run's final answer has (``AgentConfig.output_retries``), and the refusals so far."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.refusals = 0

    def refuse(self) -> bool:
        """Count one refusal; whether the model may try again."""
        self.refusals += 1
        return self.refusals <= self.limit


class RunAccount:
    """One run's spending: its own turns and usage (in its ``RunState``), its delegations', its reservations."""

    def __init__(self, state: RunState, budget: Budget | None) -> None:
        self.state = state
        # Only the run's budget is shared out: max_turns counts the run's own turns, and stays its own.
        self.limit = budget  # None: no limit
        self.delegated_turns = 0
        self._reserved: list[Budget] = []

    @property
    def spent_turns(self) -> int:
        return self.state.turn + self.delegated_turns

    def exhausted(self) -> bool:
        """Whether the run has spent its budget (its delegations' spending included)."""
        return self.limit is not None and self.limit.exhausted_by(self.spent_turns, self.state.usage)

    def remaining(self) -> Budget:
        """What is left: the limit, less what was spent and what running delegations reserved."""
        # Here, not at the top (once a delegation): a run without a budget that delegates nothing needs none of it.
        from ._budget import UNLIMITED, Budget, minus

        limit = self.limit or UNLIMITED
        turns = self.spent_turns + sum(item.turns or 0 for item in self._reserved)
        tokens = self.state.usage.total + sum(item.tokens or 0 for item in self._reserved)
        spent = self.state.usage.cost
        # An unknown cost leaves nothing of a cost limit that can be vouched for.
        cost = spent + sum(item.cost or 0 for item in self._reserved) if spent is not None else float("inf")
        return Budget(minus(limit.turns, turns), minus(limit.tokens, tokens),  # type: ignore[arg-type]
                      minus(limit.cost, cost))

    def reserve(self, wanted: Budget) -> Budget:
        """Take ``wanted`` (or what is left, if less) for a delegation; :meth:`settle` gives it back."""
        grant = wanted.within(self.remaining())
        self._reserved.append(grant)
        return grant

    def settle(self, grant: Budget, turns: int, usage: Usage) -> None:
        """A delegation ended: release its reservation and charge what it spent to this run."""
        self._reserved.remove(grant)
        self.delegated_turns += turns
        self.state.usage = self.state.usage + usage
