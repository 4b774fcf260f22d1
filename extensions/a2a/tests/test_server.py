"""``agentkit a2a serve``'s server, driven by the SDK's own client over loopback HTTP.

Each message is a run of the agent (the scripted model stands in for a real
one); each context is a session in the store, continued across requests and
across a restart of the server.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

import httpx
import pytest
from a2a.client import A2ACardResolver
from a2a.helpers import get_artifact_text, get_message_text
from a2a.types import CancelTaskRequest, GetTaskRequest, TaskState
from agentkit_a2a import CONTEXT_ENTRY, TASK_ENTRY

from agentkit.host.sessions import CUSTOM, JsonlSessionStore, Session
from agentkit.testing import FunctionModel, Script, Turn, text, tool_call

from .conftest import agent_factory, events, running, sdk_client, user_message


def heard(request) -> str:
    """A model that says what it has heard so far: every user message of the history it was sent."""
    said = [block["text"] for message in request.body["messages"] if message["role"] == "user"
            for block in (message["content"] if isinstance(message["content"], list) else [])
            if isinstance(block, dict) and block.get("type") == "text"]
    return "heard: " + " | ".join(said)


def test_the_card_names_the_agent_its_skills_and_tools(tmp_path: Path) -> None:
    async def scenario() -> None:
        make = agent_factory(tmp_path, lambda: FunctionModel(heard), tools=["read_file", "find_files"])
        async with running(make, tmp_path / "sessions", name="reader", description="Reads the workspace.") as served, \
                httpx.AsyncClient() as http:
            card = await A2ACardResolver(http, served.url).get_agent_card()
        assert (card.name, card.description) == ("reader", "Reads the workspace.")
        assert card.capabilities.streaming
        # The skills the model may choose (the installed skills_review plugin's), then the enabled tools.
        assert [skill.id for skill in card.skills] == ["skill:code-review", "tool:find_files", "tool:read_file"]
        assert {(i.protocol_binding, i.protocol_version) for i in card.supported_interfaces} == {
            ("JSONRPC", "1.0"), ("JSONRPC", "0.3")}
        assert all(i.url == served.url + "/" for i in card.supported_interfaces)
        assert not card.security_requirements  # served without a key: the card asks for none

    asyncio.run(scenario())


def test_a_sent_message_is_a_run_and_its_answer_the_completed_tasks_artifact(tmp_path: Path) -> None:
    async def scenario() -> None:
        make = agent_factory(tmp_path, lambda: Script([Turn([text("four")])]))
        async with running(make, tmp_path / "sessions") as served, sdk_client(served, streaming=False) as client:
            (last,) = await events(client, user_message("two plus two?"))
            task = last.task
            assert task.status.state == TaskState.TASK_STATE_COMPLETED
            assert [get_artifact_text(artifact) for artifact in task.artifacts] == ["four"]
            got = await client.get_task(GetTaskRequest(id=task.id))
            assert got.status.state == TaskState.TASK_STATE_COMPLETED
            assert get_message_text(got.status.message) == "four"

    asyncio.run(scenario())


def test_a_streamed_message_shows_the_runs_tool_calls_then_its_answer(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the key is under the mat\n")
    script = lambda: Script([Turn([text("Looking."), tool_call("read_file", {"path": "notes.txt"})]),  # noqa: E731
                             Turn([text("Under the mat.")])])

    async def scenario() -> None:
        async with running(agent_factory(tmp_path, script), tmp_path / "sessions") as served, \
                sdk_client(served) as client:
            seen = await events(client, user_message("where is the key?"))
        kinds = [event.WhichOneof("payload") for event in seen]
        assert kinds[0] == "task" and kinds[-1] == "status_update"
        updates = [event.status_update for event in seen if event.WhichOneof("payload") == "status_update"]
        progress = [get_message_text(u.status.message) for u in updates
                    if u.status.state == TaskState.TASK_STATE_WORKING and u.status.HasField("message")]
        assert progress == ["calling read_file", "Looking."]
        answers = [get_artifact_text(e.artifact_update.artifact) for e in seen
                   if e.WhichOneof("payload") == "artifact_update"]
        assert answers == ["Under the mat."]
        assert updates[-1].status.state == TaskState.TASK_STATE_COMPLETED

    asyncio.run(scenario())


def test_cancelling_a_task_aborts_its_run_and_the_session_log_stays_whole(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"

    async def scenario() -> str:
        make = agent_factory(tmp_path, lambda: Script([Turn([text("thinking...")], hang=True)]))
        async with running(make, sessions) as served, sdk_client(served) as client:
            stream = client.send_message(user_message("take your time"))
            first = await anext(stream)
            task_id = first.task.id
            working = await anext(stream)
            assert working.status_update.status.state == TaskState.TASK_STATE_WORKING
            cancelled = await asyncio.wait_for(client.cancel_task(CancelTaskRequest(id=task_id)), 30)
            assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
            got = await client.get_task(GetTaskRequest(id=task_id))
            assert got.status.state == TaskState.TASK_STATE_CANCELED
            await stream.aclose()
            return first.task.context_id

    context_id = asyncio.run(scenario())
    session = Session.open(context_id, JsonlSessionStore(sessions))
    assert [message.role for message in session.messages()] == ["user", "assistant"]
    assert session.messages()[-1].stop_reason == "aborted"


def test_a_context_is_a_session_that_continues_across_requests_and_a_restart(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    make = agent_factory(tmp_path, lambda: FunctionModel(heard))
    context_id = uuid.uuid4().hex

    async def ask(question: str) -> str:
        async with running(make, sessions) as served, sdk_client(served, streaming=False) as client:
            (last,) = await events(client, user_message(question, context_id=context_id))
            return get_artifact_text(last.task.artifacts[0])

    async def two_then_restart() -> list[str]:
        async with running(make, sessions) as served, sdk_client(served, streaming=False) as client:
            first = await events(client, user_message("my name is Ada", context_id=context_id))
            second = await events(client, user_message("what is my name?", context_id=context_id))
        answers = [get_artifact_text(first[-1].task.artifacts[0]), get_artifact_text(second[-1].task.artifacts[0])]
        return [*answers, await ask("still there?")]  # a new server process's worth of state: only the store

    assert asyncio.run(two_then_restart()) == [
        "heard: my name is Ada",
        "heard: my name is Ada | what is my name?",
        "heard: my name is Ada | what is my name? | still there?",
    ]
    session = Session.open(context_id, JsonlSessionStore(sessions))
    customs = [entry.data["custom_type"] for entry in session.entries if entry.type == CUSTOM]
    assert customs.count(CONTEXT_ENTRY) == 1 and customs.count(TASK_ENTRY) == 3


def test_a_context_naming_a_session_that_is_no_a2a_conversation_is_rejected(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    private = Session.new(JsonlSessionStore(sessions), cwd=tmp_path)
    private.append_custom("note", {"secret": "not for callers"})
    private.close()

    async def scenario() -> None:
        make = agent_factory(tmp_path, lambda: FunctionModel(heard))
        async with running(make, sessions) as served, sdk_client(served, streaming=False) as client:
            (last,) = await events(client, user_message("what did we say?", context_id=private.id))
            assert last.task.status.state == TaskState.TASK_STATE_REJECTED
            assert "not an A2A conversation" in get_message_text(last.task.status.message)
            (bad,) = await events(client, user_message("hi", context_id="no spaces allowed"))
            assert bad.task.status.state == TaskState.TASK_STATE_REJECTED
            assert "letters, digits" in get_message_text(bad.task.status.message)
            (empty,) = await events(client, user_message("   "))
            assert empty.task.status.state == TaskState.TASK_STATE_REJECTED
            assert "holds no text" in get_message_text(empty.task.status.message)

    asyncio.run(scenario())
    assert len(Session.open(private.id, JsonlSessionStore(sessions)).messages()) == 0


def test_the_key_is_required_of_every_request_but_the_cards(tmp_path: Path) -> None:
    key = "k" * 32

    async def scenario() -> None:
        make = agent_factory(tmp_path, lambda: Script([Turn([text("ok")])]))
        async with running(make, tmp_path / "sessions", api_key=key) as served:
            async with httpx.AsyncClient() as http:
                card = await http.get(served.card_url)
                assert card.status_code == 200
                assert json.loads(card.text)["securityRequirements"] == [{"schemes": {"bearer": {}}}]
                body = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}
                assert (await http.post(served.url + "/", json=body)).status_code == 401
                wrong = await http.post(served.url + "/", json=body, headers={"Authorization": "Bearer " + "x" * 32})
                assert wrong.status_code == 401
                browser = await http.post(served.url + "/", json=body, headers={
                    "Authorization": f"Bearer {key}", "Origin": "https://evil.example"})
                assert browser.status_code == 403
            async with sdk_client(served, streaming=False, key=key) as client:
                (last,) = await events(client, user_message("hi"))
                assert last.task.status.state == TaskState.TASK_STATE_COMPLETED

    asyncio.run(scenario())


def test_past_the_cap_the_least_recently_used_conversation_is_closed_and_comes_back_from_its_session(
        tmp_path: Path) -> None:
    from agentkit_a2a import Contexts

    contexts = Contexts(agent_factory(tmp_path, lambda: FunctionModel(heard)), JsonlSessionStore(tmp_path / "s"),
                        tmp_path, max_open=2)
    first = contexts.agent_for("a")
    first.run_sync("remember me")
    contexts.agent_for("b")
    assert contexts.agent_for("a") is first  # used again: now the most recent
    contexts.agent_for("c")  # past the cap: "b" is closed, not "a"
    assert contexts.agent_for("a") is first
    again = contexts.agent_for("b")  # built again from its session; "c" closed
    contexts.agent_for("c")  # built again; "a" is now the least recently used: closed
    assert contexts.agent_for("a") is not first
    assert [m.role for m in contexts.agent_for("a").session.messages()] == ["user", "assistant"]
    assert again.session is not None
    contexts.close()


def test_the_endpoint_answers_protocol_1_0_method_names_and_0_3_ones(tmp_path: Path) -> None:
    async def scenario() -> None:
        make = agent_factory(tmp_path, lambda: Script([Turn([text("one")]), Turn([text("two")])]))
        async with running(make, tmp_path / "sessions") as served, httpx.AsyncClient(timeout=30) as http:
            now = await http.post(served.url + "/", headers={"A2A-Version": "1.0"}, json={
                "jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
                    "messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}})
            task = now.json()["result"]["task"]
            assert task["status"]["state"] == "TASK_STATE_COMPLETED"
            got = await http.post(served.url + "/", headers={"A2A-Version": "1.0"}, json={
                "jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": task["id"]}})
            assert got.json()["result"]["id"] == task["id"]
            before = await http.post(served.url + "/", json={
                "jsonrpc": "2.0", "id": 3, "method": "message/send", "params": {"message": {
                    "messageId": "m2", "role": "user", "kind": "message", "parts": [{"kind": "text", "text": "hi"}]}}})
            old = before.json()["result"]
            assert (old["kind"], old["status"]["state"]) == ("task", "completed")
            cancel = await http.post(served.url + "/", json={
                "jsonrpc": "2.0", "id": 4, "method": "tasks/cancel", "params": {"id": old["id"]}})
            assert "error" in cancel.json()  # a completed task cannot be cancelled, in either era's words

    asyncio.run(scenario())


def test_a_body_past_the_cap_or_not_json_is_refused_and_the_server_keeps_serving(tmp_path: Path) -> None:
    from agentkit_a2a._gate import MAX_BODY_BYTES

    async def scenario() -> None:
        make = agent_factory(tmp_path, lambda: Script([Turn([text("still here")])]))
        async with running(make, tmp_path / "sessions") as served, httpx.AsyncClient() as http:
            huge = await http.post(served.url + "/", content=b"{" + b" " * MAX_BODY_BYTES + b"}",
                                   headers={"Content-Type": "application/json"})
            assert huge.status_code == 413
            garbage = await http.post(served.url + "/", content=b"{not json",
                                      headers={"Content-Type": "application/json"})
            assert garbage.status_code == 200  # JSON-RPC answers a parse error in its body
            assert garbage.json()["error"]["code"] == -32700
            # Bytes that are not UTF-8: the SDK answers an internal error (-32603), still an answer.
            undecodable = await http.post(served.url + "/", content=b"\xff\xfe{",
                                          headers={"Content-Type": "application/json"})
            assert "error" in undecodable.json()
            async with sdk_client(served, streaming=False) as client:
                (last,) = await events(client, user_message("hi"))
                assert last.task.status.state == TaskState.TASK_STATE_COMPLETED

    asyncio.run(scenario())


def test_a_body_that_stops_coming_ends_its_request_and_a_long_stream_is_not_cut(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from urllib.parse import urlsplit

    from agentkit_a2a import _gate

    monkeypatch.setattr(_gate, "BODY_TIMEOUT", 0.5)

    async def scenario() -> None:
        make = agent_factory(tmp_path, lambda: FunctionModel(slow_answer))
        async with running(make, tmp_path / "sessions") as served:
            where = urlsplit(served.url)
            reader, writer = await asyncio.open_connection(where.hostname, where.port)
            writer.write(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 1000\r\n\r\n{\"jsonrpc\": ")  # and nothing more
            await writer.drain()
            # The server lets go of the request: it answers or closes, well before a client would give up.
            assert await asyncio.wait_for(reader.read(), timeout=30) is not None
            writer.close()
            # A streamed answer longer than the body timeout still arrives whole.
            async with sdk_client(served) as client:
                *_, last = await events(client, user_message("take your time"))
                assert last.status_update.status.state == TaskState.TASK_STATE_COMPLETED

    asyncio.run(scenario())


def slow_answer(request) -> str:  # type: ignore[no-untyped-def]
    import time

    time.sleep(1.5)  # three body timeouts: a stream must not be cut by them
    return "done slowly"
