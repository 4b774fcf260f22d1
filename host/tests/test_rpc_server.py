"""The RPC server in process: what it promises about the session log, hostile lines, and its end."""

from __future__ import annotations

import asyncio
import datetime
import io
import json
import os
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

from agentkit_provider_faux import Script
from host_helpers import make_host
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rpc_helpers import EVENTS, RESPONSES

from agentkit.host import Agent, AgentConfig, Connection, Subagent, Trust, allow_all
from agentkit.host.rpc import METHODS, Oversized, RpcServer, read_lines
from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.plugin_api import Tool

V1 = "agentkit.rpc.request/v1"


def say(text: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], **extra}


def factory(*turns: dict[str, Any]) -> Any:
    host = make_host()

    def make(session: Session | None, model: str | None) -> Agent:
        return Agent(AgentConfig(model=model or "faux/scripted", tools=[],
                                 connection=Connection(transport=Script(list(turns)))),
                     host=host, session=session)

    return make


class Lines:
    """The server's output: each line through JSON (as it would be written), checked against its schema."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.on_event: Any = None
        #: Set once a response was written.
        self.answered = threading.Event()

    def write(self, data: dict[str, Any]) -> None:
        line = json.loads(json.dumps(data))
        (EVENTS if "seq" in line else RESPONSES).validate(line)
        self.lines.append(line)
        if "seq" not in line:
            self.answered.set()
        elif self.on_event is not None:
            self.on_event(line)

    @property
    def responses(self) -> list[dict[str, Any]]:
        return [line for line in self.lines if "seq" not in line]

    @property
    def events(self) -> list[dict[str, Any]]:
        return [line for line in self.lines if "seq" in line]


def line(request_id: Any, method: str, **params: Any) -> bytes:
    return json.dumps({"schema": V1, "id": request_id, "method": method, "params": params}).encode()


async def start_and_prompt(server: RpcServer, out: Lines, text: str = "Hello") -> str:
    await server.handle_line(line(1, "session.start"))
    session_id = out.responses[-1]["result"]["session_id"]
    await server.handle_line(line(2, "prompt", session_id=session_id, text=text))
    return session_id


async def settle(server: RpcServer) -> None:
    """Wait for every run the server started to end."""
    await asyncio.gather(*(item.run for item in server._open.values() if item.run is not None))


def test_every_event_is_in_the_session_log_before_it_is_written_out(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    out = Lines()
    checked = []

    def in_the_log(event: dict[str, Any]) -> None:  # runs as the line is written: the log must hold it already
        kept = [entry.data["data"] for entry in store.load(event["session_id"]).entries if entry.type == "custom"]
        assert kept[-1] == event
        checked.append(event["seq"])

    out.on_event = in_the_log

    async def main() -> None:
        server = RpcServer(factory(say("One"), say("Two")), out.write, store=store, cwd=tmp_path)
        session_id = await start_and_prompt(server, out)
        await settle(server)
        await server.handle_line(line(3, "prompt", session_id=session_id, text="Again"))
        await server.shutdown()

    asyncio.run(main())
    assert checked == list(range(1, len(out.events) + 1))
    assert [event["type"] for event in out.events].count("agent_end") == 2
    assert all(event["outcome"] in ("completed", "aborted") for event in out.events if event["type"] == "agent_end")


def test_two_sessions_run_at_once_each_numbered_on_its_own_and_aborting_one_leaves_the_other(
        tmp_path: Path) -> None:
    out = Lines()

    async def main() -> tuple[str, str]:
        server = RpcServer(factory(say("Slow one", hang=True), say("Next")), out.write,
                           store=JsonlSessionStore(tmp_path), cwd=tmp_path)
        streaming: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)

        def on_event(event: dict[str, Any]) -> None:
            if event["type"] == "block_delta":
                streaming[event["session_id"]].set()

        out.on_event = on_event
        first = await start_and_prompt(server, out, "First")
        second = await start_and_prompt(server, out, "Second")
        for session_id in (first, second):  # each run streams, then hangs until aborted
            await streaming[session_id].wait()
        await server.handle_line(line(3, "abort", session_id=first))
        await server._open[first].run
        assert server._open[second].running  # the other goes on
        await server.handle_line(line(4, "session.close", session_id=second))
        await server.handle_line(line(5, "prompt", session_id=first, text="Again"))
        await server._open[first].run
        await server.shutdown()
        return first, second

    first, second = asyncio.run(main())
    for session_id, outcomes in ((first, ["aborted", "completed"]), (second, ["aborted"])):
        mine = [event for event in out.events if event["session_id"] == session_id]
        assert [event["seq"] for event in mine] == list(range(1, len(mine) + 1))
        assert [event["outcome"] for event in mine if event["type"] == "agent_end"] == outcomes


def test_a_steer_sent_mid_run_reaches_the_model_in_the_next_request(tmp_path: Path) -> None:
    out = Lines()
    script = Script([{"content": [{"type": "tool_use", "name": "wait", "arguments": {}}]}, say("Steered.")])

    async def main() -> None:
        release = asyncio.Event()
        calling = asyncio.Event()

        async def wait() -> str:
            """Wait until the test lets the call finish."""
            await release.wait()
            return "done"

        host = make_host()

        def make(session: Session | None, model: str | None) -> Agent:
            return Agent(AgentConfig(model="faux/scripted", tools=["wait"], extra_tools=[Tool.from_function(wait)],
                                     trust=Trust(before_tool_call=allow_all),
                                     connection=Connection(transport=script)), host=host, session=session)

        out.on_event = lambda event: event["type"] == "tool_call_start" and calling.set()
        server = RpcServer(make, out.write, store=JsonlSessionStore(tmp_path), cwd=tmp_path)
        session_id = await start_and_prompt(server, out, "Start")
        await calling.wait()  # the run is inside its tool call: the steer lands before the next request
        await server.handle_line(line(3, "steer", session_id=session_id, text="Change of plan"))
        release.set()
        await settle(server)
        await server.shutdown()

    asyncio.run(main())
    assert out.responses[-1]["result"]["running"] is True
    types = [event["type"] for event in out.events]
    steered = [event for event in out.events if event["type"] == "steering_message"]
    assert len(steered) == 1 and steered[0]["message"]["content"][0]["text"] == "Change of plan"
    # in the stream where it joined the history: after the first turn's results, before the second request
    assert types.index("turn_end") < types.index("steering_message") < len(types) - types[::-1].index("turn_start") - 1
    second = script.requests[1].messages
    assert [message.role for message in second] == ["user", "assistant", "tool_result", "user"]
    assert second[-1].content[0].text == "Change of plan"
    assert out.events[-1]["outcome"] == "completed"


class FailsOnEvent(JsonlSessionStore):
    """A store that cannot keep the event numbered ``seq`` (a full disk, say)."""

    def __init__(self, root: Path, seq: int) -> None:
        super().__init__(root)
        self.seq = seq

    def append(self, session_id: str, entries: Any, *, expected_last: str | None) -> None:
        if any(entry.type == "custom" and entry.data["data"].get("seq") == self.seq for entry in entries):
            raise OSError(28, "No space left on device")
        super().append(session_id, entries, expected_last=expected_last)


def test_an_event_the_log_cannot_keep_is_never_published_and_the_run_stops(tmp_path: Path) -> None:
    out = Lines()

    async def main() -> str:
        server = RpcServer(factory(say("A long answer that streams in pieces"), say("unused")), out.write,
                           store=FailsOnEvent(tmp_path, seq=3), cwd=tmp_path)
        session_id = await start_and_prompt(server, out)
        await settle(server)
        await server.handle_line(line(3, "prompt", session_id=session_id, text="Again"))
        await server.handle_line(line(4, "sessions.list"))
        await server.shutdown()
        return session_id

    session_id = asyncio.run(main())
    assert [event["seq"] for event in out.events] == [1, 2]
    failure = out.responses[2]
    assert failure["id"] is None and failure["error"]["code"] == "session_write_failed"
    assert failure["error"]["session_id"] == session_id and "No space left on device" in failure["error"]["message"]
    refused = out.responses[3]
    assert refused["id"] == 3 and refused["error"]["code"] == "session_write_failed"
    assert out.responses[4]["id"] == 4 and "result" in out.responses[4]  # and the server goes on serving


def test_eof_with_a_turn_in_flight_aborts_it_and_closes_the_session(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    out = Lines()
    read_fd, write_fd = os.pipe()
    streaming = threading.Event()
    out.on_event = lambda event: event["type"] == "block_delta" and streaming.set()

    def client() -> None:
        with os.fdopen(write_fd, "wb") as stdin:
            stdin.write(json.dumps({"schema": V1, "id": 1, "method": "session.start"}).encode() + b"\n")
            stdin.flush()
            assert out.answered.wait(120), "session.start was never answered"
            session_id = out.responses[0]["result"]["session_id"]
            stdin.write(line(2, "prompt", session_id=session_id, text="Take your time") + b"\n")
            stdin.flush()
            assert streaming.wait(120), "the run never streamed"
        # leaving the block closed stdin: EOF while the response hangs open

    writer = threading.Thread(target=client)
    writer.start()
    server = RpcServer(factory(say("Mulling", hang=True)), out.write, store=store, cwd=tmp_path)
    with os.fdopen(read_fd, "rb") as stdin:
        asyncio.run(server.serve(stdin))
    writer.join()
    end = out.events[-1]
    assert end["type"] == "agent_end" and end["outcome"] == "aborted"
    assert server._open == {}
    # The session was let go of: another writer may append to it now (the file store locks while one is open).
    session = Session.open(end["session_id"], JsonlSessionStore(tmp_path))
    session.append_custom("note", "after the server")
    session.close()


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=8)
REQUESTISH = st.fixed_dictionaries({}, optional={
    "schema": st.sampled_from([V1, "agentkit.rpc.request/v2", ""]) | JSON,
    "id": st.integers() | st.text(max_size=6) | JSON,
    "method": st.sampled_from([*METHODS, "nope"]) | JSON,
    "params": st.fixed_dictionaries({}, optional={"session_id": st.text(max_size=4), "text": st.text(max_size=4),
                                                  "model": st.sampled_from(["faux/scripted", "no/such"])}) | JSON,
})
HOSTILE = st.lists(st.binary(max_size=40) | REQUESTISH.map(lambda data: json.dumps(data).encode())
                   | JSON.map(lambda data: json.dumps(data).encode()), min_size=1, max_size=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(HOSTILE)
def test_hostile_lines_each_get_one_response_carrying_their_id(tmp_path: Path, lines: list[bytes]) -> None:
    out = Lines()

    async def main() -> None:
        server = RpcServer(factory(say("ok")), out.write, store=JsonlSessionStore(tmp_path / "s"), cwd=tmp_path)
        for raw in lines:
            await server.handle_line(raw)
        await server.shutdown()

    asyncio.run(main())
    responses = out.responses
    assert len(responses) == len(lines)
    for raw, response in zip(lines, responses, strict=True):
        assert response["error"]["code"] != "internal" if "error" in response else True, response
        try:
            sent = json.loads(raw)
        except ValueError:
            sent = None
        request_id = sent.get("id") if isinstance(sent, dict) else None
        if isinstance(request_id, (str, int)) and not isinstance(request_id, bool):
            assert response["id"] == request_id
        else:
            assert response["id"] is None and response["error"]["code"] == "malformed"


def test_read_lines_bounds_each_line_and_goes_on_after_a_long_one() -> None:
    stream = io.BytesIO(b"12345678\n123456789\n" + b"x" * 100 + b"\nok\r\n\n   \nlast")
    assert list(read_lines(stream, limit=8)) == [b"12345678", Oversized(9, 8), Oversized(100, 8), b"ok", b"", b"   ",
                                                 b"last"]
    assert list(read_lines(io.BytesIO(b"ok\n"))) == [b"ok"]  # the end of the stream after a newline is no line
    assert list(read_lines(io.BytesIO(b"x" * 20), limit=8)) == [Oversized(20, 8)]


def test_a_subagents_event_keeps_the_child_session_beside_the_rpc_session(tmp_path: Path) -> None:
    out = Lines()
    store = JsonlSessionStore(tmp_path)
    host = make_host()
    child = AgentConfig(model="faux/scripted", tools=[], connection=Connection(transport=Script([say("found")])))
    parent = Script([{"content": [{"type": "tool_use", "name": "research", "arguments": {"task": "Find it."}}]},
                     say("Done.")])

    def make(session: Session | None, model: str | None) -> Agent:
        return Agent(AgentConfig(model="faux/scripted", tools=["research"],
                                 extra_tools=[Subagent("research", "Finds.", child).as_tool()],
                                 trust=Trust(before_tool_call=allow_all), connection=Connection(transport=parent)),
                     host=host, session=session)

    async def main() -> str:
        server = RpcServer(make, out.write, store=store, cwd=tmp_path)
        session_id = await start_and_prompt(server, out, "Go.")
        await settle(server)
        await server.shutdown()
        return session_id

    session_id = asyncio.run(main())
    tagged = [event for event in out.events if event["type"] == "subagent"]
    assert tagged and all(event["session_id"] == session_id for event in out.events)  # every line: the RPC's session
    children = {event["subagent_session_id"] for event in tagged}
    assert len(children) == 1 and session_id not in children
    [child_id] = children
    assert [message.role for message in Session.open(child_id, store).messages()] == ["user", "assistant"]
    assert [event["event"]["type"] for event in tagged][::len(tagged) - 1] == ["agent_start", "agent_end"]


def test_an_empty_line_is_answered_as_malformed(tmp_path: Path) -> None:
    out = Lines()

    async def main() -> None:
        server = RpcServer(factory(say("ok")), out.write, store=JsonlSessionStore(tmp_path), cwd=tmp_path)
        await server.serve(io.BytesIO(b"\n   \r\n" + line(1, "sessions.list") + b"\n\n"))

    asyncio.run(main())
    assert [(response["id"], response.get("error", {}).get("code")) for response in out.responses] == [
        (None, "malformed"), (None, "malformed"), (1, None), (None, "malformed")]
    assert "empty" in out.responses[0]["error"]["message"]


def test_sessions_list_names_each_session_as_the_host_lists_it(tmp_path: Path) -> None:
    out = Lines()
    store = JsonlSessionStore(tmp_path)

    async def main() -> str:
        server = RpcServer(factory(say("ok")), out.write, store=store, cwd=tmp_path)
        session_id = await start_and_prompt(server, out)
        await settle(server)
        await server.handle_line(line(3, "sessions.list"))
        await server.shutdown()
        return session_id

    session_id = asyncio.run(main())
    [listed] = out.responses[-1]["result"]["sessions"]
    [stored] = store.list_sessions()
    started = datetime.datetime.fromisoformat(stored.started).replace(tzinfo=datetime.UTC)
    assert listed == {"id": session_id, "cwd": stored.cwd, "location": stored.location,
                      "started": started.isoformat(timespec="seconds").replace("+00:00", "Z"),
                      "updated": datetime.datetime.fromtimestamp(stored.updated, datetime.UTC).isoformat(
                          timespec="seconds").replace("+00:00", "Z"),
                      "open": True}
