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
  may refuse calls: ``decide`` asks them and returns the decision;
* each call the authorization deferred to a person (``ask_person``): the run
  waits for the person's :class:`~agentkit.host.Approval` (a durable run
  parks; nothing else can wait, so a run without ``run_steps`` answers such a
  call with an error naming ``--durable``);
* each call of a delegation tool (``subagent``, see :class:`SubagentHandler`),
  which is no step of its own: the subagent's run gets steps of its own.

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

import functools
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from agentkit.plugin_api import AssistantMessage, Block, Defer, Tool, ToolResult, ToolUseBlock
from agentkit.plugin_api._dataclass import dataclass

if TYPE_CHECKING:
    from ._approvals import Approval

__all__ = ["RunSteps", "SubagentHandler", "ToolStep", "settle_by_steps"]


class SubagentHandler(functools.partial[Awaitable[ToolResult]]):
    """The handler of a delegation tool (:class:`~agentkit.host.Subagent`): a call of it runs a subagent.

    A durable run does not make such a call a step: the call runs in the run's
    own workflow and hands the subagent to :meth:`RunSteps.subagent`, which
    makes it a child workflow with steps of its own.
    """


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

    @property
    def subagent(self) -> bool:
        """Whether the call runs a subagent (see :class:`SubagentHandler`): no step, a child run of its own."""
        return isinstance(self.tool.handler, SubagentHandler)


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
                        decide: Callable[[], Awaitable[tuple[Block | Defer | None, str | None]]]
                        ) -> tuple[Block | Defer | None, str | None]:
        """Whether ``call`` may run: ``await decide()`` (``(None, ...)``, or a block or deferral and who
        answered it), or its earlier answer."""
        ...

    async def subagent(self, call_id: str, run: Callable[[RunSteps], Awaitable[ToolResult]]) -> ToolResult:
        """The result of the delegation call ``call_id``: ``await run(child_steps)``, or its earlier result.

        ``run`` builds the subagent and runs it with ``child_steps`` as its own
        :attr:`~agentkit.host.Agent.run_steps`: a durable run gives it the steps of
        a child workflow, whose id it derives from its own run id and ``call_id``.
        """
        ...

    async def ask_person(self, call: ToolUseBlock, deferral: Defer) -> Approval:
        """A person's answer about ``call``, which was deferred (``Defer``): wait for it, or its earlier answer.

        The wait may be long (a person answers from another process, hours later) and must hold
        no thread; the run's stop (an abort) ends it from outside.
        """
        ...


async def settle_by_steps(steps: RunSteps, items: Sequence[Any], execute: Callable[[Any], Awaitable[ToolResult]],
                          sequential: bool) -> None:
    """Settle a batch's admitted calls through ``steps``: each item (``call``, ``tool``) gets its ``result``."""
    stepped = [ToolStep(item.call, item.tool, functools.partial(execute, item)) for item in items]
    for item, result in zip(items, await steps.tool_batch(stepped, sequential), strict=True):
        item.result = result
