"""The agent's options reach each run, and each run reports its end where an embedder or a plugin looks."""

from __future__ import annotations

import asyncio
import errno
import json
import re
import threading
from pathlib import Path
from typing import Any

import agentkit_tools_files
import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent, make_host
from loop_faults import HostileProvider, recorded_agent

from agentkit.host import Agent, AgentConfig, Budget, Connection, Limits, Timeouts, Trust
from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.host.sessions._interrupted import INTERRUPTED_RESULT
from agentkit.plugin_api import (
    AgentEnd,
    AssistantMessage,
    Outcome,
    StopReason,
    Tool,
    ToolResultMessage,
    ToolUseBlock,
    Usage,
    UserMessage,
    hookimpl,
)


def act() -> str:
    """Act."""
    return "acted"


ACT = Tool.from_function(act)


class SessionHooks:
    """Records what the session hooks and the run observer hook are told."""

    def __init__(self) -> None:
        self.starts: list[Any] = []
        self.ends: list[tuple[Any, Outcome, str | None]] = []
        self.observed: list[Any] = []

    @hookimpl
    def agentkit_session_start(self, session: Any) -> None:
        self.starts.append(session)

    @hookimpl
    def agentkit_session_end(self, session: Any, outcome: Outcome, error: str | None) -> None:
        self.ends.append((session, outcome, error))

    @hookimpl
    def agentkit_run_observer(self, session: Any) -> Any:
        self.observed.append(session)
        return None


def test_the_session_hooks_and_the_run_observer_hook_are_told_the_runs_session(tmp_path: Path) -> None:
    hooks = SessionHooks()
    agent, _ = make_agent([Turn([text("ok")])], hooks, root=tmp_path)
    agent.run_sync("go")
    for told in (hooks.starts, [end[0] for end in hooks.ends], hooks.observed):
        [session] = told
        assert (session.session_id, session.model, session.root) == (agent.session_id, "faux/scripted",
                                                                     tmp_path.resolve())


def test_the_session_end_hook_hears_how_the_run_ended_and_why() -> None:
    def fails(context: Any) -> bool:
        raise ValueError("policy bug")

    hooks = SessionHooks()
    agent, _ = make_agent([Turn([tool_call("act")]), Turn([text("never sent")])], ToolsPlugin(ACT), hooks,
                          stop_policy=fails)
    result = agent.run_sync("go")
    assert (result.outcome, result.error) == (Outcome.ERROR, "the stop policy raised ValueError: policy bug")
    assert [(outcome, error) for _, outcome, error in hooks.ends] == [(result.outcome, result.error)]


def test_a_failed_run_ends_its_history_with_an_error_answer_saying_why_and_reports_it_everywhere() -> None:
    """A defect below the loop (here: the provider's decoder raising what is no Exception) fails the run, never
    the caller."""
    hooks = SessionHooks()
    agent, _ = recorded_agent(Script([Turn([text("hi")])]), hooks, provider=HostileProvider("raise:keyboard_interrupt"))
    ends: list[AgentEnd] = []
    agent.subscribe(lambda event: ends.append(event) if event.type == "agent_end" else None)
    result = agent.run_sync("go")

    assert (result.outcome, result.error) == (Outcome.ERROR, "KeyboardInterrupt: hostile decoder")
    last = agent.history[-1]
    assert isinstance(last, AssistantMessage)
    assert (last.stop_reason, last.content, last.error_message) == (StopReason.ERROR, [], result.error)
    assert (last.provider, last.api, last.model) == (agent.model.vendor, agent.model.api, agent.model.id)
    assert result.messages[-1] is last
    [end] = ends
    assert (end.outcome, end.error, end.messages) == (result.outcome, result.error, result.messages)
    assert [(outcome, error) for _, outcome, error in hooks.ends] == [(result.outcome, result.error)]


def test_the_result_and_agent_end_carry_the_runs_turns_usage_and_messages() -> None:
    usage = Usage(input=7, output=3)
    agent, _ = make_agent([Turn([tool_call("act")], usage=usage), Turn([text("done")], usage=usage)],
                          ToolsPlugin(ACT))
    ends: list[AgentEnd] = []
    agent.subscribe(lambda event: ends.append(event) if event.type == "agent_end" else None)
    result = agent.run_sync("go")

    assert (result.outcome, result.turns, result.error, result.stopped_by) == (Outcome.COMPLETED, 2, None, None)
    assert (result.usage.input, result.usage.output) == (14, 6)
    assert result.messages == agent.history and len(result.messages) == 4
    [end] = ends
    assert (end.outcome, end.error) == (Outcome.COMPLETED, None)
    assert end.messages == result.messages and end.messages is not result.messages


def test_a_listener_that_raises_is_reported_by_its_exception() -> None:
    def listener(event: Any) -> None:
        raise LookupError("listener bug")

    agent, _ = make_agent([Turn([text("ok")])])
    agent.subscribe(listener)
    result = agent.run_sync("go")
    assert result.outcome is Outcome.COMPLETED
    assert f"event listener {listener!r} raised LookupError: listener bug" in result.problems


def test_each_run_has_its_own_audit_run_id_on_all_its_records() -> None:
    seen: list[Any] = []
    agent, _ = make_agent([Turn([tool_call("act")]), Turn([text("one")]), Turn([text("two")])], ToolsPlugin(ACT),
                          audit=seen.append)
    agent.run_sync("first")
    first = list(seen)
    agent.run_sync("second")
    second = seen[len(first):]
    assert [record.kind for record in first] == ["session_start", "tool_call", "session_end"]
    [first_id] = {record.run_id for record in first}
    [second_id] = {record.run_id for record in second}
    assert re.fullmatch("[0-9a-f]{32}", first_id) and re.fullmatch("[0-9a-f]{32}", second_id)
    assert first_id != second_id
    assert {record.model for record in first if record.model is not None} == {"faux/scripted"}


def test_a_budget_ends_the_run_once_it_is_spent() -> None:
    agent, script = make_agent([Turn([tool_call("act")], usage=Usage(input=20)), Turn([text("never sent")])],
                               ToolsPlugin(ACT), limits=Limits(budget=Budget(tokens=10)))
    result = agent.run_sync("go")
    assert (result.outcome, result.stopped_by, result.turns) == (Outcome.STOP_POLICY, "budget", 1)
    assert script.request_count == 1


def test_a_session_records_the_model_and_the_thinking_level_the_run_used(tmp_path: Path) -> None:
    session = Session.new(JsonlSessionStore(tmp_path), cwd=tmp_path)
    agent = Agent(AgentConfig(model="faux/scripted", reasoning="high",
                              connection=Connection(transport=Script([Turn([text("ok")])]))),
                  host=make_host(), session=session)
    agent.run_sync("go")
    reopened = Session.open(session.id, JsonlSessionStore(tmp_path))
    assert (reopened.model, reopened.thinking_level) == ("faux/scripted", "high")


def test_a_tiny_hook_timeout_fails_nothing_in_a_run_without_hooks_or_stop_policies() -> None:
    """Nothing is called under ``hook_timeout`` when nothing was given to call (no thread is started per turn)."""
    agent, _ = make_agent([Turn([tool_call("act")]), Turn([tool_call("act")]), Turn([text("done")])],
                          ToolsPlugin(ACT), limits=Limits(max_turns=None), timeouts=Timeouts(hook=1e-9))
    result = agent.run_sync("go")
    assert (result.outcome, result.turns, result.problems) == (Outcome.COMPLETED, 3, [])


# -- the start of a run ---------------------------------------------------------------


def unanswered_turn() -> list[Any]:
    """A conversation whose last turn called a tool and got no answer (its process was killed meanwhile)."""
    return [UserMessage.text("act"),
            AssistantMessage([ToolUseBlock("call_1", "act", "{}")], StopReason.TOOL_USE, provider="faux", api="faux",
                             model="scripted")]


def test_a_session_left_with_unanswered_calls_has_them_answered_first_in_the_log(tmp_path: Path) -> None:
    session = Session.new(JsonlSessionStore(tmp_path), cwd=tmp_path)
    for message in unanswered_turn():
        session.append_message(message)
    agent = Agent(AgentConfig(model="faux/scripted",
                              connection=Connection(transport=Script([Turn([text("ok")])]))), host=make_host(),
                  session=session)
    result = agent.run_sync("again")
    answer, prompt, reply = result.messages
    assert isinstance(answer, ToolResultMessage) and answer.is_error
    assert (answer.tool_use_id, answer.text) == ("call_1", INTERRUPTED_RESULT)
    assert (prompt.content[0].text, reply.text) == ("again", "ok")
    logged = Session.open(session.id, JsonlSessionStore(tmp_path)).messages()
    assert [message.role for message in logged] == ["user", "assistant", "tool_result", "user", "assistant"]


def test_without_a_session_a_history_with_unanswered_calls_is_repaired_only_in_the_request() -> None:
    agent, script = make_agent([Turn([text("ok")])])
    agent.history = unanswered_turn()
    result = agent.run_sync("again")
    assert [message.role for message in result.messages] == ["user", "assistant"]
    assert [message.role for message in script.requests[0].messages] == ["user", "assistant", "tool_result", "user"]


def test_agent_start_carries_the_runs_new_messages() -> None:
    starts: list[Any] = []
    agent, _ = make_agent([Turn([text("ok")])])
    agent.subscribe(lambda event: starts.append(event) if event.type == "agent_start" else None)
    result = agent.run_sync("go")
    [start] = starts
    assert start.messages == [result.messages[0]] and start.messages[0].content[0].text == "go"


def test_the_mcp_servers_are_asked_about_only_for_an_audit_trail_someone_keeps() -> None:
    class Servers:
        asked = 0

        @hookimpl
        def agentkit_mcp_servers(self, tools: list[str]) -> Any:
            Servers.asked += 1
            return [{"name": "wiki"}]

    agent, _ = make_agent([Turn([text("ok")])], ToolsPlugin(ACT), Servers())
    assert agent.run_sync("go").outcome is Outcome.COMPLETED
    assert Servers.asked == 0


# -- the options every tool call runs with -----------------------------------------------


@pytest.fixture
def never() -> Any:
    """A wait that lasts until the test is over; bounded, so that a defect fails rather than hangs."""
    event = threading.Event()
    yield lambda: event.wait(10)
    event.set()


def test_a_tool_past_tool_timeout_is_answered_with_a_timeout_and_the_run_goes_on(never: Any) -> None:
    hangs = Tool("hang", "Hang.", {"type": "object"}, lambda arguments, context: never())
    agent, _ = make_agent([Turn([tool_call("hang")]), Turn([text("went on")])], ToolsPlugin(hangs),
                          timeouts=Timeouts(tool=0.05))
    result = agent.run_sync("go")
    [answer] = [message for message in result.messages if isinstance(message, ToolResultMessage)]
    assert answer.is_error
    assert json.loads(answer.text)["error"] == "timeout"
    assert (result.outcome, result.text) == (Outcome.COMPLETED, "went on")


def test_a_before_tool_call_past_hook_timeout_blocks_the_call_and_is_reported(never: Any) -> None:
    def policy(call: Any, arguments: Any) -> None:
        never()

    agent, _ = make_agent([Turn([tool_call("act")]), Turn([text("went on")])], ToolsPlugin(ACT),
                          timeouts=Timeouts(hook=0.05), trust=Trust(before_tool_call=policy))
    result = agent.run_sync("go")
    [answer] = [message for message in result.messages if isinstance(message, ToolResultMessage)]
    assert answer.is_error and json.loads(answer.text)["error"] == "blocked"
    assert "before_tool_call did not answer within hook_timeout=0.05s; the call was blocked" in result.problems
    assert result.outcome is Outcome.COMPLETED


def test_tools_get_the_embedders_options_and_may_add_tools() -> None:
    seen: list[Any] = []
    later = Tool("later", "Added by a tool.", {"type": "object"}, lambda arguments, context: "later")

    def adds(arguments: Any, context: Any) -> str:
        seen.append(dict(context.options))
        context.add_tools(later)
        return "added"

    agent, script = make_agent([Turn([tool_call("adds")]), Turn([text("ok")])],
                               ToolsPlugin(Tool("adds", "Add a tool.", {"type": "object"}, adds)),
                               tool_options={"adds": {"level": 2}})
    assert agent.run_sync("go").outcome is Outcome.COMPLETED
    assert seen == [{"level": 2}]
    assert script.requests[-1].tool_names == ["adds", "later"]
    assert "later" in agent.tools


def test_the_audit_trail_ends_with_the_runs_outcome_error_and_the_skills_it_read(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    folder = tmp_path / ".agentkit" / "skills" / "deploy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: deploy\ndescription: Deploy.\n---\nDeploy it.\n")
    workspace = tmp_path / "project"
    workspace.mkdir()

    def fails(context: Any) -> bool:
        raise ValueError("policy bug")

    seen: list[Any] = []
    agent, _ = make_agent([Turn([tool_call("read_file", {"path": str(folder / "SKILL.md")})]), Turn([text("no")])],
                          agentkit_tools_files, root=workspace, audit=seen.append, stop_policy=fails)
    result = agent.run_sync("deploy")
    assert (result.outcome, result.skills) == (Outcome.ERROR, ["deploy"])
    start, end = seen[0], seen[-1]
    assert (start.kind, start.skills) == ("session_start", ("deploy",))
    assert (end.kind, end.outcome, end.error, end.skills) == (
        "session_end", "error", "the stop policy raised ValueError: policy bug", ("deploy",))


def test_a_session_log_that_cannot_be_written_stops_the_run_and_says_why_in_its_last_message(tmp_path: Path) -> None:
    class FullDisk(JsonlSessionStore):
        """Takes the first append (the model's), then the disk is full."""

        appends = 0

        def append(self, session_id: str, entries: Any, *, expected_last: str | None) -> None:
            FullDisk.appends += 1
            if FullDisk.appends > 1:
                raise OSError(errno.ENOSPC, "No space left on device")
            super().append(session_id, entries, expected_last=expected_last)

    session = Session.new(FullDisk(tmp_path), cwd=tmp_path)
    script = Script([Turn([text("never sent")])])
    agent = Agent(AgentConfig(model="faux/scripted",
                              connection=Connection(transport=script)), host=make_host(), session=session)
    result = agent.run_sync("go")
    assert result.outcome is Outcome.ERROR
    assert result.error.startswith(f"the session log {session.id} could not be written: OSError: ")
    assert agent.history[-1].error_message == result.error
    assert script.request_count == 0


def test_the_runs_own_task_cancelled_ends_it_as_cancelled_saying_so_with_every_call_answered() -> None:
    """What ``asyncio.run`` does to a run still going when the application ends: its task is cancelled
    (here by a listener, called in that task, as a call starts: the task then waits for the handler)."""

    def waits(arguments: Any, context: Any) -> str:
        context.cancel.wait(10)
        return "done"

    agent, script = make_agent([Turn([tool_call("wait")]), Turn([text("never sent")])],
                               ToolsPlugin(Tool("wait", "Wait.", {"type": "object"}, waits)))
    agent.subscribe(lambda event: asyncio.current_task().cancel() if event.type == "tool_call_start" else None)
    result = asyncio.run(agent.run("go"))
    assert (result.outcome, result.error) == (Outcome.CANCELLED, "the run's task was cancelled")
    [answer] = [message for message in result.messages if isinstance(message, ToolResultMessage)]
    assert answer.is_error and script.request_count == 1


def test_the_runs_own_task_cancelled_while_the_end_hook_hangs_gives_the_hook_up(never: Any) -> None:
    """The end hook is waited for through the cancellation, and the cancellation stops the run, so a hook
    that hangs is given up after the stop's grace, not at its ``hook_timeout``."""

    class CancelsItsRun:
        task: Any = None
        loop: Any = None

        @hookimpl
        def agentkit_session_end(self, session: Any, outcome: Outcome, error: str | None) -> None:
            self.loop.call_soon_threadsafe(self.task.cancel)
            never()

    hook = CancelsItsRun()

    def remember_the_task(event: Any) -> None:
        if event.type == "agent_start":
            hook.task, hook.loop = asyncio.current_task(), asyncio.get_running_loop()

    agent, _ = make_agent([Turn([text("done")])], hook, timeouts=Timeouts(hook=8.0))
    agent.subscribe(remember_the_task)
    result = asyncio.run(agent.run("go"))
    assert (result.outcome, result.text) == (Outcome.COMPLETED, "done")
    assert "agentkit_session_end did not return before the run was stopped; it was abandoned" in result.problems


def test_cancelling_the_task_awaiting_the_run_ends_it_as_cancelled_and_raises() -> None:
    def waits(arguments: Any, context: Any) -> str:
        context.cancel.wait(10)
        return "done"

    agent, script = make_agent([Turn([tool_call("wait")]), Turn([text("never sent")])],
                               ToolsPlugin(Tool("wait", "Wait.", {"type": "object"}, waits)))

    async def scenario() -> None:
        caller = asyncio.ensure_future(agent.run("go"))
        agent.subscribe(lambda event: caller.cancel() if event.type == "tool_call_start" else None)
        with pytest.raises(asyncio.CancelledError):
            await caller

    asyncio.run(scenario())
    result = agent.last_result
    assert result is not None
    assert (result.outcome, result.error) == (Outcome.CANCELLED, "the task awaiting the run was cancelled")
    assert [message.role for message in result.messages] == ["user", "assistant", "tool_result", "assistant"]
    assert script.request_count == 1
