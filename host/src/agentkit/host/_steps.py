"""The seam through which a run's model requests and tool calls go, for an extension that checkpoints them.

A run of an agent whose :attr:`~agentkit.host.Agent.run_steps` is set hands
its work to that :class:`RunSteps` instead of doing it directly:

* each model request (``model_request``): the step is given ``send``, which
  builds the request, streams the response (emitting its events) and returns
  the assistant message;
* each batch of tool calls that are allowed to run (``tool_batch``): one
  :class:`ToolStep` per call, in call order, each with an ``execute`` that runs
  the handler within its guard and returns its :class:`~agentkit.plugin_api.ToolResult`
  (never raising); the steps answer one result per call, in the same order;
* each authorization of a call (``authorize``), when the embedder or a plugin
  may refuse calls: ``decide`` asks them and returns the decision.

``begin`` is called once per run, before anything is written or emitted, with
the run itself: an extension may wrap ``run.emit`` (every event) and
``run.log`` (the session writer) there.

A step may return what ``send``, ``execute`` or ``decide`` returned, or what they returned
in an earlier process (a checkpoint), without calling them: durable runs
(``agentkit-durable``, ``docs/durable.md``) make each of them a DBOS step.
Everything else a run does must not depend on which.

Without ``run_steps`` (every run that is not durable) the loop checks one attribute
per request and one per batch, and does the work itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from agentkit.plugin_api import AssistantMessage, Block, Tool, ToolResult, ToolUseBlock

__all__ = ["RunSteps", "ToolStep"]


@dataclass(frozen=True, slots=True)
class ToolStep:
    """One call of a batch, handed to :meth:`RunSteps.tool_batch`.

    :param call: the model's call (its ``id`` is the call id).
    :param tool: the tool that runs it (``tool.retry_safe`` says whether it may run again).
    :param execute: runs the handler within its deadline and the run's stop; returns its result, never raises.
    """

    call: ToolUseBlock
    tool: Tool
    execute: Callable[[], Awaitable[ToolResult]]


class RunSteps(Protocol):
    """What a run hands its model requests, tool calls and authorizations to; see the module docstring."""

    #: The run's id: ``ToolContext.run_id`` of its calls, and the first half of their idempotency keys.
    run_id: str

    def begin(self, run: Any) -> None:
        """The run starts: called once, before its session log or any event is written.

        ``run`` is the run's :class:`agentkit.host._run.Run` (typed ``Any``: the seam does not
        make the whole object public); what a step may use of it: ``run_id``, ``history``, ``emit``
        (every event of the run goes through it; it may be replaced) and ``log`` (the session
        writer, or ``None``; its ``record(message)`` may be replaced).
        """
        ...

    async def model_request(self, send: Callable[[], Awaitable[AssistantMessage]]) -> AssistantMessage:
        """The turn's response: ``await send()``, or the message it returned before."""
        ...

    async def tool_batch(self, steps: Sequence[ToolStep], sequential: bool) -> list[ToolResult]:
        """One result per step, in order; ``sequential``: run them one after another, in order."""
        ...

    async def authorize(self, call: ToolUseBlock,
                        decide: Callable[[], Awaitable[tuple[Block | None, str | None]]]
                        ) -> tuple[Block | None, str | None]:
        """Whether ``call`` may run: ``await decide()`` (``(None, None)``, or a block and who blocked), or its earlier answer."""
        ...
