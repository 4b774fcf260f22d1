"""Tasks outlive the server process: each ended task is kept in its context's session.

``GetTask`` and ``ListTasks`` of a new server on the same store answer for the
tasks an earlier one ran, as the SDK's own client sees them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from a2a.helpers import get_artifact_text, get_message_text
from a2a.types import GetTaskRequest, ListTasksRequest, TaskState
from a2a.utils.errors import InternalError, TaskNotFoundError
from agentkit_a2a import CONTEXT_ENTRY, TASK_FINAL_ENTRY

from agentkit.host.sessions import CUSTOM, JsonlSessionStore, Session
from agentkit.testing import Script, Turn, text

from .conftest import agent_factory, events, running, sdk_client, user_message


def test_get_task_answers_for_a_task_an_earlier_server_ran(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    make = agent_factory(tmp_path, lambda: Script([Turn([text("four")])]))

    async def scenario() -> None:
        async with running(make, sessions) as served, sdk_client(served, streaming=False) as client:
            (last,) = await events(client, user_message("two plus two?"))
        task_id, context_id = last.task.id, last.task.context_id
        async with running(make, sessions) as served, sdk_client(served, streaming=False) as client:
            got = await client.get_task(GetTaskRequest(id=task_id))
            listed = await client.list_tasks(ListTasksRequest(include_artifacts=True))
            in_context = await client.list_tasks(ListTasksRequest(context_id=context_id))
        assert (got.id, got.context_id) == (task_id, context_id)
        assert got.status.state == TaskState.TASK_STATE_COMPLETED
        assert get_message_text(got.status.message) == "four"
        assert [get_artifact_text(artifact) for artifact in got.artifacts] == ["four"]
        assert [task.id for task in listed.tasks] == [task_id]
        assert [get_artifact_text(artifact) for artifact in listed.tasks[0].artifacts] == ["four"]
        assert [task.id for task in in_context.tasks] == [task_id]

    asyncio.run(scenario())
    # One small entry per task: its final state, not each update.
    session = Session.open(context_id_of(sessions), JsonlSessionStore(sessions))
    kept = [entry.data["data"] for entry in session.entries
            if entry.type == CUSTOM and entry.data["custom_type"] == TASK_FINAL_ENTRY]
    assert len(kept) == 1 and "history" not in kept[0]["task"]


def context_id_of(sessions: Path) -> str:
    (path,) = sessions.glob("*.jsonl")
    return path.stem


def test_an_unknown_task_is_not_found_and_a_crafted_record_a_clear_error(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    crafted = Session.new(JsonlSessionStore(sessions), cwd=tmp_path, id="crafted")
    crafted.append_custom(CONTEXT_ENTRY, {"context_id": "crafted"})
    crafted.append_custom(TASK_FINAL_ENTRY, {"task": {"id": "t-bad", "status": {"state": "NOT_A_STATE"}}, "owner": ""})
    crafted.close()
    make = agent_factory(tmp_path, lambda: Script([Turn([text("four")])]))

    async def scenario() -> tuple[str, str]:
        async with running(make, sessions) as served, sdk_client(served, streaming=False) as client:
            with pytest.raises(TaskNotFoundError) as unknown:
                await client.get_task(GetTaskRequest(id="no-such-task"))
            with pytest.raises(InternalError) as bad:
                await client.get_task(GetTaskRequest(id="t-bad"))
        return str(unknown.value), str(bad.value)

    unknown, bad = asyncio.run(scenario())
    assert "not found" in unknown.lower()
    assert "session crafted" in bad and "does not parse" in bad and "remove that entry" in bad
    assert "Traceback" not in bad


def test_a_server_sharing_the_store_answers_for_tasks_another_ran_after_it_looked(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    make = agent_factory(tmp_path, lambda: Script([Turn([text("four")])]))

    async def scenario() -> None:
        async with running(make, sessions) as one, running(make, sessions) as other, \
                sdk_client(one, streaming=False) as asking, sdk_client(other, streaming=False) as looking:
            with pytest.raises(TaskNotFoundError):  # the other server has read the store once, before the task
                await looking.get_task(GetTaskRequest(id="not-yet"))
            (last,) = await events(asking, user_message("two plus two?"))
            got = await looking.get_task(GetTaskRequest(id=last.task.id))
        assert got.status.state == TaskState.TASK_STATE_COMPLETED
        assert [get_artifact_text(artifact) for artifact in got.artifacts] == ["four"]

    asyncio.run(scenario())
