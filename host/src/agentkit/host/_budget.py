"""What a run may spend, and what it has left for the subagents it delegates to.

A :class:`Budget` caps turns, tokens (``Usage.total``) and cost (US dollars).
``AgentConfig.budget`` is a run's own; a delegation takes an explicit slice of
what its parent's run has left (see :mod:`._subagents`). The account of one
run (:class:`~._run_state.RunAccount`, beside the state it reads, so that a run
without a budget loads none of this) counts the run's own turns and usage and
those of its finished delegations, and the slices reserved by delegations still
running: a slice is reserved when a child starts, so concurrent delegations of
one batch can never together take more than their parent had left.
"""

from __future__ import annotations

import math
from typing import TypeVar

from agentkit.plugin_api import Usage
from agentkit.plugin_api._dataclass import dataclass

__all__ = ["UNLIMITED", "Budget", "minus"]


@dataclass(frozen=True)
class Budget:
    """At most this much: turns, tokens (input, output and cache, ``Usage.total``) and cost in US dollars.

    ``None`` leaves a dimension unlimited. Checked after each turn, like a stop
    policy: a run that reaches a limit ends with outcome ``stop_policy`` and
    ``stopped_by="budget"`` (turns also end it through ``max_turns``), so the
    turn in flight may take a run past a token or cost limit.

    :raises ValueError: a limit is negative, or ``turns`` is not a whole number.
    """

    turns: int | None = None
    tokens: int | None = None
    cost: float | None = None

    def __post_init__(self) -> None:
        for name in ("turns", "tokens"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"Budget.{name} must be a whole number, 0 or more, or None; got {value!r}")
        if self.cost is not None and not (isinstance(self.cost, int | float) and math.isfinite(self.cost)
                                          and self.cost >= 0):
            raise ValueError(f"Budget.cost must be a number of US dollars, 0 or more, or None; got {self.cost!r}")

    def within(self, other: Budget) -> Budget:
        """The smaller of the two limits, dimension by dimension."""
        return Budget(_least(self.turns, other.turns), _least(self.tokens, other.tokens),
                      _least(self.cost, other.cost))

    def exhausted_by(self, turns: int, usage: Usage) -> bool:
        """Whether ``turns`` and ``usage`` reach one of the limits.

        An unknown cost (a model without prices) reaches any cost limit: a
        limit that cannot be checked stops the run rather than let it spend.
        """
        return ((self.turns is not None and turns >= self.turns)
                or (self.tokens is not None and usage.total >= self.tokens)
                or (self.cost is not None and (usage.cost is None or usage.cost >= self.cost)))

    @property
    def empty(self) -> bool:
        """Whether nothing at all is left in some dimension."""
        return self.exhausted_by(0, Usage())


#: No limit in any dimension: what a run without a budget has left.
UNLIMITED = Budget()
_Number = TypeVar("_Number", int, float)


def _least(a: _Number | None, b: _Number | None) -> _Number | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


def minus(limit: int | float | None, spent: int | float) -> int | float | None:
    return None if limit is None else max(0, limit - spent)
