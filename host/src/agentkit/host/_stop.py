"""Stop policies: predicates consulted after a turn's results are in history.

A policy is any callable taking a :class:`StopContext` and returning true to
stop. Policies built here also carry the ``name`` the run reports as its stop
reason (``max_turns``, or ``stop_policy`` for a caller's predicate).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agentkit.plugin_api import AssistantMessage, Message, ToolResultMessage, Usage


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

    def __init__(self, predicate: Callable[[StopContext], bool], name: str = "stop_policy") -> None:
        self.predicate = predicate
        self.name = name

    def check(self, context: StopContext) -> str | None:
        """The stop reason when the policy says stop, else ``None``."""
        return self.name if self.predicate(context) else None

    def __call__(self, context: StopContext) -> bool:
        return self.check(context) is not None

    def __or__(self, other: StopPolicy | Callable[[StopContext], bool]) -> StopPolicy:
        return any_of(self, other)


class _AnyOf(StopPolicy):
    def __init__(self, policies: Sequence[StopPolicy]) -> None:
        super().__init__(lambda context: self.check(context) is not None, "any_of")
        self.policies = policies

    def check(self, context: StopContext) -> str | None:
        for policy in self.policies:
            reason = policy.check(context)
            if reason:
                return reason
        return None


def as_policy(policy: StopPolicy | Callable[[StopContext], bool]) -> StopPolicy:
    return policy if isinstance(policy, StopPolicy) else StopPolicy(policy)


def max_turns(limit: int) -> StopPolicy:
    """Stop after ``limit`` turns; the run's stop reason is ``max_turns``."""
    if limit < 1:
        raise ValueError(f"max_turns must be at least 1, got {limit}")
    return StopPolicy(lambda context: context.turn >= limit, "max_turns")


def stop_when(predicate: Callable[[StopContext], bool], name: str = "stop_policy") -> StopPolicy:
    """Stop when ``predicate`` is true; the run reports ``name``."""
    return StopPolicy(predicate, name)


def any_of(*policies: StopPolicy | Callable[[StopContext], bool]) -> StopPolicy:
    """Stop when any policy says so; the first that does names the reason."""
    return _AnyOf([as_policy(policy) for policy in policies])
