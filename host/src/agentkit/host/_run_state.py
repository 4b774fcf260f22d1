"""What a run has done so far, and how it ends: the part of a run that changes as it goes."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from agentkit.plugin_api import Message, Outcome, Usage
from agentkit.plugin_api._dataclass import dataclass

__all__ = ["RetryBudget", "RunState"]


@dataclass
class RunState:
    """What a run has done so far, and how it ends."""

    added: list[Message] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    turn: int = 0
    outcome: Outcome = Outcome.COMPLETED
    error: str | None = None
    stopped_by: str | None = None
    skills: list[str] = field(default_factory=list)
    output: Any = None  # the validated value of a run with an output_type


@dataclass
class RetryBudget:
    """The retries a run's final answer has (``AgentConfig.output_retries``), and the refusals so far."""

    limit: int
    refusals: int = 0

    def refuse(self) -> bool:
        """Count one refusal; whether the model may try again."""
        self.refusals += 1
        return self.refusals <= self.limit
