"""Governed tool calls outside an agent's run: what a server or a front end runs one tool call with.

A call made through :class:`ToolCaller` is governed exactly as a model's call
is in an agent, because it runs through the same tool batch (:mod:`._batch`):
its arguments are parsed and validated against the tool's schema, the
embedder's ``before_tool_call`` decides, then the hook plugins'
``agentkit_before_tool_call`` (narrow only, fail closed); the handler runs
under its deadline, its result is capped, and ``agentkit_after_tool_call``
sees it. Every call is answered: an unknown tool, invalid arguments, a
block, a failure, a deadline or a cancellation is an ``is_error`` result.
Served calls emit no run events: there is no run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator, Mapping
from pathlib import Path
from typing import Any

from agentkit.plugin_api import Outcome, SessionInfo, Tool, ToolResultMessage, ToolUseBlock

from ._batch import ToolBatch
from ._batch_inputs import BatchServices, CallPolicy
from ._config import (
    DEFAULT_HOOK_TIMEOUT,
    DEFAULT_MAX_TOOL_RESULT_CHARS,
    DEFAULT_TOOL_TIMEOUT,
    BeforeToolCall,
)
from ._hooks import HookRunner
from ._ids import random_hex
from ._plugins import PluginHost
from ._stopping.run_stop import RunStop
from .errors import ConfigError

__all__ = ["PendingCall", "ToolCaller"]

#: The model name hooks see in ``SessionInfo`` when the caller gives none: no model made the call.
NO_MODEL = "none"


class PendingCall:
    """One governed call in flight, as :meth:`ToolCaller.start` returns it.

    Await it for the result message. Awaiting is shielded: cancelling the
    awaiting task leaves the call running; :meth:`cancel` is how it is stopped.
    """

    def __init__(self, call: ToolUseBlock, stop: RunStop, loop: asyncio.AbstractEventLoop) -> None:
        #: The call being answered.
        self.call = call
        #: Resolves to the call's result message; it never raises (every outcome is a result).
        self.answer: asyncio.Future[ToolResultMessage] = loop.create_future()
        self._stop = stop
        self._loop = loop
        self._task: asyncio.Future[None] | None = None

    def cancel(self, reason: str = "the call was cancelled") -> None:
        """Stop the call: its handler sees ``context.cancel`` set and is given up on after the host's grace.

        The call is still answered (an ``is_error`` result unless the handler
        returned in time). Safe from any thread; the first reason wins.
        """
        try:
            on_loop = asyncio.get_running_loop() is self._loop
        except RuntimeError:  # another thread: the stop reaches the loop by call_soon_threadsafe
            on_loop = False
        self._stop.request(Outcome.CANCELLED, reason, on_loop=on_loop)

    def done(self) -> bool:
        """Whether the call has been answered."""
        return self.answer.done()

    def __await__(self) -> Generator[Any, None, ToolResultMessage]:
        return asyncio.shield(self.answer).__await__()


class ToolCaller:
    """Runs single tool calls under an embedder's authorization and the host's hooks, outside any run.

    :param host: the plugins whose hooks gate every call.
    :param tools: the tools callable by name; ``None``: every tool of ``host``
        that is enabled by default. A tool that runs arbitrary commands
        (``requires_authorization``) needs a ``before_tool_call``, as in an agent.
    :param before_tool_call: the embedder's decision, consulted first for every
        call, as ``AgentConfig.before_tool_call`` is in an agent.
    :param session: what hooks and handlers are told of the calls' session;
        ``None``: a fresh id, no model, the current directory as root.
    :param tool_options: per-tool options handed to handlers, as in ``AgentConfig``.
    :param tool_timeout: seconds one call may run (a tool's own ``timeout`` wins); ``None``: no deadline.
    :param hook_timeout: seconds an authorization or a hook may take; a late one blocks the call.
    :param max_result_chars: the longest result text; longer ones are cut with a note.
    :raises ConfigError: a tool needs authorization and no ``before_tool_call`` is given.

    ``tools`` may be replaced later (a server whose tools changed); calls
    already in flight keep the tools they started with.
    """

    def __init__(
        self,
        host: PluginHost,
        tools: Mapping[str, Tool] | None = None,
        *,
        before_tool_call: BeforeToolCall | None = None,
        session: SessionInfo | None = None,
        tool_options: Mapping[str, Mapping[str, Any]] | None = None,
        tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT,
        hook_timeout: float | None = DEFAULT_HOOK_TIMEOUT,
        max_result_chars: int | None = DEFAULT_MAX_TOOL_RESULT_CHARS,
    ) -> None:
        self.host = host
        self.before_tool_call = before_tool_call
        self.session = session or SessionInfo(f"calls-{random_hex()}", NO_MODEL, Path.cwd().resolve())
        self.tool_options = {name: dict(values) for name, values in (tool_options or {}).items()}
        self.tool_timeout = tool_timeout
        self.hook_timeout = hook_timeout
        self.max_result_chars = max_result_chars
        self.tools = {name: tool for name, tool in host.tools.items() if tool.default_enabled} \
            if tools is None else tools
        self._in_flight: set[PendingCall] = set()
        self._validators: dict[str, Any] = {}  # each tool's schema compiled once for all calls

    @property
    def tools(self) -> dict[str, Tool]:
        """The tools callable by name."""
        return self._tools

    @tools.setter
    def tools(self, tools: Mapping[str, Tool]) -> None:
        needing = sorted(name for name, tool in tools.items() if tool.requires_authorization)
        if needing and self.before_tool_call is None:
            raise ConfigError(
                f"tool(s) {', '.join(needing)} run arbitrary commands, and no before_tool_call is given. "
                "Pass before_tool_call=agentkit.host.allow_all to allow every call on purpose, or a "
                "restrictive policy, or leave these tools out"
            )
        self._tools = dict(tools)

    def start(self, call: ToolUseBlock) -> PendingCall:
        """Start answering ``call``; await the returned :class:`PendingCall` for its result.

        Must be called on the event loop the call is awaited on. Use it
        rather than :meth:`call` where cancellation is delivered again at every
        await (anyio's and trio's cancel scopes): stop the call with
        :meth:`PendingCall.cancel`, then wait for its ``answer`` in a shielded scope.
        """
        loop = asyncio.get_running_loop()
        stop = RunStop()
        stop.bind(loop)
        pending = PendingCall(call, stop, loop)
        policy = CallPolicy(  # read at each call: the caller's settings may change between calls
            before_tool_call=self.before_tool_call, tool_options=self.tool_options, tool_timeout=self.tool_timeout,
            hook_timeout=self.hook_timeout, max_result_chars=self.max_result_chars,
        )
        services = BatchServices(hooks=HookRunner(self.host.hook_callers), hook_callers=self.host.hook_callers,
                                 validators=self._validators)
        batch = ToolBatch(tools=self._tools, session=self.session, cancel=stop.cancel, emit=_ignore, stop=stop,
                          policy=policy, services=services)
        self._in_flight.add(pending)
        pending._task = asyncio.ensure_future(self._answer(batch, pending))  # held: the loop keeps only weak refs
        return pending

    async def _answer(self, batch: ToolBatch, pending: PendingCall) -> None:
        try:
            results, _ = await batch.run([pending.call])
            pending.answer.set_result(results[0])
        except BaseException as exc:  # the batch answers every call itself; this is its defect, or a teardown
            if isinstance(exc, asyncio.CancelledError):
                pending.answer.cancel()
            elif not pending.answer.done():
                pending.answer.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
        finally:
            self._in_flight.discard(pending)  # before the answer's waiters run: no longer counted in flight

    async def call(self, call: ToolUseBlock) -> ToolResultMessage:
        """Run one call and return its result message; every outcome is a result (``is_error`` for a failure).

        :raises asyncio.CancelledError: the awaiting task was cancelled: the
            call was stopped (its handler saw ``context.cancel``) and, unless
            cancelled again meanwhile, answered before this propagates.
        """
        pending = self.start(call)
        try:
            return await pending
        except asyncio.CancelledError:
            pending.cancel()
            await asyncio.wait([pending.answer])  # bounded by the host's stop grace
            raise

    def cancel_all(self, reason: str = "the calls were cancelled") -> int:
        """Stop every call in flight (their handlers see the cancel token); how many there were. Thread-safe."""
        pending = list(self._in_flight)
        for each in pending:
            each.cancel(reason)
        return len(pending)


def _ignore(_event: object) -> None:
    """Served calls emit no run events: there is no run."""
