"""``DurableAgent`` and ``RunSpec`` in the test's own process, and what ``agentkit run --durable`` and
``agentkit runs`` say to a user who asks something they cannot do."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentkit_durable import DurableAgent, RunSpec, launch, shutdown
from dbos import DBOS

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust
from agentkit.plugin_api import Tool, ToolContext
from agentkit.testing import Script, Turn, text, tool_call

from .conftest import PLUGIN_SITE, DurableWorld


@pytest.fixture
def database(tmp_path: Path) -> Iterator[str]:
    url = launch("sqlite:///" + str(tmp_path / "durable.sqlite"))
    try:
        yield url
    finally:
        shutdown()


def test_a_durable_agent_answers_a_finished_run_from_its_record(database: str) -> None:
    keys: list[str] = []
    scripts: list[Script] = []

    def note(arguments: dict[str, Any], context: ToolContext) -> str:
        keys.append(context.idempotency_key)
        return "noted"

    def build() -> Agent:
        script = Script([Turn([tool_call("note")]), Turn([text("noted it")])], by_transcript=True)
        scripts.append(script)
        agent = Agent(AgentConfig(model="faux/scripted", tools=[], connection=Connection(transport=script)))
        agent.add_tools(Tool("note", "Take a note.", {"type": "object", "properties": {}}, note))
        return agent

    durable = DurableAgent(build, name="notes")
    first = asyncio.run(durable.run("take a note", run_id="run-1"))
    again = asyncio.run(durable.run("take a note", run_id="run-1"))

    assert first.text == again.text == "noted it"
    assert keys == ["run-1:call_1_1"]  # the tool ran once, with the run's key
    assert sum(script.request_count for script in scripts) == 2  # the second call sent nothing


def test_a_durable_run_tells_its_listener_its_events(database: str) -> None:
    seen: list[str] = []

    def build() -> Agent:
        script = Script([Turn([text("hello")])], by_transcript=True)
        return Agent(AgentConfig(model="faux/scripted", tools=[], connection=Connection(transport=script)))

    result = asyncio.run(DurableAgent(build, name="hello").run("hi", on_event=lambda event: seen.append(event.type)))

    assert result.text == "hello"
    assert seen[0] == "agent_start" and seen[-1] == "agent_end" and "message_end" in seen


def test_a_run_spec_is_plain_data_and_refuses_what_it_does_not_know() -> None:
    spec = RunSpec(prompt="go", model="faux/scripted", root="/work", script="/work/s.json", session_id="abc")
    assert RunSpec.from_dict(spec.to_dict()) == spec
    with pytest.raises(ValueError, match="version 99"):
        RunSpec.from_dict({**spec.to_dict(), "version": 99})
    with pytest.raises(ValueError, match="unknown keys colour"):
        RunSpec.from_dict({**spec.to_dict(), "colour": "red"})


def test_read_only_tools_are_safe_to_retry_and_writing_ones_are_not() -> None:
    tools = PluginHost.discover().tools
    assert all(tools[name].retry_safe for name in ("read_file", "list_files", "find_files", "search_files"))
    assert not any(tools[name].retry_safe for name in ("write_file", "edit_file", "run_command"))


def test_a_missing_extension_is_named_with_the_command_that_installs_it(world: DurableWorld) -> None:
    world.script([Turn([text("hi")])])
    done = world.command.inline(*world.run_args(), env={**world.env(), "AGENTKIT_DISABLE_PLUGINS": "agentkit-durable"})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "agentkit: error: durable runs need the agentkit-durable extension: pip install agentkit-durable"]


def test_db_without_durable_is_a_usage_error(world: DurableWorld) -> None:
    done = world.command.inline("run", "--db", "sqlite:///x.sqlite", "--model", "faux/scripted", "hi",
                                env=world.env())
    assert done.returncode == 2 and "pass it with --durable" in done.stderr


def test_resuming_a_run_that_does_not_exist_says_so_in_one_line(world: DurableWorld) -> None:
    done = world.command.inline("runs", "resume", "no-such-run", env=world.env())
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "agentkit: error: no durable run has the id 'no-such-run'; 'agentkit runs list' shows them"]


def test_resume_with_nothing_pending_says_so(world: DurableWorld) -> None:
    done = world.command.inline("runs", "resume", env=world.env())
    assert done.returncode == 0 and "no durable run is pending" in done.stderr


def test_a_finished_run_resumed_by_id_prints_its_result_without_running_again(world: DurableWorld) -> None:
    world.script([Turn([tool_call("write_note", {"name": "once"})]), Turn([text("finished")])])
    database = "sqlite:///" + str(world.folder / "runs.sqlite")  # --db: not the data directory's
    done = world.run(*world.run_args()[:2], "--db", database, *world.run_args()[2:])
    assert done.returncode == 0 and done.stdout.strip() == "finished"
    run_id = next(line.split()[1] for line in done.stderr.splitlines() if line.startswith("run: "))
    assert not (world.data / "durable.sqlite").exists()

    resumed = world.run("runs", "resume", run_id, "--db", database)

    assert resumed.returncode == 0 and resumed.stdout.strip() == "finished"
    assert world.requested_turns() == [1, 2] and len(world.ledger_lines()) == 1


def test_validate_plugins_accepts_a_tool_that_is_safe_to_retry(world: DurableWorld) -> None:
    done = world.command("validate-plugins", "--json", env={**world.env(), "AGENTKIT_LOAD_PLUGINS": "agentkit-tools-ledger"},
                         site=PLUGIN_SITE)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_replayed_authorization_is_not_asked_again(database: str) -> None:
    asked: list[str] = []
    ran: list[str] = []

    def policy(call: Any, arguments: Any) -> None:
        asked.append(call.id)

    def note(arguments: dict[str, Any], context: ToolContext) -> str:
        ran.append(context.call_id)
        return "noted"

    def build() -> Agent:
        script = Script([Turn([tool_call("note")]), Turn([text("noted it")])], by_transcript=True)
        agent = Agent(AgentConfig(model="faux/scripted", tools=[], connection=Connection(transport=script),
                                  trust=Trust(before_tool_call=policy)))
        agent.add_tools(Tool("note", "Take a note.", {"type": "object", "properties": {}}, note))
        return agent

    first = asyncio.run(DurableAgent(build, name="asked").run("note it", run_id="auth-1"))
    assert first.text == "noted it" and asked == ["call_1_1"] and ran == ["call_1_1"]
    steps = {step["function_name"]: step["function_id"] for step in DBOS.list_workflow_steps("auth-1")}
    assert "agentkit.authorize" in steps

    # Executed again from the start of the tool calls, as a recovery would: earlier steps answer from the record.
    forked = DBOS.fork_workflow("auth-1", steps["agentkit.tools_started"]).get_result()

    assert forked["text"] == "noted it"
    assert asked == ["call_1_1"]  # the recorded decision, not a second question
    assert ran == ["call_1_1", "call_1_1"]  # the calls from that step on ran again
