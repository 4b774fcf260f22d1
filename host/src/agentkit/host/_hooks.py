"""Calls plugin lifecycle hooks so that no plugin can take a run down.

Each plugin's implementations are called through pluggy's own machinery
(:meth:`PluginHost.hook_callers`), one plugin at a time, in pluggy's call
order (``tryfirst``/``trylast`` honoured): an implementation receives
exactly the arguments it declares, as pluggy passes them, and one plugin
that raises never skips another's objection or observation. Whatever a hook
raises (``SystemExit`` included) is reported, attributed to its plugin, and
never propagates; in ``agentkit_before_tool_call`` it blocks the call (fail
closed), and so does an answer that is neither ``None``, a
:class:`~agentkit.plugin_api.Block` nor a :class:`~agentkit.plugin_api.Defer`.

What a hook receives cannot change what was authorized nor what enters the
history: each plugin gets its own copies, the arguments deep and read-only
(see ``_readonly``), everything else deep copies (the session too: a frozen
dataclass still yields to ``object.__setattr__``, and tools run in its root).
"""

from __future__ import annotations

import copy
import logging
import reprlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import Block, Defer, SessionInfo, ToolResultMessage, ToolUseBlock

if TYPE_CHECKING:  # annotations only: the run's events load with the first one heard
    from agentkit.plugin_api import Event

log = logging.getLogger("agentkit.host")

BEFORE = "agentkit_before_tool_call"
AFTER = "agentkit_after_tool_call"
RUN_OBSERVER = "agentkit_run_observer"
MCP_SERVERS = "agentkit_mcp_servers"
INPUT_GUARDRAIL = "agentkit_input_guardrail"
OUTPUT_GUARDRAIL = "agentkit_output_guardrail"
#: Events run observers are not shown: the pieces of a response, whole on ``message_end``.
STREAMED_PIECES = frozenset({"block_start", "block_delta", "block_end", "output_partial"})


def streamed_piece(event: Event) -> bool:
    """Whether ``event`` is a piece of a response, a subagent's included (it arrives wrapped)."""
    while event.type == "subagent":
        event = event.event
    return event.type in STREAMED_PIECES

#: ``hook name -> [(plugin name, a caller of that plugin's implementations)]`` in call order.
HookCallers = Callable[[str], Sequence[tuple[str, Callable[..., Any]]]]


class HookRunner:
    """The plugin hooks of one run, and the problems they caused.

    :param callers: :meth:`PluginHost.hook_callers`, or any function of that shape.
    """

    def __init__(self, callers: HookCallers) -> None:
        self._callers = callers
        self.problems: list[str] = []
        #: Which plugin blocked a call, by call id (``plugin:<name>``), for the audit trail.
        self.blocked_by: dict[str, str] = {}

    def report(self, problem: str) -> None:
        """Record a problem of the run (it ends up in ``RunResult.problems``)."""
        log.warning("%s", problem)
        self.problems.append(problem)

    def before_tool_call(self, call: ToolUseBlock, arguments: dict[str, Any],
                         session: SessionInfo) -> Block | Defer | None:
        """The first plugin block, else the first deferral, else ``None``.

        A raising hook or an unknown answer blocks (fail closed). A deferral
        does not stop the scan: a later plugin's block still wins over it.
        """
        deferred: tuple[str, Defer] | None = None
        for plugin, caller in self._callers(BEFORE):
            # Imported here: only a plugin's before_tool_call reads a read-only view, and a run without
            # one never loads the views (0.7 M instructions of a first use, bench/_first_use.py).
            from ._readonly import read_only

            self.blocked_by[call.id] = f"plugin:{plugin}"  # dropped below when no plugin objects
            try:
                answer = caller(call=copy.deepcopy(call), arguments=read_only(arguments), session=copy.deepcopy(session))
            except BaseException as exc:  # a plugin may raise anything, SystemExit included
                self.report(f"plugin {plugin!r} {BEFORE} raised {type(exc).__name__}: {exc}")
                return Block(f"Blocked: the check of plugin {plugin!r} failed ({type(exc).__name__}).")
            if answer is None:
                continue
            if isinstance(answer, Block):
                return self._plain_block(plugin, answer)
            if isinstance(answer, Defer):
                deferred = deferred or (plugin, self._plain_defer(plugin, answer))
                continue
            self.report(f"plugin {plugin!r} {BEFORE} returned {reprlib.repr(answer)}; only None (no objection), "
                        "a Block or a Defer is understood, so the call was blocked")
            return Block(f"Blocked: the check of plugin {plugin!r} answered neither None, a Block nor a Defer.")
        if deferred is not None:
            self.blocked_by[call.id] = f"plugin:{deferred[0]}"  # who asked for the person, should they deny
            return deferred[1]
        self.blocked_by.pop(call.id, None)
        return None

    def _plain_defer(self, plugin: str, answer: Defer) -> Defer:
        """A plain ``Defer`` of the host's, read here where what its fields raise is contained (see below)."""
        try:
            reason = answer.reason
        except BaseException as exc:  # a plugin may raise anything, SystemExit included
            self.report(f"plugin {plugin!r} {BEFORE} returned a Defer whose reason raised {type(exc).__name__}: {exc}")
            reason = None
        if type(reason) is not str:
            if reason is not None:
                self.report(f"plugin {plugin!r} {BEFORE} returned a Defer whose reason is {reprlib.repr(reason)}, "
                            "not text")
            reason = f"Plugin {plugin!r} asks a person to approve this call."
        return Defer(reason)

    def _plain_block(self, plugin: str, answer: Block, hook: str = BEFORE) -> Block:
        """A plain ``Block`` of the host's, read from a plugin's here, where what it raises is contained.

        A subclass (a ``reason`` property that raises, say) or a reason that
        is not text would otherwise fail the run later, outside any guard.
        """
        try:
            reason, terminate = answer.reason, answer.terminate
        except BaseException as exc:  # a plugin may raise anything, SystemExit included
            self.report(f"plugin {plugin!r} {hook} returned a Block whose fields raised {type(exc).__name__}: {exc}")
            return Block(f"Blocked: the check of plugin {plugin!r} failed ({type(exc).__name__}).")
        if type(reason) is not str:
            self.report(f"plugin {plugin!r} {hook} returned a Block whose reason is {reprlib.repr(reason)}, not text")
            reason = f"Blocked by plugin {plugin!r}."
        return Block(reason, terminate=terminate is True)

    def notify(self, hook: str, **kwargs: Any) -> None:
        """Call an observing hook on every plugin; what they raise or return is reported only."""
        for plugin, caller in self._callers(hook):
            try:
                answers = caller(**{name: copy.deepcopy(value) for name, value in kwargs.items()})
            except BaseException as exc:  # a plugin may raise anything, SystemExit included
                self.report(f"plugin {plugin!r} {hook} raised {type(exc).__name__}: {exc}")
                continue
            ignored = [answer for answer in answers or () if answer is not None]
            if ignored:
                self.report(f"plugin {plugin!r} {hook} returned {reprlib.repr(ignored[0])}; an observing hook "
                            "changes nothing, so the value was ignored")

    def after_tool_call(self, call: ToolUseBlock, result: ToolResultMessage, session: SessionInfo) -> None:
        """Show every plugin the result; none can change the one that enters the history."""
        self.notify(AFTER, call=call, result=result, session=session)

    def guardrail(self, hook: str, **kwargs: Any) -> tuple[str, str, bool] | None:
        """The first refusal of a guardrail hook, ``(plugin, reason, terminate)``, or ``None``.

        Every plugin is asked, even after a refusal (the guardrails are AND-ed
        and each may keep its own record); a raising plugin or an answer that
        is neither ``None`` nor a ``Block`` refuses (fails closed), named in the reason.
        """
        refusal: tuple[str, str, bool] | None = None
        for plugin, caller in self._callers(hook):
            try:
                answers = caller(**{name: copy.deepcopy(value) for name, value in kwargs.items()})
            except BaseException as exc:  # a plugin may raise anything, SystemExit included
                self.report(f"plugin {plugin!r} {hook} raised {type(exc).__name__}: {exc}")
                refusal = refusal or (plugin, f"the guardrail of plugin {plugin!r} failed ({type(exc).__name__}: {exc})",
                                      False)
                continue
            for answer in answers or ():
                if answer is None:
                    continue
                if isinstance(answer, Block):
                    block = self._plain_block(plugin, answer, hook)
                    refusal = refusal or (plugin, block.reason, block.terminate)
                    continue
                self.report(f"plugin {plugin!r} {hook} returned {reprlib.repr(answer)}; only None (no objection) or "
                            "a Block is understood, so it counts as a refusal")
                refusal = refusal or (plugin, f"the guardrail of plugin {plugin!r} answered neither None nor a Block",
                                      False)
        return refusal

    def mcp_servers(self, tools: Sequence[str]) -> list[tuple[str, object]]:
        """``(plugin, answer)`` for each plugin's ``agentkit_mcp_servers`` answer about ``tools``."""
        answers: list[tuple[str, object]] = []
        for plugin, caller in self._callers(MCP_SERVERS):
            try:
                answers.extend((plugin, answer) for answer in caller(tools=list(tools)))
            except BaseException as exc:  # a plugin may raise anything, SystemExit included
                self.report(f"plugin {plugin!r} {MCP_SERVERS} raised {type(exc).__name__}: {exc}; its servers are "
                            "left out of the audit")
        return answers

    def run_observers(self, session: SessionInfo) -> list[tuple[str, Callable[[Event], object]]]:
        """The ``(plugin, observer)`` of each plugin that asked to observe this run."""
        observers: list[tuple[str, Callable[[Event], object]]] = []
        for plugin, caller in self._callers(RUN_OBSERVER):
            try:
                answers = caller(session=copy.deepcopy(session))
            except BaseException as exc:  # a plugin may raise anything, SystemExit included
                self.report(f"plugin {plugin!r} {RUN_OBSERVER} raised {type(exc).__name__}: {exc}")
                continue
            for answer in answers or ():
                if callable(answer):
                    observers.append((plugin, answer))
                elif answer is not None:
                    self.report(f"plugin {plugin!r} {RUN_OBSERVER} returned {reprlib.repr(answer)}; only None "
                                "or a function of an event is understood, so it observes nothing of this run")
        return observers

    def observe(self, observers: list[tuple[str, Callable[[Event], object]]], event: Event) -> None:
        """Show each observer its own copy of ``event``; one that raises is reported and dropped."""
        for entry in list(observers):
            plugin, observer = entry
            try:
                observer(copy.deepcopy(event))
            except BaseException as exc:  # a plugin may raise anything, SystemExit included
                self.report(f"plugin {plugin!r} run observer raised {type(exc).__name__}: {exc}; "
                            "it observes nothing more of this run")
                observers.remove(entry)
