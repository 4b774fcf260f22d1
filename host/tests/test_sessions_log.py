"""A run is written to its session as it happens, under a chosen durability, and a write failure fails the run."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from host_helpers import ToolsPlugin, make_host

from agentkit.host import Agent, AgentConfig, Connection, Trust, allow_all
from agentkit.host.sessions import Durability, JsonlSessionStore, Session
from agentkit.plugin_api import Outcome, Tool


def shout(word: str) -> str:
    """Say a word louder."""
    return word.upper()


class Watching(httpx.AsyncBaseTransport):
    """The scripted provider, noting what the session file holds at the moment each request arrives."""

    def __init__(self, script: Script, path: Path) -> None:
        self.script, self.path, self.seen = script, path, []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(entry_kinds(self.path))
        return await self.script.handle_async_request(request)


def entry_kinds(path: Path) -> list[str]:
    """Each line of a log, as its type, or ``role`` for a message."""
    kinds = []
    for line in path.read_bytes().splitlines():
        data = json.loads(line)
        kinds.append(data["message"]["role"] if data["type"] == "message" else data["type"])
    return kinds


def agent_with(session: Session, *turns: Turn, transport: Any = None, **config: Any) -> tuple[Agent, Script]:
    script = Script(list(turns))
    host = make_host(ToolsPlugin(Tool.from_function(shout)))
    agent = Agent(AgentConfig(model="faux/scripted", tools=["shout"], trust=Trust(before_tool_call=allow_all),
                              connection=Connection(transport=transport or script),
                              **config), host=host, session=session)
    return agent, script


TWO_TURNS = (Turn([text("Shouting."), tool_call("shout", {"word": "hi"}), tool_call("shout", {"word": "yo"})]),
             Turn([text("HI YO")]))


def test_each_request_goes_out_after_what_it_carries_is_in_the_log(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    session = Session.new(store, cwd=tmp_path)
    path = store.path(session.id)
    script = Script(list(TWO_TURNS))
    agent, _ = agent_with(session, transport=Watching(script, path))
    watching = agent.config.transport

    result = agent.run_sync("Shout hi and yo")

    assert result.outcome is Outcome.COMPLETED
    assert watching.seen == [
        ["session", "model_change", "user"],
        ["session", "model_change", "user", "assistant", "tool_result", "tool_result"],
    ]
    assert entry_kinds(path)[-1] == "assistant"
    reopened = Session.open(session.id, store)
    assert reopened.repairs == []
    assert [message.to_dict() for message in reopened.messages()] == [message.to_dict() for message in agent.history]


def test_a_resumed_session_continues_in_a_new_agent_with_its_model(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    first, _ = agent_with(Session.new(store, cwd=tmp_path), *TWO_TURNS)
    first.run_sync("Shout hi and yo")
    first.session.close()

    session = Session.open(first.session_id[:6], store)  # a unique prefix is enough
    config = session.config_for(AgentConfig(model="faux/other-model"))
    assert config.model == "faux/scripted"
    second, script = agent_with(session, Turn([text("Again: HI YO")]))
    assert second.history == session.messages()
    second.run_sync("Once more")

    sent = script.requests[0].messages
    assert [message.role for message in sent] == ["user", "assistant", "tool_result", "tool_result", "assistant", "user"]
    kinds = entry_kinds(store.path(session.id))
    assert kinds.count("model_change") == 1  # the same model again is no change
    assert kinds[-2:] == ["user", "assistant"]


def test_a_thinking_level_is_recorded_when_it_changes_and_resumed(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    agent, _ = agent_with(Session.new(store, cwd=tmp_path), Turn([text("ok")]), Turn([text("ok")]), reasoning="high")
    agent.run_sync("think")
    agent.run_sync("think again")
    agent.session.close()
    session = Session.open(agent.session_id, store)
    assert entry_kinds(store.path(session.id)).count("thinking_level_change") == 1
    assert session.config_for(AgentConfig(model="faux/scripted")).reasoning == "high"


class FailingStore(JsonlSessionStore):
    """A file store whose disk fills up after ``good`` appends."""

    def __init__(self, directory: Path, good: int) -> None:
        super().__init__(directory)
        self.good = good

    def append(self, session_id: str, entries: Any, *, expected_last: str | None) -> None:
        if self.good == 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        self.good -= 1
        super().append(session_id, entries, expected_last=expected_last)


@pytest.mark.parametrize(("good", "requests", "handlers_ran"), [
    (1, 0, 0),  # the model change is written, the user's message is not: nothing is sent
    (2, 1, 0),  # the response with the calls is not written: no call runs
    (3, 1, 2),  # the first result is not written: the batch had run, nothing more is sent
    (5, 2, 2),  # the final answer is not written: the run had completed, and is an error all the same
])
def test_a_write_failure_ends_the_run_as_an_error_and_says_so(tmp_path: Path, good: int, requests: int,
                                                              handlers_ran: int) -> None:
    ran: list[str] = []

    def noted(word: str) -> str:
        """Note a word."""
        ran.append(word)
        return word

    session = Session.new(FailingStore(tmp_path, good), cwd=tmp_path)
    script = Script(list(TWO_TURNS))
    host = make_host(ToolsPlugin(Tool.from_function(noted, name="shout")))
    agent = Agent(AgentConfig(model="faux/scripted", tools=["shout"], trust=Trust(before_tool_call=allow_all),
                              connection=Connection(transport=script)),
                  host=host, session=session)
    ends = []
    agent.subscribe(lambda event: ends.append(event) if event.type == "agent_end" else None)

    result = agent.run_sync("Shout hi and yo")

    assert result.outcome is Outcome.ERROR
    assert f"the session log {session.id} could not be written" in result.error
    assert "No space left on device" in result.error
    assert ends[-1].outcome is Outcome.ERROR and ends[-1].error == result.error
    assert script.request_count == requests
    assert len(ran) == handlers_ran
    assert Session.open(session.id, JsonlSessionStore(tmp_path)).repairs == []


def count_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


@pytest.mark.parametrize("durability", list(Durability))
def test_the_durability_policy_decides_when_the_log_is_synced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              durability: Durability) -> None:
    store = JsonlSessionStore(tmp_path, durability=durability)
    agent, _ = agent_with(Session.new(store, cwd=tmp_path), *TWO_TURNS)
    fsyncs = count_fsyncs(monkeypatch)
    agent.run_sync("Shout hi and yo")
    entries = len(entry_kinds(store.path(agent.session_id))) - 1
    expected = {
        Durability.FLUSH: 0,
        Durability.FSYNC: 1 + 1 + entries,  # the new file, its folder, each entry
        Durability.TURN: 2 + 1,  # before each request, and at the end
    }
    assert len(fsyncs) == expected[durability]


def test_an_unknown_durability_is_refused_naming_the_choices(tmp_path: Path) -> None:
    from agentkit.host.errors import ConfigError

    with pytest.raises(ConfigError, match="flush, fsync, turn"):
        JsonlSessionStore(tmp_path, durability="sometimes")
