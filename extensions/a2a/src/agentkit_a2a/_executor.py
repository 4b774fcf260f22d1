"""A2A tasks as runs: the SDK's ``AgentExecutor`` over the conversations' agents.

A message (``SendMessage``, ``SendStreamingMessage``) starts a run of its
context's agent with the message's text. The task goes ``submitted`` then
``working``; while the run goes on, each tool call it makes and each turn's
text are a ``working`` status update (what a streaming client sees as
progress); when the run ends, its answer is the task's ``answer`` artifact and
its outcome the task's last state: ``completed``, ``canceled`` (aborted or
cancelled) or ``failed`` (any other outcome, its reason in the status
message). ``CancelTask`` aborts the run: it ends through its own path, every
call answered and the session log whole. Each task's id is recorded in the
session (an ``a2a.task`` entry), beside the run it started.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message, Part, Role, Task, TaskState, TaskStatus

from agentkit.host.errors import AgentBusy
from agentkit.plugin_api import AgentEnd, AssistantMessage, Outcome, ToolCallStart, TurnEnd

from ._contexts import TASK_ENTRY, ContextRefused, Contexts

if TYPE_CHECKING:
    from agentkit.host import Agent

#: The most characters of one progress update (a turn's text, a tool's name): progress, not the answer.
MAX_PROGRESS_CHARS = 2000


class RunExecutor(AgentExecutor):
    """Runs each task's message on its context's agent; see the module docstring."""

    def __init__(self, contexts: Contexts) -> None:
        self.contexts = contexts
        self._running: dict[str, Agent] = {}  # task id -> the agent running it

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        updater = TaskUpdater(event_queue, task_id, context_id)
        if context.current_task is None:
            await event_queue.enqueue_event(Task(id=task_id, context_id=context_id,
                                                 status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
                                                 history=[context.message] if context.message else []))
        prompt = context.get_user_input()
        if not prompt.strip():
            await updater.reject(_message(updater, "the message holds no text: this agent takes text parts"))
            return
        try:
            agent = self.contexts.agent_for(context_id)
        except ContextRefused as exc:
            await updater.reject(_message(updater, str(exc)))
            return
        except Exception as exc:  # the agent could not be built (a model gone, a store down): say so
            await updater.failed(_message(updater, f"the agent could not be built: {type(exc).__name__}: {exc}"))
            return
        if agent.session is not None:
            agent.session.append_custom(TASK_ENTRY, {"task_id": task_id, "context_id": context_id})
        await updater.start_work()
        self._running[task_id] = agent
        end: AgentEnd | None = None
        try:
            async for event in agent.stream(prompt):
                if isinstance(event, ToolCallStart):
                    await updater.update_status(TaskState.TASK_STATE_WORKING, _message(
                        updater, f"calling {event.call.name}"[:MAX_PROGRESS_CHARS]))
                elif isinstance(event, TurnEnd) and event.tool_results and event.message.text:
                    await updater.update_status(TaskState.TASK_STATE_WORKING,
                                                _message(updater, event.message.text[:MAX_PROGRESS_CHARS]))
                elif isinstance(event, AgentEnd):
                    end = event
        except AgentBusy:
            await updater.failed(_message(updater, f"context {context_id} is running another task: wait for it "
                                                   "to end, or cancel it"))
            return
        finally:
            self._running.pop(task_id, None)
        await _finish(updater, end)

    def running_agents(self) -> list[Agent]:
        """The agents running a task now."""
        return list(self._running.values())

    def abort_all(self) -> None:
        """Abort every running task's run (the server is stopping): each ends through its own path."""
        for agent in list(self._running.values()):
            agent.abort()

    async def idle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the running tasks to end; whether they all did."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._running and loop.time() < deadline:
            await asyncio.sleep(0.05)
        return not self._running

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        agent = self._running.get(context.task_id or "")
        if agent is not None:
            agent.abort()
        await TaskUpdater(event_queue, context.task_id or "", context.context_id or "").cancel()


async def _finish(updater: TaskUpdater, end: AgentEnd | None) -> None:
    if end is None:  # the stream ended without its last event: never expected, but never a hung task
        await updater.failed(_message(updater, "the run ended without an outcome"))
        return
    text = _answer(end)
    if end.outcome is Outcome.COMPLETED:
        await updater.add_artifact([Part(text=text)], name="answer", last_chunk=True)
        await updater.complete(_message(updater, text))
    elif end.outcome in (Outcome.ABORTED, Outcome.CANCELLED):
        await updater.cancel(_message(updater, f"the run ended {end.outcome.value}"))
    else:
        reason = f"the run ended {end.outcome.value}" + (f": {end.error}" if end.error else "")
        await updater.failed(_message(updater, reason))


def _answer(end: AgentEnd) -> str:
    """The run's answer: the text of its last assistant message."""
    for message in reversed(end.messages):
        if isinstance(message, AssistantMessage):
            return message.text
    return ""


def _message(updater: TaskUpdater, text: str) -> Message:
    return Message(role=Role.ROLE_AGENT, message_id=uuid.uuid4().hex, task_id=updater.task_id,
                   context_id=updater.context_id, parts=[Part(text=text)])
