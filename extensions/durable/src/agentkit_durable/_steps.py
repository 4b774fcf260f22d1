"""A durable run's steps: each model request, tool call and authorization is a DBOS step.

:class:`DurableSteps` is the host's :class:`~agentkit.host.RunSteps` for one
execution of one run's workflow. DBOS numbers a workflow's steps in the order
they start and, when a recovering process executes the workflow again from its
start, answers each step that completed before with its checkpoint, without
running it. What this class adds:

* **Checkpoints as plain data.** A response is checkpointed as its message's
  dict, a tool result as its envelope, an authorization as its decision, so
  that a replayed step gives the loop the same values.
* **The call that was running.** A step that had started but not completed
  when its process died has no checkpoint, and DBOS would run it again. Before
  the handlers of a batch start, one marker step records that they started
  (one per call for a sequential batch, whose calls start one after another); a
  recovering process finds the marker from the earlier execution (its token is
  not this execution's) and runs again only the calls whose tool is
  ``retry_safe``; any other such call is answered as interrupted, as
  ``--resume`` answers it.
* **Nothing twice.** The messages a replay appends that the session log already
  holds are not written again, and no event is delivered while the run replays:
  delivery starts with the first step that runs in this execution.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from dbos import DBOS

from agentkit.host import RunSteps, ToolStep
from agentkit.plugin_api import (
    AssistantMessage,
    Block,
    Event,
    Message,
    ToolResult,
    ToolUseBlock,
    block_from_dict,
    message_from_dict,
)

__all__ = ["INTERRUPTED", "DurableSteps", "result_from_dict", "result_to_dict"]

#: What a call that was running when its process died, and is not safe to run again, is answered.
INTERRUPTED = "The process ended before this call finished; it may or may not have taken effect."

MODEL_STEP = "agentkit.model_request"
TOOLS_STARTED_STEP = "agentkit.tools_started"
AUTHORIZE_STEP = "agentkit.authorize"


def tool_step_name(tool: str) -> str:
    """The name of the step of a call of ``tool`` (what ``runs show`` lists)."""
    return f"agentkit.tool:{tool}"


def result_to_dict(result: ToolResult) -> dict[str, Any]:
    """A tool result as plain JSON data; its rendering for the model is unchanged (``default=str``)."""
    return {
        "ok": result.ok,
        "data": _plain(result.data),
        "error": result.error,
        "detail": result.detail,
        "metadata": _plain(result.metadata),
        "images": [image.to_dict() for image in result.images],
    }


def result_from_dict(data: dict[str, Any]) -> ToolResult:
    return ToolResult(data["ok"], data["data"], data["error"], data["detail"], dict(data["metadata"] or {}),
                      [block_from_dict(image) for image in data["images"]])  # type: ignore[misc]  # image blocks


def _plain(value: Any) -> Any:
    # A tool may return values JSON lacks (a tuple, a path); the model is shown them as json.dumps(default=str).
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


class DurableSteps(RunSteps):
    """The steps of one execution of one durable run; see the module docstring.

    :param run_id: the workflow id.
    :param replaying: whether this execution recovers a run an earlier one began.
    :param written: how many of the run's messages the session log already holds.
    """

    def __init__(self, run_id: str, *, replaying: bool = False, written: int = 0) -> None:
        self.run_id = run_id
        #: This execution's own mark: a marker step that returns another was recorded by an earlier one.
        self.token = uuid.uuid4().hex
        self.replaying = replaying
        self.written = written

    # -- the run's start: what a replay must not do again ---------------------------

    def begin(self, run: Any) -> None:
        if not self.replaying:
            return
        emit = run.emit

        def emit_live(event: Event) -> None:
            if not self.replaying:
                emit(event)

        run.emit = emit_live
        log = run.log
        if log is not None and self.written:
            record = log.record

            def record_once(message: Message) -> None:
                if self.written > 0:  # the earlier execution wrote it: the same message, in the same place
                    self.written -= 1
                    return
                record(message)

            log.record = record_once

    def _live(self) -> None:
        """A step runs in this execution: the replay is over, events are delivered again."""
        self.replaying = False

    # -- the steps ------------------------------------------------------------------

    async def model_request(self, send: Callable[[], Awaitable[AssistantMessage]]) -> AssistantMessage:
        live: list[AssistantMessage] = []

        async def request() -> dict[str, Any]:
            self._live()
            live.append(await send())
            return live[0].to_dict()

        data = await DBOS.run_step_async({"name": MODEL_STEP}, request)
        if live:  # sent in this execution: the loop goes on with the message itself
            return live[0]
        message = message_from_dict(data)
        assert isinstance(message, AssistantMessage)
        return message

    async def tool_batch(self, steps: Sequence[ToolStep], sequential: bool) -> list[ToolResult]:
        if sequential:
            results = []
            for step in steps:
                began_before = not step.tool.retry_safe and await self._began_before()
                results.append(await self._call(step, began_before))
            return results
        began_before = any(not step.tool.retry_safe for step in steps) and await self._began_before()
        # Each task starts its step in creation order, so the steps are numbered in call order.
        tasks = [asyncio.ensure_future(self._call(step, began_before)) for step in steps]
        try:
            await asyncio.wait(tasks)
        finally:
            for task in tasks:
                task.cancel()  # only when the batch itself was cancelled
        return [task.result() for task in tasks]

    async def _began_before(self) -> bool:
        """Record that calls start now; whether an earlier execution recorded it (they were interrupted)."""
        async def started() -> str:
            self._live()
            return self.token

        return await DBOS.run_step_async({"name": TOOLS_STARTED_STEP}, started) != self.token

    async def _call(self, step: ToolStep, began_before: bool) -> ToolResult:
        async def call() -> dict[str, Any]:
            self._live()
            if began_before and not step.tool.retry_safe:  # it was running when its process died
                return result_to_dict(ToolResult.failure("interrupted", INTERRUPTED))
            return result_to_dict(await step.execute())

        return result_from_dict(await DBOS.run_step_async({"name": tool_step_name(step.call.name)}, call))

    async def authorize(self, call: ToolUseBlock,
                        decide: Callable[[], Awaitable[tuple[Block | None, str | None]]]
                        ) -> tuple[Block | None, str | None]:
        live: list[tuple[Block | None, str | None]] = []

        async def authorization() -> dict[str, Any] | None:
            self._live()
            live.append(await decide())
            decision, blocked_by = live[0]
            if decision is None:
                return None
            return {"reason": decision.reason, "terminate": decision.terminate, "blocked_by": blocked_by}

        answer = await DBOS.run_step_async({"name": AUTHORIZE_STEP}, authorization)
        if live:  # decided in this execution: the host's own answer (an abort's among them)
            return live[0]
        if answer is None:
            return None, None
        return Block(answer["reason"], terminate=answer["terminate"]), answer["blocked_by"]
