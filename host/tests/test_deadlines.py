"""Deadlines, abort and cancellation: a run always ends, and ends well.

Deadlines here are small configured values; the only elapsed-time assertions
are generous upper bounds that a hang would blow through.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from loop_faults import StuckHooks, assert_well_formed, echo, recorded_agent, stuck_tool, tools

from agentkit.host import ConfigError, Limits, Timeouts, Trust
from agentkit.plugin_api import Tool, ToolResultMessage, hookimpl

GENEROUS = 10.0  # seconds; far above anything a healthy run here takes, far below a hang


def results(agent) -> list[ToolResultMessage]:
    return [message for message in agent.history if isinstance(message, ToolResultMessage)]


def envelope(result: ToolResultMessage) -> dict:
    return json.loads(result.text)


def stuck_batch(name: str = "stuck") -> Script:
    return Script([Turn([tool_call(name), tool_call("echo", {"value": "sibling"})]), Turn([text("done")])])


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_a_tool_past_tool_timeout_gets_a_timeout_result_and_the_run_goes_on(is_async):
    agent, recorder = recorded_agent(stuck_batch(), tools(stuck_tool("stuck", is_async=is_async), echo()),
                                     timeouts=Timeouts(tool=0.2))
    result = agent.run_sync("go")
    assert_well_formed(agent, recorder, "completed")
    stuck, sibling = results(agent)
    assert envelope(stuck)["error"] == "timeout" and "0.2 seconds" in envelope(stuck)["detail"]
    assert envelope(sibling) == {"ok": True, "data": "sibling"}
    assert any("'stuck'" in problem and "abandoned" in problem for problem in result.problems)


def test_a_tools_own_timeout_overrides_the_agents():
    agent, recorder = recorded_agent(stuck_batch(), tools(stuck_tool("stuck", timeout=0.2), echo()),
                                     timeouts=Timeouts(tool=None))
    agent.run_sync("go")
    assert_well_formed(agent, recorder, "completed")
    assert envelope(results(agent)[0])["error"] == "timeout"


def test_tool_from_function_takes_a_timeout_and_refuses_a_bad_one():
    def slow() -> str:
        """Sleeps."""
        time.sleep(30)
        return "late"

    assert Tool.from_function(slow, timeout=1.5).timeout == 1.5
    assert Tool.from_function(slow).timeout is None
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        Tool.from_function(slow, timeout=0)


def _grouped(group: type, field: str, value: object) -> dict[str, object]:
    """The keyword of ``AgentConfig`` that sets ``field`` of ``group`` to ``value``."""
    return {group.__name__.lower(): group(**{field: value})}


@pytest.mark.parametrize(("group", "field"), [(Timeouts, "tool"), (Timeouts, "hook"), (Timeouts, "run"),
                                              (Limits, "max_tool_result_chars")])
@pytest.mark.parametrize("value", [0, -1, "10", True])
def test_limits_that_cannot_work_are_refused_when_the_agent_is_built(group, field, value):
    with pytest.raises(ConfigError, match=rf"{group.__name__}\.{field} must be a positive number or None"):
        recorded_agent(Script([]), **_grouped(group, field, value))


@pytest.mark.parametrize("field", ["request", "connect", "read"])
@pytest.mark.parametrize("value", [0, -1, "10", True, float("nan")])
def test_request_deadlines_that_cannot_work_are_a_config_error_naming_the_field(field, value):
    with pytest.raises(ConfigError, match=rf"Timeouts\.{field} must be a positive number"):
        recorded_agent(Script([]), **_grouped(Timeouts, field, value))


@pytest.mark.parametrize("field", ["connect", "read"])
def test_connect_and_read_timeouts_cannot_be_turned_off(field):
    with pytest.raises(ConfigError, match=rf"Timeouts\.{field} must be a positive number, got None"):
        recorded_agent(Script([]), **_grouped(Timeouts, field, None))


def test_response_limits_of_the_wrong_type_are_a_config_error():
    with pytest.raises(ConfigError, match=r"Limits\.response must be a ResponseLimits or None"):
        recorded_agent(Script([]), limits=Limits(response={"text_bytes": 10}))


def test_a_plugin_hook_past_hook_timeout_blocks_the_call_and_is_reported():
    hooks = StuckHooks()
    try:
        agent, recorder = recorded_agent(Script([Turn([tool_call("echo")]), Turn([text("done")])]),
                                         tools(echo()), hooks, timeouts=Timeouts(hook=0.2))
        result = agent.run_sync("go")
    finally:
        hooks.release.set()
    assert_well_formed(agent, recorder, "completed")
    [answer] = results(agent)
    assert envelope(answer)["error"] == "blocked" and "did not answer" in envelope(answer)["detail"]
    assert len([p for p in result.problems if "hook_timeout" in p or "did not return" in p]) >= 3


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_an_embedder_policy_past_hook_timeout_blocks_the_call(is_async):
    release = threading.Event()
    if is_async:
        async def policy(call, arguments):
            await asyncio.sleep(3600)
    else:
        def policy(call, arguments):
            release.wait()

    try:
        agent, recorder = recorded_agent(Script([Turn([tool_call("echo")]), Turn([text("done")])]), tools(echo()),
                                         timeouts=Timeouts(hook=0.2), trust=Trust(before_tool_call=policy))
        agent.run_sync("go")
    finally:
        release.set()
    assert_well_formed(agent, recorder, "completed")
    assert envelope(results(agent)[0])["error"] == "blocked"


def test_a_stop_policy_past_hook_timeout_ends_the_run_as_an_error():
    release = threading.Event()
    try:
        agent, recorder = recorded_agent(Script([Turn([tool_call("echo")]), Turn([text("done")])]), tools(echo()),
                                         stop_policy=lambda context: release.wait(), timeouts=Timeouts(hook=0.2))
        result = agent.run_sync("go")
    finally:
        release.set()
    assert_well_formed(agent, recorder, "error")
    assert "hook_timeout" in result.error


@pytest.mark.parametrize("where", ["tool", "stream"])
def test_run_timeout_ends_the_run_with_the_outcome_timeout(where):
    turns = [Turn([tool_call("stuck")]), Turn([text("never")])] if where == "tool" else [Turn([text("hm")], hang=True)]
    agent, recorder = recorded_agent(Script(turns), tools(stuck_tool("stuck")), timeouts=Timeouts(run=0.3, tool=None))
    started = time.monotonic()
    result = agent.run_sync("go")
    assert time.monotonic() - started < GENEROUS
    assert_well_formed(agent, recorder, "timeout")
    assert "run_timeout=0.3" in result.error


@pytest.mark.parametrize("kind", ["sync", "async", "hook", "policy"])
def test_abort_ends_the_run_whatever_the_handler_or_hook_does(kind):
    """A handler or hook that ignores the abort is abandoned; the run ends and says so."""
    hooks = StuckHooks()
    release = threading.Event()
    extra: dict = {"timeouts": Timeouts(tool=None, hook=None)}
    aborter: list = []
    plugins = [tools(stuck_tool("stuck", is_async=kind == "async", on_start=lambda: aborter[0].abort()), echo())]
    turns = [Turn([tool_call("stuck" if kind in ("sync", "async") else "echo"), tool_call("echo", {"value": "sibling"})]),
             Turn([text("never")])]
    if kind == "hook":
        plugins.append(hooks)
    if kind == "policy":
        extra["trust"] = Trust(before_tool_call=lambda call, arguments: release.wait())
    agent, recorder = recorded_agent(Script(turns), *plugins, **extra)
    aborter.append(agent)
    timer = threading.Timer(0.3, agent.abort)  # the stuck hook or policy was called by then
    started = time.monotonic()
    try:
        if kind in ("hook", "policy"):
            timer.start()
        result = agent.run_sync("go")
    finally:
        hooks.release.set()
        release.set()
    assert time.monotonic() - started < GENEROUS
    assert_well_formed(agent, recorder, "aborted")
    assert all(answer.is_error for answer in results(agent)) or kind in ("sync", "async")
    if kind in ("sync", "async"):
        stuck, sibling = results(agent)
        assert envelope(stuck)["error"] == "aborted"
        assert envelope(sibling) == {"ok": True, "data": "sibling"}, "a finished sibling keeps its real result"
    if kind == "sync":
        assert any("abandoned" in problem for problem in result.problems)


def test_a_cooperative_handler_returns_its_own_result_after_abort():
    aborter: list = []
    agent, recorder = recorded_agent(Script([Turn([tool_call("stuck")]), Turn([text("never")])]),
                                     tools(stuck_tool("stuck", cooperative=True, on_start=lambda: aborter[0].abort())),
                                     timeouts=Timeouts(tool=None))
    aborter.append(agent)
    result = agent.run_sync("go")
    assert_well_formed(agent, recorder, "aborted")
    assert envelope(results(agent)[0]) == {"ok": True, "data": "stopped"}
    assert result.problems == []


def test_a_tool_result_over_its_cap_becomes_an_artifact_with_a_preview():
    big = Tool("big", "a lot of text", {"type": "object"}, lambda arguments, context: "x" * 5000)
    agent, recorder = recorded_agent(Script([Turn([tool_call("big")]), Turn([text("done")])]), tools(big),
                                     limits=Limits(max_tool_result_chars=1000))
    agent.run_sync("go")
    assert_well_formed(agent, recorder, "completed")
    [answer] = results(agent)
    body = envelope(answer)
    assert body["ok"] is True and body["chars"] == len(json.dumps({"ok": True, "data": "x" * 5000}))
    assert len(body["head"]) == 500 and len(body["tail"]) == 250
    assert f'read_artifact(id="{body["artifact"]}", offset=500)' in body["note"]


def test_the_default_result_cap_leaves_ordinary_results_alone():
    agent, recorder = recorded_agent(Script([Turn([tool_call("echo", {"value": "y" * 50_000})]), Turn([text("done")])]),
                                     tools(echo()))
    agent.run_sync("go")
    assert_well_formed(agent, recorder, "completed")
    assert envelope(results(agent)[0]) == {"ok": True, "data": "y" * 50_000}


# -- cancellation of the task awaiting the run --------------------------------------------


def cancel_on(agent, events: list[str], target: list) -> None:
    """Cancel the task awaiting the run each time one of ``events`` is emitted (in order)."""
    pending = list(events)

    def listener(event):
        if pending and event.type == pending[0]:
            pending.pop(0)
            target[0].cancel()

    agent.subscribe(listener)


@pytest.mark.parametrize("schedule", [
    ["tool_call_start"],
    ["tool_call_start", "tool_call_start"],
    ["tool_call_start", "tool_call_end"],
    ["block_delta", "tool_call_end", "agent_end"],
    ["tool_call_start", "tool_call_start", "tool_call_end", "tool_call_end", "agent_end"],
])
def test_cancelling_the_runs_task_any_number_of_times_leaves_a_well_formed_history(schedule):
    agent, recorder = recorded_agent(
        Script([Turn([tool_call("stuck"), tool_call("echo"), tool_call("stuck")]), Turn([text("never")])]),
        tools(stuck_tool("stuck", cooperative=True), echo()), timeouts=Timeouts(tool=None),
    )
    task: list = [None]
    cancel_on(agent, schedule, task)

    async def scenario():
        task[0] = asyncio.ensure_future(agent.run("go"))
        with pytest.raises(asyncio.CancelledError):
            await task[0]

    asyncio.run(scenario())
    assert_well_formed(agent, recorder, "cancelled")
    assert agent.run_sync is not None and agent._busy.acquire(blocking=False), "the run slot was released"
    agent._busy.release()


def test_a_deadline_on_the_caller_side_reports_the_run_as_cancelled():
    agent, recorder = recorded_agent(Script([Turn([tool_call("stuck")]), Turn([text("never")])]),
                                     tools(stuck_tool("stuck")), timeouts=Timeouts(tool=None))

    async def scenario():
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(agent.run("go"), 0.2)

    asyncio.run(scenario())
    assert_well_formed(agent, recorder, "cancelled")
    assert envelope(results(agent)[0])["error"] in ("cancelled", "aborted")


def test_a_consumer_that_stops_reading_mid_batch_leaves_a_well_formed_aborted_run():
    agent, recorder = recorded_agent(Script([Turn([tool_call("stuck"), tool_call("echo")]), Turn([text("never")])]),
                                     tools(stuck_tool("stuck"), echo()), timeouts=Timeouts(tool=None))

    async def read_until_a_call_starts():
        stream = agent.stream("go")
        async for event in stream:
            if event.type == "tool_call_start":
                break
        await stream.aclose()

    started = time.monotonic()
    asyncio.run(read_until_a_call_starts())
    assert time.monotonic() - started < GENEROUS
    assert_well_formed(agent, recorder, "aborted")


def test_breaking_out_of_the_stream_then_running_again_works_at_once():
    # What a consumer usually writes: a bare break, no aclose(). The first run
    # ends aborted (its generator is closed by the loop), and the next run
    # waits for that end instead of failing with AgentBusy.
    agent, recorder = recorded_agent(Script([Turn([tool_call("stuck"), tool_call("echo")]), Turn([text("again")])]),
                                     tools(stuck_tool("stuck"), echo()), timeouts=Timeouts(tool=None))

    async def break_then_run_again():
        async for event in agent.stream("go"):
            if event.type == "tool_call_start":
                break
        return await agent.run("once more")

    result = asyncio.run(asyncio.wait_for(break_then_run_again(), GENEROUS))
    assert [end.outcome for end in recorder.ends] == ["aborted", "completed"]
    assert recorder.session_ends == ["aborted", "completed"]
    assert result.outcome == "completed" and result.text == "again"
    answered = [message.tool_use_id for message in agent.history if isinstance(message, ToolResultMessage)]
    assert len(answered) == len(set(answered)) == 2


def run_aborted_while_stuck(agent, hook, what: str):
    """Run ``agent`` in a thread, abort it once ``hook`` is entered, and release the hook afterwards."""
    threading.Thread(target=lambda: hook.entered.wait(GENEROUS) and agent.abort(), daemon=True).start()
    outcome: list = []
    runner = threading.Thread(target=lambda: outcome.append(agent.run_sync("go")), daemon=True)
    try:
        runner.start()
        runner.join(GENEROUS)
        assert outcome, f"the run did not end after abort() while {what} was stuck"
    finally:
        hook.release.set()
        runner.join(GENEROUS)
    return outcome[0]


class StuckAfterToolCall:
    """Only ``agentkit_after_tool_call``, and it blocks until released."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    @hookimpl
    def agentkit_after_tool_call(self, call, result, session) -> None:
        self.entered.set()
        self.release.wait()


def test_abort_while_an_after_tool_call_hook_is_stuck_ends_the_run():
    # No hook deadline: only the abort can end this run.
    hook = StuckAfterToolCall()
    agent, recorder = recorded_agent(Script([Turn([tool_call("echo"), tool_call("echo")]), Turn([text("never")])]),
                                     tools(echo()), hook, timeouts=Timeouts(hook=None))
    result = run_aborted_while_stuck(agent, hook, "an after_tool_call hook")
    assert_well_formed(agent, recorder, "aborted")
    assert any("after_tool_call" in problem for problem in result.problems)


class StuckSessionEnd:
    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    @hookimpl
    def agentkit_session_end(self, session, outcome, error) -> None:
        self.entered.set()
        self.release.wait()


def test_abort_while_the_session_end_hook_is_stuck_ends_the_run_with_its_outcome():
    hook = StuckSessionEnd()
    agent, recorder = recorded_agent(Script([Turn([text("done")])]), hook, timeouts=Timeouts(hook=None))
    result = run_aborted_while_stuck(agent, hook, "the session_end hook")
    assert result.outcome == "completed", "the run had completed before the abort"
    assert [end.outcome for end in recorder.ends] == ["completed"]
    assert any("agentkit_session_end" in problem for problem in result.problems)


def test_a_cancellation_while_a_closed_stream_waits_for_the_runs_end_still_reaches_the_caller():
    """Closing a stream waits for the run's bookkeeping; a cancellation meanwhile is not swallowed."""
    ending, release = threading.Event(), threading.Event()

    class SlowEnd:
        @hookimpl
        def agentkit_session_end(self, session, outcome, error):
            ending.set()
            release.wait(GENEROUS)

    agent, recorder = recorded_agent(Script([Turn([tool_call("stuck")]), Turn([text("never")])]),
                                     tools(stuck_tool("stuck")), SlowEnd(), timeouts=Timeouts(tool=None))

    async def close_then_cancel():
        stream = agent.stream("go")
        async for event in stream:
            if event.type == "tool_call_start":
                break
        closing = asyncio.ensure_future(stream.aclose())
        while not ending.is_set():  # the run is ending: the close is waiting for it
            await asyncio.sleep(0.01)
        closing.cancel()
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await closing

    asyncio.run(close_then_cancel())
    assert_well_formed(agent, recorder, "aborted")

