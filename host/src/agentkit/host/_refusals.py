"""Why a run's final answer was refused, and the error its run ends with when no retry is left."""

from __future__ import annotations

from agentkit.plugin_api import Outcome
from agentkit.plugin_api._dataclass import dataclass

from ._run_state import RetryBudget

__all__ = ["Refusal", "ValidatorFailed", "exhausted"]


@dataclass(frozen=True)
class Refusal:
    """Why an answer was refused, by whom, and how its run ends when no retry is left.

    :param terminate: no retry, whatever the budget (a guardrail's ``Block(reason, terminate=True)``).
    """

    reason: str
    by: str
    outcome: Outcome
    terminate: bool = False


class ValidatorFailed(Exception):
    """An output validator raised something else than ``Retry``: the run ends as ``error``."""


def exhausted(refusal: Refusal, budget: RetryBudget) -> str:
    """The run's error once the answer was refused for good."""
    if refusal.terminate:
        return f"{refusal.by} refused the answer: {refusal.reason}"
    retries = "retry" if budget.limit == 1 else "retries"
    return f"{refusal.by} refused the answer after {budget.limit} {retries}: {refusal.reason}"
