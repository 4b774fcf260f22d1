"""The audit trail: a start and an end record on every exit, one record per tool call, never the arguments."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import agentkit_tools_files
import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from host_helpers import ToolsPlugin, make_host
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentkit.host import (
    Agent,
    AgentConfig,
    AuditRecord,
    ConfigError,
    Connection,
    JsonlAuditSink,
    Limits,
    Timeouts,
    Trust,
    allow_all,
)
from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.plugin_api import Block, Outcome, Skill, Tool, hookimpl

GENEROUS = 20.0  # seconds for a child process to get somewhere: a hang blows through it, a slow machine does not

# Long and distinctive: it cannot turn up by chance in ids, hashes or timestamps.
SECRET = "correct-horse-battery-staple-" + "Zq7" * 40


def echo(word: str) -> str:
    """Say a word back."""
    return word


class Recording:
    """A sink that keeps every record."""

    def __init__(self) -> None:
        self.records: list[AuditRecord] = []

    def record(self, record: AuditRecord) -> None:
        self.records.append(record)

    def kinds(self) -> list[str]:
        return [record.kind for record in self.records]


def agent_on(turns: list[Turn], *plugins: object, session: Session | None = None,
             tools: tuple[Tool, ...] = (), **config: Any) -> tuple[Agent, Recording]:
    sink = Recording()
    config.setdefault("trust", Trust(before_tool_call=allow_all))
    config.setdefault("audit", sink)
    host = make_host(ToolsPlugin(Tool.from_function(echo), *tools), *plugins)
    connection = dataclasses.replace(config.pop("connection", Connection()), transport=Script(turns))
    agent = Agent(AgentConfig(model="faux/scripted", connection=connection, **config), host=host, session=session)
    return agent, sink


def hangs_until_cancelled() -> Tool:
    async def wait_forever() -> str:
        """Never returns on its own."""
        await asyncio.Event().wait()
        return "never"

    return Tool.from_function(wait_forever)


def run_cancelled(agent: Agent) -> None:
    """Cancel the task awaiting the run once its tool is running."""
    async def scenario() -> None:
        task = asyncio.ensure_future(agent.run("go"))
        agent.subscribe(lambda event: task.cancel() if event.type == "tool_call_start" else None)
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())


def aborter(holder: list[Agent]) -> Tool:
    def stop_now() -> str:
        """Stops the run."""
        holder[0].abort()
        return "stopping"

    return Tool.from_function(stop_now)


def run_outcome(outcome: str) -> tuple[Outcome | None, Recording]:
    """A run that ends with ``outcome``, and what its sink received."""
    if outcome == "completed":
        agent, sink = agent_on([Turn([tool_call("echo", {"word": "hi"})]), Turn([text("done")])])
    elif outcome == "error":
        agent, sink = agent_on([Turn([text("half")], error="the provider fell over")])
    elif outcome == "max_turns":
        agent, sink = agent_on([Turn([tool_call("echo", {"word": "hi"})])] * 3, limits=Limits(max_turns=2))
    elif outcome == "aborted":
        holder: list[Agent] = []
        agent, sink = agent_on([Turn([tool_call("stop_now")]), Turn([text("never sent")])], tools=(aborter(holder),))
        holder.append(agent)
    elif outcome == "terminated":
        agent, sink = agent_on([Turn([tool_call("echo", {"word": "hi"})])],
                               trust=Trust(before_tool_call=lambda call, arguments: Block("no", terminate=True)))
    elif outcome == "timeout":
        agent, sink = agent_on([Turn([tool_call("wait_forever")])], tools=(hangs_until_cancelled(),),
                               timeouts=Timeouts(run=0.2))
    else:
        agent, sink = agent_on([Turn([tool_call("wait_forever")])], tools=(hangs_until_cancelled(),))
        run_cancelled(agent)
        return Outcome.CANCELLED, sink
    return agent.run_sync("go").outcome, sink


@pytest.mark.parametrize("outcome", ["completed", "error", "max_turns", "aborted", "terminated", "timeout", "cancelled"])
def test_every_exit_has_exactly_one_start_and_one_end_record(outcome: str) -> None:
    ended, sink = run_outcome(outcome)

    assert ended == outcome
    kinds = sink.kinds()
    assert kinds[0] == "session_start" and kinds[-1] == "session_end"
    assert kinds.count("session_start") == 1 and kinds.count("session_end") == 1
    assert sink.records[-1].outcome == outcome
    assert len({record.run_id for record in sink.records}) == 1


def test_each_tool_call_is_recorded_with_its_name_hash_decision_and_error_flag() -> None:
    arguments = json.dumps({"word": "hi"})
    agent, sink = agent_on([Turn([tool_call("echo", arguments), tool_call("missing", {})]), Turn([text("ok")])])

    agent.run_sync("go")

    calls = [record for record in sink.records if record.kind == "tool_call"]
    assert [(c.tool_name, c.decision, c.blocked_by, c.is_error) for c in calls] == [
        ("echo", "allowed", None, False),
        ("missing", "not_asked", None, True),  # an unknown tool never reaches authorization
    ]
    assert calls[0].arguments_sha256 == hashlib.sha256(arguments.encode()).hexdigest()
    assert sink.records[0].skills == () and sink.records[0].mcp_servers == ()


def test_the_start_lists_the_skills_the_agent_has_and_the_end_those_the_run_activated(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no skills of the user running the tests

    class Skills:
        @hookimpl
        def agentkit_register_skills(self, register: Any) -> None:
            register(Skill("deploy", "Deploy.", "Steps."))
            register(Skill("review", "Review.", "Steps."))

    probe, _ = agent_on([], agentkit_tools_files, Skills(), root=tmp_path)
    location = str(probe.skills.entries["deploy"].instructions_path)
    agent, sink = agent_on([Turn([tool_call("read_file", {"path": location})]), Turn([text("done")])],
                           agentkit_tools_files, Skills(), root=tmp_path)
    agent.run_sync("deploy it")

    assert sink.records[0].skills == ("deploy", "review")
    assert sink.records[-1].skills == ("deploy",)


def test_a_call_the_embedder_blocks_says_so_and_by_whom() -> None:
    agent, sink = agent_on([Turn([tool_call("echo", {"word": "no"})]), Turn([text("ok")])],
                           trust=Trust(before_tool_call=lambda call, arguments: Block("not that word")))
    agent.run_sync("go")
    (call,) = [record for record in sink.records if record.kind == "tool_call"]
    assert (call.decision, call.blocked_by, call.is_error) == ("blocked", "before_tool_call", True)


def test_a_call_a_plugin_blocks_names_the_plugin() -> None:
    class Refuses:
        @hookimpl
        def agentkit_before_tool_call(self, call, arguments):
            return Block("plugin says no")

    agent, sink = agent_on([Turn([tool_call("echo", {"word": "no"})]), Turn([text("ok")])], Refuses())
    agent.run_sync("go")
    (call,) = [record for record in sink.records if record.kind == "tool_call"]
    # make_host names the plugins it is given plugin0 (the tools here), plugin1, ...
    assert (call.decision, call.blocked_by) == ("blocked", "plugin:plugin1")


def test_the_arguments_never_reach_the_trail(tmp_path: Path) -> None:
    session = Session.new(JsonlSessionStore(tmp_path / "sessions"), cwd=tmp_path)
    audit_file = tmp_path / "audit.jsonl"
    holder: list[Agent] = []
    agent, _ = agent_on([Turn([tool_call("echo", {"word": SECRET}), tool_call("stop_now", {})]),
                         Turn([text("never sent")])],
                        session=session, tools=(aborter(holder),), audit=JsonlAuditSink(audit_file))
    holder.append(agent)

    assert agent.run_sync("go").outcome == "aborted"

    written = audit_file.read_text()
    assert SECRET not in written
    records = [json.loads(line) for line in written.splitlines()]
    assert [record["kind"] for record in records] == ["session_start", "tool_call", "tool_call", "session_end"]
    # The same records are in the session log, as custom entries; the history itself holds the
    # arguments (that is what a session is for), its audit entries never do.
    lines = [json.loads(line) for line in session.store.path(session.id).read_bytes().splitlines()]
    audited = [line for line in lines if line.get("type") == "custom" and line.get("custom_type") == "audit"]
    assert [entry["data"] for entry in audited] == records
    assert all(SECRET not in json.dumps(entry) for entry in audited)
    assert (audit_file.stat().st_mode & 0o777) == 0o600


def test_audit_entries_leave_the_resumed_history_alone(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    session = Session.new(store, cwd=tmp_path)
    agent, _ = agent_on([Turn([tool_call("echo", {"word": "hi"})]), Turn([text("done")])], session=session)
    agent.run_sync("go")

    reopened = Session.open(session.id, store)
    assert reopened.repairs == []
    assert [m.to_dict() for m in reopened.messages()] == [m.to_dict() for m in agent.history]


@pytest.mark.parametrize("failure", [OSError("disk full"), KeyboardInterrupt(), RuntimeError("sink bug")])
def test_a_sink_that_raises_never_changes_the_run(failure: BaseException) -> None:
    def broken(record: AuditRecord) -> None:
        raise failure

    agent, _ = agent_on([Turn([tool_call("echo", {"word": "hi"})]), Turn([text("done")])], audit=broken)
    result = agent.run_sync("go")

    assert result.outcome == "completed"
    assert [message.role for message in result.messages] == ["user", "assistant", "tool_result", "assistant"]
    assert len(result.problems) == 3  # start, the call, end: each one reported
    assert all(problem.startswith("the audit sink raised") for problem in result.problems)


def test_an_async_sink_is_refused_when_the_agent_is_built() -> None:
    async def sink(record: AuditRecord) -> None:
        pass

    with pytest.raises(ConfigError, match="async"):
        agent_on([], audit=sink)


def test_sessions_show_displays_the_trail(agentkit: Any, tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path / "data" / "sessions")
    session = Session.new(store, cwd=tmp_path)
    agent, _ = agent_on([Turn([tool_call("echo", {"word": SECRET})]), Turn([text("done")])], session=session,
                        audit=lambda record: None)  # a sink that drops records: the trail is kept in the session only
    agent.run_sync("go")

    shown = agentkit("sessions", "show", session.id, env={"AGENTKIT_DATA_DIR": str(tmp_path / "data")})
    assert shown.returncode == 0, shown.stderr
    assert "[audit] session_start faux/scripted" in shown.stdout
    assert "[audit] tool_call echo allowed args sha256 " in shown.stdout
    assert "[audit] session_end completed" in shown.stdout


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(schedule=st.lists(st.sampled_from([None, OSError, KeyboardInterrupt, SystemExit, ValueError]),
                         min_size=4, max_size=4))
def test_any_schedule_of_sink_failures_leaves_the_run_as_it_would_have_been(schedule: list[Any]) -> None:
    turns = [Turn([tool_call("echo", {"word": "a"}, id="c1"), tool_call("echo", {"word": "b"}, id="c2")]),
             Turn([text("done")])]
    reference = agent_on(list(turns), audit=None)[0].run_sync("go")
    seen: list[str] = []

    def flaky(record: AuditRecord) -> None:
        seen.append(record.kind)
        failure = schedule[len(seen) - 1]
        if failure is not None:
            raise failure("the sink failed")

    result = agent_on(list(turns), audit=flaky)[0].run_sync("go")

    assert result.outcome == reference.outcome == "completed"
    assert without_timestamps(result.messages) == without_timestamps(reference.messages)
    assert seen == ["session_start", "tool_call", "tool_call", "session_end"]
    assert len(result.problems) == sum(failure is not None for failure in schedule)


def without_timestamps(messages: list[Any]) -> list[dict[str, Any]]:
    return [{key: value for key, value in message.to_dict().items() if key != "timestamp"} for message in messages]


CTRL_C_SCRIPT = textwrap.dedent('''
    import os, pathlib, sys, threading
    from agentkit_provider_faux import FauxProvider, Script, Turn, text, tool_call
    from agentkit.host import Agent, AgentConfig, JsonlAuditSink, PluginHost
    from agentkit.plugin_api import Tool, hookimpl

    def stuck(arguments, context):
        pathlib.Path(os.environ["STARTED_FILE"]).write_text("started")
        threading.Event().wait()

    class Plugins:
        @hookimpl
        def agentkit_register_providers(self, register):
            register(FauxProvider())

        @hookimpl
        def agentkit_register_tools(self, register):
            register(Tool("stuck", "never returns", {"type": "object"}, stuck))

    host = PluginHost()
    host.register(Plugins(), name="plugins")
    agent = Agent(AgentConfig(model="faux/scripted", tools=["stuck"], audit=JsonlAuditSink(sys.argv[1]),
                              transport=Script([Turn([tool_call("stuck")]), Turn([text("never")])])), host=host)
    try:
        agent.run_sync("go")
    except KeyboardInterrupt:
        sys.exit(7)
''')


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_in_a_script_still_ends_the_trail(tmp_path: Path) -> None:
    driver, started, trail = tmp_path / "driver.py", tmp_path / "started", tmp_path / "audit.jsonl"
    driver.write_text(CTRL_C_SCRIPT, encoding="utf-8")
    process = subprocess.Popen([sys.executable, str(driver), str(trail)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env={**os.environ, "STARTED_FILE": str(started)})
    try:
        deadline = time.monotonic() + GENEROUS
        while not started.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert started.exists(), process.stderr.read() if process.poll() is not None else "the tool never started"
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=GENEROUS)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 7, err
    records = [json.loads(line) for line in trail.read_text().splitlines()]
    assert [record["kind"] for record in records] == ["session_start", "tool_call", "session_end"]
    assert records[-1]["outcome"] == "aborted"
