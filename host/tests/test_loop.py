"""The loop's invariants, each observed through the public Agent API."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent

from agentkit.host import AgentBusy, Limits, Trust, max_turns, stop_when
from agentkit.plugin_api import (
    AgentEnd,
    AssistantMessage,
    ExecutionMode,
    Outcome,
    StopReason,
    Tool,
    ToolResultMessage,
    Usage,
)


def echo_tool(name: str = "echo", **kwargs) -> Tool:
    def echo(value: str = "") -> str:
        """Echo the value back."""
        return value

    return Tool.from_function(echo, name=name, **kwargs)


def results_of(messages) -> list[ToolResultMessage]:
    return [message for message in messages if isinstance(message, ToolResultMessage)]


def envelope(result: ToolResultMessage) -> dict:
    return json.loads(result.text)


def test_tool_calls_run_even_when_the_stop_reason_says_stop():
    """Gemini and some gateways say STOP beside tool calls; the calls must still run."""
    agent, script = make_agent(
        [Turn([tool_call("echo", {"value": "hi"})], stop_reason="stop"), Turn([text("done")])],
        ToolsPlugin(echo_tool()),
    )
    result = agent.run_sync("go")
    [answer] = results_of(result.messages)
    assert envelope(answer) == {"ok": True, "data": "hi"}
    assert len(script.requests) == 2
    assert result.outcome == "completed"
    assert result.text == "done"


@pytest.mark.parametrize("reason", ["stop", "stop_sequence", "refusal", "tool_use"])
def test_every_non_error_stop_reason_with_tool_calls_continues(reason):
    agent, script = make_agent(
        [Turn([tool_call("echo", {"value": "x"})], stop_reason=reason), Turn([text("ok")])],
        ToolsPlugin(echo_tool()),
    )
    result = agent.run_sync("go")
    assert len(script.requests) == 2
    assert results_of(result.messages)[0].is_error is False


def test_an_error_response_ends_the_run_even_with_tool_calls():
    ran = []
    tool = Tool("probe", "d", {"type": "object"}, lambda args, ctx: ran.append(1))
    agent, script = make_agent([Turn([tool_call("probe")], error="overloaded")], ToolsPlugin(tool))
    result = agent.run_sync("go")
    assert result.outcome == "error"
    assert result.error == "overloaded"
    assert ran == [] and len(script.requests) == 1


def test_length_cut_tool_calls_are_not_executed_and_the_loop_continues():
    ran = []
    tool = Tool("write", "d", {"type": "object"}, lambda args, ctx: ran.append(args))
    agent, script = make_agent(
        [
            Turn([tool_call("write", {"a": 1}), tool_call("write", {"b": 2})], stop_reason="length"),
            Turn([text("retrying later")]),
        ],
        ToolsPlugin(tool),
    )
    result = agent.run_sync("go")
    assert ran == []
    answers = results_of(result.messages)
    assert [answer.is_error for answer in answers] == [True, True]
    assert "output token limit" in answers[0].text and "may be truncated" in answers[0].text
    assert len(script.requests) == 2, "the loop goes on after answering the cut calls"


def test_results_are_in_call_order_when_handlers_finish_in_reverse():
    """Each handler waits for the one after it, so they finish third, second, first: no clock decides."""
    finished: list[str] = []
    done = {tag: threading.Event() for tag in ("first", "second", "third")}
    after = {"first": "second", "second": "third"}

    def ordered(tag: str) -> str:
        """Finish once the next call has finished, then answer."""
        if tag in after and not done[after[tag]].wait(timeout=30):
            raise TimeoutError(f"the {after[tag]} call never finished: the batch is not concurrent")
        finished.append(tag)
        done[tag].set()
        return tag

    calls = [tool_call("ordered", {"tag": tag}) for tag in ("first", "second", "third")]
    agent, _ = make_agent([Turn(calls), Turn([text("ok")])], ToolsPlugin(Tool.from_function(ordered)))
    result = agent.run_sync("go")
    assert finished == ["third", "second", "first"]
    answers = results_of(result.messages)
    assert [envelope(answer)["data"] for answer in answers] == ["first", "second", "third"]
    assert [answer.tool_use_id for answer in answers] == ["call_1_1", "call_1_2", "call_1_3"]


def test_a_batch_runs_concurrently():
    """Three handlers meet at a barrier: this passes only if they truly overlap."""
    barrier = threading.Barrier(3, timeout=10)

    def meet() -> str:
        """Wait for the two others."""
        barrier.wait()
        return "met"

    agent, _ = make_agent([Turn([tool_call("meet")] * 3), Turn([text("ok")])], ToolsPlugin(Tool.from_function(meet)))
    result = agent.run_sync("go")
    assert [envelope(answer) for answer in results_of(result.messages)] == [{"ok": True, "data": "met"}] * 3


def test_async_handlers_overlap_too():
    """Three coroutines meet at a barrier on the run's loop: this passes only if they truly overlap."""
    barrier = asyncio.Barrier(3)

    async def gather_up() -> int:
        """Wait until all three arrived."""
        async with asyncio.timeout(30):  # only a batch run one at a time gets here
            await barrier.wait()
        return 3

    agent, _ = make_agent([Turn([tool_call("gather_up")] * 3), Turn([text("ok")])], ToolsPlugin(Tool.from_function(gather_up)))
    result = agent.run_sync("go")
    assert all(not answer.is_error for answer in results_of(result.messages))


def test_one_sequential_tool_makes_the_whole_batch_sequential():
    active, peak, lock = [0], [0], threading.Lock()

    def work() -> str:
        """Count how many run at once."""
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.05)
        with lock:
            active[0] -= 1
        return "done"

    parallel = Tool.from_function(work, name="parallel")
    sequential = Tool.from_function(work, name="sequential", execution_mode=ExecutionMode.SEQUENTIAL)
    calls = [tool_call("parallel"), tool_call("sequential"), tool_call("parallel")]
    agent, _ = make_agent([Turn(calls), Turn([text("ok")])], ToolsPlugin(parallel, sequential))
    agent.run_sync("go")
    assert peak[0] == 1


def test_every_failure_becomes_an_error_result_and_the_loop_goes_on():
    def explode() -> None:
        """Always fails."""
        raise RuntimeError("kaboom")

    def needs_int(count: int) -> int:
        """Takes an integer."""
        return count

    calls = [
        tool_call("explode"),
        tool_call("no_such_tool"),
        tool_call("needs_int", {"count": "three"}),
        tool_call("needs_int", "{not json"),
        tool_call("needs_int", {"count": 3}),
    ]
    agent, script = make_agent(
        [Turn(calls), Turn([text("ok")])],
        ToolsPlugin(Tool.from_function(explode), Tool.from_function(needs_int)),
    )
    result = agent.run_sync("go")
    answers = results_of(result.messages)
    assert [answer.is_error for answer in answers] == [True, True, True, True, False]
    assert [envelope(answer).get("error") for answer in answers[:4]] == [
        "tool_failed",
        "unknown_tool",
        "invalid_arguments",
        "invalid_arguments",
    ]
    assert "kaboom" in answers[0].text
    assert len(script.requests) == 2 and result.outcome == "completed"


def test_abort_during_a_stream_records_the_partial_message_verbatim():
    agent, _ = make_agent([Turn([text("I was saying something long")], hang=True)])

    async def scenario():
        events = []
        async for event in agent.stream("go"):
            events.append(event)
            if event.type == "block_delta":
                threading.Thread(target=agent.abort).start()
        return events

    events = asyncio.run(scenario())
    assert isinstance(events[-1], AgentEnd) and events[-1].outcome is Outcome.ABORTED
    assert agent.last_result is not None and agent.last_result.outcome is Outcome.ABORTED
    final = agent.history[-1]
    assert isinstance(final, AssistantMessage)
    assert final.stop_reason is StopReason.ABORTED
    assert final.text.startswith("I was saying")


@pytest.mark.parametrize("attempt", range(40))
def test_abort_during_a_batch_is_all_or_nothing(attempt):
    """The abort decision is taken once: either every handler runs, or none does."""
    ran = []
    lock = threading.Lock()

    def act(n: int) -> int:
        """Record that this call ran."""
        with lock:
            ran.append(n)
        return n

    def slow_policy(call, arguments):
        time.sleep(0.001 * (attempt % 4))
        return None

    agent, _ = make_agent(
        [Turn([tool_call("act", {"n": n}) for n in range(4)]), Turn([text("ok")])],
        ToolsPlugin(Tool.from_function(act)),
        trust=Trust(before_tool_call=slow_policy),
    )
    timer = threading.Timer(0.0005 * attempt, agent.abort)
    timer.start()
    result = agent.run_sync("go")
    timer.join()
    assert len(ran) in (0, 4), f"a split batch: {ran}"
    answers = results_of(result.messages)
    if answers:
        assert len(answers) == 4
        assert all(answer.is_error for answer in answers) == (len(ran) == 0)


def test_calls_an_abort_left_unprepared_are_answered_aborted_not_blocked():
    """Nobody refused them: the run stopped while the batch was being prepared."""
    holder = []

    def abort_on_the_second_call(call, arguments):
        if call.id.endswith("_2"):
            holder[0].abort()  # as if Ctrl-C arrived while the batch was being authorized
        return None

    agent, _ = make_agent(
        [Turn([tool_call("echo", {"value": str(n)}) for n in range(3)]), Turn([text("never sent")])],
        ToolsPlugin(echo_tool()),
        trust=Trust(before_tool_call=abort_on_the_second_call),
    )
    holder.append(agent)
    result = agent.run_sync("go")
    assert result.outcome == "aborted"
    assert [envelope(answer)["error"] for answer in results_of(result.messages)] == ["aborted"] * 3


def test_a_raising_listener_neither_hangs_nor_leaks_the_run_slot():
    def bad_listener(event):
        raise ValueError("listener bug")

    agent, _ = make_agent([Turn([tool_call("echo", {"value": "a"})]), Turn([text("ok")]), Turn([text("again")])],
                          ToolsPlugin(echo_tool()))
    agent.subscribe(bad_listener)
    result = agent.run_sync("go")
    assert result.outcome == "completed"
    assert any("listener bug" in problem for problem in result.problems)
    second = agent.run_sync("more")  # the run slot was released
    assert second.text == "again"


def test_running_twice_at_once_is_refused():
    """A second run asked for while the first one streams its events is refused; the first goes on."""
    agent, _ = make_agent([Turn([text("slow")])])

    async def scenario():
        events = []
        async for event in agent.stream("one"):
            if not events:  # the first run has begun and not ended
                with pytest.raises(AgentBusy):
                    await agent.run("two")
            events.append(event)
        return events

    events = asyncio.run(scenario())
    assert isinstance(events[-1], AgentEnd) and events[-1].outcome == "completed"
    assert agent.history[-1].text == "slow"


def test_max_turns_is_checked_after_the_turns_results_are_in_history():
    agent, script = make_agent([Turn([tool_call("echo", {"value": str(i)})]) for i in range(10)],
                               ToolsPlugin(echo_tool()), limits=Limits(max_turns=2))
    result = agent.run_sync("go")
    assert result.outcome == "max_turns"
    assert len(script.requests) == 2
    assert isinstance(result.messages[-1], ToolResultMessage), "turn 2's results are in history"


def test_caller_stop_policies_compose_with_max_turns():
    agent, script = make_agent(
        [Turn([tool_call("echo", {"value": "stop-now" if i == 1 else "go"})]) for i in range(10)],
        ToolsPlugin(echo_tool()),
        limits=Limits(max_turns=5),
        stop_policy=stop_when(lambda ctx: any("stop-now" in r.text for r in ctx.tool_results), "saw_stop"),
    )
    result = agent.run_sync("go")
    assert (result.outcome, result.stopped_by) == (Outcome.STOP_POLICY, "saw_stop") and len(script.requests) == 2
    policy = max_turns(1) | (lambda ctx: False)
    agent2, _ = make_agent([Turn([tool_call("echo")])] * 3, ToolsPlugin(echo_tool()), limits=Limits(max_turns=None),
                           stop_policy=policy)
    second = agent2.run_sync("go")
    assert (second.outcome, second.stopped_by) == (Outcome.MAX_TURNS, "max_turns")


def test_usage_adds_up_over_turns():
    agent, _ = make_agent(
        [Turn([tool_call("echo")], usage=Usage(input=10, output=5)), Turn([text("ok")], usage=Usage(input=20, output=7))],
        ToolsPlugin(echo_tool()),
    )
    result = agent.run_sync("go")
    assert (result.usage.input, result.usage.output, result.turns) == (30, 12, 2)


def test_a_steady_state_request_builds_no_tool_schema_again():
    tools = [echo_tool("one"), echo_tool("two"), echo_tool("three")]
    agent, script = make_agent([Turn([tool_call("one")]) for _ in range(6)] + [Turn([text("ok")])], ToolsPlugin(*tools))
    agent.run_sync("go")
    assert len(script.requests) == 7
    assert agent.stats.tool_specs_built == 3
    assert all(request.tool_names == ["one", "two", "three"] for request in script.requests)


def test_each_request_carries_the_whole_transcript_with_one_result_per_call():
    agent, script = make_agent(
        [Turn([text("let me look"), tool_call("echo", {"value": "a"}), tool_call("echo", {"value": "b"})]),
         Turn([text("ok")])],
        ToolsPlugin(echo_tool()),
        system_prompt="be brief",
    )
    agent.run_sync("hello")
    second = script.requests[1]
    roles = [message.role for message in second.messages]
    assert roles == ["user", "assistant", "tool_result", "tool_result"]
    assert second.system == "be brief"
    assert second.messages[1].tool_calls[0].arguments == '{"value":"a"}'


def test_the_deprecated_run_stop_reason_names_its_replacement_and_keeps_its_old_value():
    agent, _ = make_agent([Turn([tool_call("echo")])] * 3, ToolsPlugin(echo_tool()), limits=Limits(max_turns=None),
                          stop_policy=stop_when(lambda ctx: True, "at_once"))
    result = agent.run_sync("go")
    assert (result.outcome, result.stopped_by) == (Outcome.STOP_POLICY, "at_once")
    with pytest.warns(DeprecationWarning, match="RunResult.outcome"):
        assert result.stop_reason == "at_once"


def test_a_failed_response_still_starts_and_ends_its_turn_with_the_turn_and_message():
    events = []
    agent, _ = make_agent([Turn([text("partial")], error="the stream broke")])
    agent.subscribe(lambda event: events.append(event) if event.type in ("turn_start", "turn_end") else None)
    result = agent.run_sync("go")
    assert result.outcome == "error"
    start, end = events
    assert (start.turn, end.turn, end.tool_results) == (1, 1, [])
    assert end.message is result.messages[-1] and end.message.stop_reason == "error"


def test_steering_queued_when_the_run_is_aborted_stays_queued_for_the_next_run():
    holder = []

    def steer_then_abort(arguments, context):
        holder[0].steer("later, please")
        holder[0].abort()
        return "ok"

    tool = Tool("act", "Act.", {"type": "object"}, steer_then_abort)
    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("never sent")])], ToolsPlugin(tool))
    holder.append(agent)
    result = agent.run_sync("go")
    assert result.outcome == "aborted" and agent.has_queued_messages
    assert [message.role for message in agent.history].count("user") == 1  # only the prompt
