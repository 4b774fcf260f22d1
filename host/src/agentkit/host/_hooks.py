"""Calls plugin lifecycle hooks so that no plugin can take a run down.

Each implementation is called on its own, in pluggy's order, with only the
arguments it asked for (specs only ever gain arguments). An exception is
reported, attributed to its plugin, and never propagates; in
``agentkit_before_tool_call`` it blocks the call instead (fail closed).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pluggy

from agentkit.plugin_api import Block, SessionInfo, ToolResultMessage, ToolUseBlock

log = logging.getLogger("agentkit.host")


class HookRunner:
    """The plugin hooks of one run, and the problems they caused."""

    def __init__(self, impls: Callable[[str], list[pluggy.HookImpl]]) -> None:
        self._impls = impls
        self.problems: list[str] = []

    def report(self, problem: str) -> None:
        log.warning("%s", problem)
        self.problems.append(problem)

    def _call(self, impl: pluggy.HookImpl, **kwargs: Any) -> Any:
        return impl.function(**{name: kwargs[name] for name in impl.argnames if name in kwargs})

    def before_tool_call(self, call: ToolUseBlock, arguments: dict[str, Any], session: SessionInfo) -> Block | None:
        """The first plugin block, or ``None``; a raising hook blocks (fail closed)."""
        for impl in self._impls("agentkit_before_tool_call"):
            try:
                outcome = self._call(impl, call=call, arguments=dict(arguments), session=session)
            except Exception as exc:
                self.report(f"plugin {impl.plugin_name!r} agentkit_before_tool_call raised {type(exc).__name__}: {exc}")
                return Block(f"Blocked: the check of plugin {impl.plugin_name!r} failed ({type(exc).__name__}).")
            if isinstance(outcome, Block):
                return outcome
        return None

    def notify(self, hook: str, **kwargs: Any) -> None:
        """Call an observing hook on every plugin; exceptions are reported only."""
        for impl in self._impls(hook):
            try:
                self._call(impl, **kwargs)
            except Exception as exc:
                self.report(f"plugin {impl.plugin_name!r} {hook} raised {type(exc).__name__}: {exc}")

    def after_tool_call(self, call: ToolUseBlock, result: ToolResultMessage, session: SessionInfo) -> None:
        self.notify("agentkit_after_tool_call", call=call, result=result, session=session)
