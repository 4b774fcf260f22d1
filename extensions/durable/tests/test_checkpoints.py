"""What a durable run checkpoints, counted: the steps a finished run recorded, and the SQLite file they are in."""

from __future__ import annotations

import asyncio
import sqlite3
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentkit_durable import DurableAgent, launch, shutdown
from dbos import DBOS

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all
from agentkit.plugin_api import Tool, hookimpl
from agentkit.testing import Script, Turn, text, tool_call

#: Two turns of two calls each, then an answer: 3 model requests, 4 tool calls.
TURNS = [Turn([tool_call("note", {"n": 1}), tool_call("note", {"n": 2})]),
         Turn([tool_call("note", {"n": 3}), tool_call("note", {"n": 4})]), Turn([text("noted")])]


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "durable.sqlite"
    launch("sqlite:///" + str(path))
    try:
        yield path
    finally:
        shutdown()


class Watcher:
    """A hook plugin that may refuse a call (it never does)."""

    @hookimpl
    def agentkit_before_tool_call(self, call: Any, arguments: Any) -> None:
        return None


def _steps_of_a_run(name: str, *, policy: Any = None, plugin: object | None = None) -> Counter[str]:
    """The steps a finished durable run recorded, counted by name."""
    host = PluginHost.discover()
    if plugin is not None:
        host.register(plugin, name="watcher")

    async def note(n: int) -> int:
        """Note n."""
        return n

    def build() -> Agent:
        agent = Agent(AgentConfig(model="faux/scripted", tools=[], trust=Trust(before_tool_call=policy),
                                  connection=Connection(transport=Script(TURNS, by_transcript=True))), host=host)
        agent.add_tools(Tool.from_function(note))
        return agent

    result = asyncio.run(DurableAgent(build, name=name).run("note", run_id=f"run-{name}"))
    assert result.text == "noted"
    return Counter(step["function_name"] for step in DBOS.list_workflow_steps(f"run-{name}"))


@pytest.mark.parametrize("policy", [None, allow_all], ids=["no-policy", "allow-all"])
def test_a_run_nobody_may_refuse_records_no_authorization(database: Path, policy: Any) -> None:
    steps = _steps_of_a_run("nobody", policy=policy)
    assert steps["agentkit.authorize"] == 0
    assert steps["agentkit.model_request"] == 3 and steps["agentkit.tool:note"] == 4  # every request and call


def test_a_run_with_a_policy_records_one_authorization_per_call(database: Path) -> None:
    steps = _steps_of_a_run("policy", policy=lambda call, arguments: None)
    assert steps["agentkit.authorize"] == 4 and steps["agentkit.tool:note"] == 4


def test_a_run_with_a_hook_plugin_records_one_authorization_per_call(database: Path) -> None:
    steps = _steps_of_a_run("hooked", plugin=Watcher())
    assert steps["agentkit.authorize"] == 4 and steps["agentkit.tool:note"] == 4


def test_the_sqlite_database_is_in_wal_mode_and_commits_stay_synchronous_full(database: Path) -> None:
    _steps_of_a_run("journal")
    with sqlite3.connect(database) as connection:  # a fresh connection, as each of DBOS's is
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)  # kept in the file
        assert connection.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL: a commit is on disk
    for log in (database.with_name("durable.sqlite-wal"), database.with_name("durable.sqlite-shm")):
        assert log.stat().st_mode & 0o077 == 0  # as private as the database: they hold its pages
