"""How the loop records a run that was stopped between its steps, and its stop policy's failures."""

from __future__ import annotations

import asyncio
import threading

import pytest
from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent

from agentkit.host import Timeouts, stop_when
from agentkit.plugin_api import AssistantMessage, StopReason, Tool


def tool(handler) -> Tool:
    return Tool("act", "Act.", {"type": "object"}, handler)


@pytest.fixture
def never():
    """Set when the test is over; waits on it are bounded, so a defect fails rather than hangs."""
    event = threading.Event()
    yield lambda: event.wait(20)
    event.set()


def test_an_abort_between_turns_is_recorded_as_an_aborted_turn_without_an_error():
    holder = []

    def aborts(arguments, context):
        holder[0].abort()
        return "done"

    agent, script = make_agent([Turn([tool_call("act", {})]), Turn([text("never sent")])], ToolsPlugin(tool(aborts)))
    holder.append(agent)
    result = agent.run_sync("go")
    assert (result.outcome, result.error) == ("aborted", None)
    last = agent.history[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason is StopReason.ABORTED
    assert last.error_message == "aborted by the caller"
    assert len(script.requests) == 1


def test_a_deadline_between_turns_is_recorded_with_its_reason_as_the_error(never):
    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("never sent")])],
                          ToolsPlugin(tool(lambda arguments, context: never())), timeouts=Timeouts(run=0.2))
    result = agent.run_sync("go")
    assert (result.outcome, result.error) == ("timeout", "the run took longer than run_timeout=0.2s")
    last = agent.history[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason is StopReason.ABORTED
    assert last.error_message == "the run took longer than run_timeout=0.2s"


def test_an_unsubscribed_listener_hears_no_more():
    heard = []
    agent, _ = make_agent([Turn([text("one")]), Turn([text("two")])])
    unsubscribe = agent.subscribe(lambda event: heard.append(event.type))
    agent.run_sync("first")
    count = len(heard)
    unsubscribe()
    agent.run_sync("second")
    assert count > 0 and len(heard) == count


def test_a_stop_policy_that_never_answers_is_reported_and_ends_the_run(never):
    def hangs(context) -> bool:
        never()
        return False

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("k")])], ToolsPlugin(tool(lambda a, c: "ok")),
                          stop_policy=hangs, timeouts=Timeouts(hook=0.05))
    result = agent.run_sync("go")
    assert "the stop policy did not answer within hook_timeout=0.05s" in result.problems
    assert result.outcome != "completed"


def test_a_stop_policy_runs_in_a_thread_named_after_it():
    names = []

    def records(context) -> bool:
        names.append(threading.current_thread().name)
        return False

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("k")])], ToolsPlugin(tool(lambda a, c: "ok")),
                          stop_policy=stop_when(records, "never"))
    assert agent.run_sync("go").outcome == "completed"
    assert names == ["agentkit-stop_policy"]


def test_an_abort_while_the_stop_policy_hangs_ends_the_run_as_aborted(never):
    holder = []

    def aborts_then_hangs(context) -> bool:
        holder[0].abort()
        never()
        return False

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("never sent")])],
                          ToolsPlugin(tool(lambda a, c: "ok")), stop_policy=aborts_then_hangs,
                          timeouts=Timeouts(hook=15))
    holder.append(agent)
    result = agent.run_sync("go")
    assert result.outcome == "aborted" and result.problems == []


def test_a_stop_policy_that_raises_is_reported_by_its_exception():
    def raises(context) -> bool:
        raise ValueError("policy bug")

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("k")])], ToolsPlugin(tool(lambda a, c: "ok")),
                          stop_policy=raises)
    result = agent.run_sync("go")
    assert "the stop policy raised ValueError: policy bug" in result.problems
    assert result.outcome != "completed"


def test_a_run_started_right_after_a_bare_break_waits_for_the_stopped_run(never):
    """A consumer's ``break`` ends its run as aborted; the next run takes the agent once that one ended."""
    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("again")])],
                          ToolsPlugin(tool(lambda arguments, context: never())))
    ends = []
    agent.subscribe(lambda event: ends.append(event.outcome) if event.type == "agent_end" else None)

    async def break_then_run_again():
        async for event in agent.stream("go"):
            if event.type == "tool_call_start":
                break
        return await agent.run("once more")

    result = asyncio.run(break_then_run_again())
    assert ends == ["aborted", "completed"]
    assert result.outcome == "completed" and result.text == "again"
