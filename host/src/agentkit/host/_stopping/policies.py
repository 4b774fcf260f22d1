"""Stop policies: predicates consulted after a turn's results are in history.

A policy is any callable taking a :class:`StopContext` and returning true to
stop. A run a policy ends has the outcome ``max_turns`` (the policy
:func:`max_turns` builds) or ``stop_policy`` (any other), and reports the
policy's ``name`` as its ``stopped_by``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from agentkit.plugin_api import AssistantMessage, Message, Outcome, ToolResultMessage, Usage
from agentkit.plugin_api._dataclass import dataclass


@dataclass(frozen=True)
class StopContext:
    """What a stop policy sees after turn ``turn``."""

    turn: int
    message: AssistantMessage
    tool_results: Sequence[ToolResultMessage]
    history: Sequence[Message]
    new_messages: Sequence[Message]
    usage: Usage


class StopPolicy:
    """A named predicate over :class:`StopContext`; combine with ``|``."""

    #: The outcome of a run this policy ends.
    outcome: ClassVar[Outcome] = Outcome.STOP_POLICY

    def __init__(self, predicate: Callable[[StopContext], bool], name: str = "stop_policy") -> None:
        self.predicate = predicate
        self.name = name

    def check(self, context: StopContext) -> str | None:
        """The name of the policy that says stop, else ``None``."""
        fired = self.fired(context)
        return fired.name if fired is not None else None

    def fired(self, context: StopContext) -> StopPolicy | None:
        """The policy that says stop (this one, or one it combines), else ``None``."""
        return self if self.predicate(context) else None

    def __call__(self, context: StopContext) -> bool:
        return self.check(context) is not None

    def __or__(self, other: StopPolicy | Callable[[StopContext], bool]) -> StopPolicy:
        return any_of(self, other)


class _AnyOf(StopPolicy):
    def __init__(self, policies: Sequence[StopPolicy]) -> None:
        super().__init__(lambda context: self.fired(context) is not None, "any_of")
        self.policies = policies

    def fired(self, context: StopContext) -> StopPolicy | None:
        for policy in self.policies:
            fired = policy.fired(context)
            if fired is not None:
                return fired
        return None


class _MaxTurns(StopPolicy):
    outcome: ClassVar[Outcome] = Outcome.MAX_TURNS


def as_policy(policy: StopPolicy | Callable[[StopContext], bool]) -> StopPolicy:
    return policy if isinstance(policy, StopPolicy) else StopPolicy(policy)


def max_turns(limit: int) -> StopPolicy:
    """Stop after ``limit`` turns; the run's outcome is ``max_turns``."""
    if limit < 1:
        raise ValueError(f"max_turns must be at least 1, got {limit}")
    return _MaxTurns(lambda context: context.turn >= limit, "max_turns")


def stop_when(predicate: Callable[[StopContext], bool], name: str = "stop_policy") -> StopPolicy:
    """Stop when ``predicate`` is true; the run's outcome is ``stop_policy`` and its ``stopped_by`` is ``name``."""
    return StopPolicy(predicate, name)


def any_of(*policies: StopPolicy | Callable[[StopContext], bool]) -> StopPolicy:
    """Stop when any policy says so; the first that does is the one the run reports."""
    return _AnyOf([as_policy(policy) for policy in policies])
