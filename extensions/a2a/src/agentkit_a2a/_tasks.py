"""The server's task store: the SDK's in-memory store in front, each ended task kept in its context's session.

The SDK asks a ``TaskStore`` for a task on ``GetTask``, ``CancelTask`` and
``ListTasks``. Its in-memory store forgets every task when the process ends,
while the conversation the task belongs to lives on in the session store. So
each task that reaches a final state (``completed``, ``failed``, ``canceled``,
``rejected``) is also written to its context's session as one custom entry
(``a2a.task.final``): the task as the SDK serializes it (protobuf JSON), with
its final status and its artifacts but without its history (the session log
holds the conversation). A task the in-memory store does not hold (one an
earlier process ran) is found through an index of task id -> context id,
built by reading the A2A sessions once and then kept up to date: a later miss
reads only the sessions written since the last read.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from a2a.server.context import ServerCallContext
from a2a.server.owner_resolver import OwnerResolver, resolve_user_scope
from a2a.server.tasks import InMemoryTaskStore, TaskStore
from a2a.server.tasks.inmemory_task_store import _InMemoryTaskStoreImpl
from a2a.types import ListTasksRequest, ListTasksResponse, Task, TaskState
from a2a.utils.errors import InternalError
from google.protobuf import json_format  # type: ignore[import-untyped]  # the SDK's own (de)serializer of its types

from agentkit.host.errors import SessionError
from agentkit.host.sessions import CUSTOM

from ._contexts import CONTEXT_ENTRY

if TYPE_CHECKING:
    from agentkit.host.sessions import Entry

    from ._contexts import Contexts

#: The ``custom_type`` of the entry keeping an ended task: ``{"task": <protobuf JSON>, "owner": ...}``.
TASK_FINAL_ENTRY = "a2a.task.final"
#: The most bytes of one kept task's JSON read back: a larger entry is refused, never parsed.
MAX_TASK_RECORD_BYTES = 4 * 1024 * 1024
FINAL_STATES = frozenset({TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED,
                          TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED})


class SessionTaskStore(TaskStore):
    """The SDK's ``TaskStore`` over the conversations' sessions; see the module docstring.

    :param contexts: the open conversations and their store.
    :param owner_resolver: who owns a task (the SDK's default: the caller's user name).
    """

    def __init__(self, contexts: Contexts, owner_resolver: OwnerResolver = resolve_user_scope) -> None:
        self.contexts = contexts
        self.owner_resolver = owner_resolver
        self.cache = InMemoryTaskStore(owner_resolver=owner_resolver)
        self._where: dict[str, str] = {}  # task id -> context id, of every kept task seen
        self._read_up_to: float | None = None  # the newest session update time indexed so far

    async def save(self, task: Task, context: ServerCallContext) -> None:
        await self.cache.save(task, context)
        if task.status.state not in FINAL_STATES:
            return
        kept = Task()
        kept.CopyFrom(task)
        kept.ClearField("history")
        record = {"task": json_format.MessageToDict(kept), "owner": self.owner_resolver(context)}
        if self.contexts.record(task.context_id, TASK_FINAL_ENTRY, record):
            self._where[task.id] = task.context_id

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        task = await self.cache.get(task_id, context)
        if task is not None:
            return task
        context_id = self._where.get(task_id)
        if context_id is None:
            self._index()
            context_id = self._where.get(task_id)
        if context_id is None:
            return None
        owner = self.owner_resolver(context)
        return self._kept(context_id, owner).get(task_id)

    async def list(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        """The caller's tasks, the kept ones of earlier processes included, as the SDK's store lists them."""
        self._index()
        owner = self.owner_resolver(context)
        contexts = {params.context_id} if params.context_id else set(self._where.values())
        every = _InMemoryTaskStoreImpl(owner_resolver=self.owner_resolver)
        for context_id in sorted(contexts):
            for task in self._kept(context_id, owner).values():
                await every.save(task, context)
        for task in (await self.cache.list(ListTasksRequest(context_id=params.context_id, page_size=100_000),
                                           context)).tasks:
            await every.save(task, context)  # the running tasks, and the newest state of the kept ones
        return await every.list(params, context)

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        await self.cache.delete(task_id, context)  # the session log is append-only: its record stays

    def _kept(self, context_id: str, owner: str) -> dict[str, Task]:
        """The tasks kept in the session ``context_id`` for ``owner`` by id, each at its last recorded state."""
        tasks: dict[str, Task] = {}
        for entry in self.contexts.entries(context_id):
            record = _record(entry)
            if record is None or record.get("owner", "") != owner:
                continue
            task = _parse(record.get("task"), context_id)
            if task.context_id != context_id:
                raise InternalError(message=f"a kept task of session {context_id} names another context "
                                            f"({task.context_id[:80]!r}): remove that {TASK_FINAL_ENTRY} entry")
            tasks[task.id] = task
        return tasks

    def _index(self) -> None:
        """Learn where the kept tasks are, reading the A2A sessions written since the last time."""
        store = self.contexts.store
        listings = [listing for listing in store.list_sessions()
                    if self._read_up_to is None or listing.updated >= self._read_up_to]
        for listing in listings:
            try:
                entries = store.load(listing.id).entries
            except (SessionError, OSError):
                continue  # a session that cannot be read holds no task this server can answer for
            if not any(_custom_type(entry) == CONTEXT_ENTRY for entry in entries):
                continue
            for entry in entries:
                record = _record(entry)
                task = record.get("task") if record is not None else None
                if isinstance(task, dict) and isinstance(task.get("id"), str):
                    self._where.setdefault(task["id"], listing.id)
        if listings:
            newest = max(listing.updated for listing in listings)
            self._read_up_to = newest if self._read_up_to is None else max(self._read_up_to, newest)
        elif self._read_up_to is None:
            self._read_up_to = 0.0


def _custom_type(entry: Entry) -> Any:
    return entry.data.get("custom_type") if entry.type == CUSTOM else None


def _record(entry: Entry) -> dict[str, Any] | None:
    if _custom_type(entry) != TASK_FINAL_ENTRY:
        return None
    data = entry.data.get("data")
    return data if isinstance(data, dict) else {}


def _parse(data: Any, context_id: str) -> Task:
    """A kept task read back; a record that is no task is a clear error naming the session, never a traceback."""
    where = f"a kept task of session {context_id} ({TASK_FINAL_ENTRY} entry)"
    if not isinstance(data, dict):
        raise InternalError(message=f"{where} holds no task: remove that entry")
    size = len(json.dumps(data))
    if size > MAX_TASK_RECORD_BYTES:
        raise InternalError(message=f"{where} is {size} bytes, over the {MAX_TASK_RECORD_BYTES} read back: "
                                    "remove that entry")
    try:
        return json_format.ParseDict(data, Task())
    except (json_format.ParseError, TypeError, ValueError) as exc:
        raise InternalError(message=f"{where} does not parse as an A2A Task ({str(exc)[:200]}): "
                                    "remove that entry") from None
