"""Subagents: an agent as a tool, with a fresh history, a budget slice of its parent's, a linked session, tagged events."""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
import threading
from typing import Any

import httpx
import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from host_helpers import make_host
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentkit.host import (
    Agent,
    AgentConfig,
    Budget,
    Connection,
    Limits,
    Subagent,
    Timeouts,
    Trust,
    allow_all,
)
from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.plugin_api import (
    AgentEnd,
    AgentStart,
    Event,
    Outcome,
    SubagentEvent,
    Tool,
    ToolCallStart,
    TurnStart,
    Usage,
    event_from_dict,
    event_to_dict,
    hookimpl,
)

HOST = make_host()


def noop() -> str:
    """Do nothing."""
    return "nothing done"


def wait_for_abort(context: Any) -> str:
    """Wait until the run is aborted (the context's cancel token), then return."""
    context.cancel.wait()
    return "stopped"


NOOP = Tool.from_function(noop)
WAIT = Tool("wait", "wait until aborted", {"type": "object"}, lambda arguments, context: wait_for_abort(context))


def child_config(transport: httpx.AsyncBaseTransport, **changes: Any) -> AgentConfig:
    return AgentConfig(model="faux/scripted", tools=["noop", "wait"], extra_tools=[NOOP, WAIT],
                       trust=Trust(before_tool_call=allow_all), connection=Connection(transport=transport), **changes)


def parent_agent(script: Script, *tools: Tool, session: Session | None = None, **changes: Any) -> Agent:
    config = AgentConfig(model="faux/scripted", tools=[tool.name for tool in tools], extra_tools=list(tools),
                         trust=Trust(before_tool_call=allow_all), connection=Connection(transport=script), **changes)
    return Agent(config, host=HOST, session=session)


def delegate(name: str, task: str, call_id: str | None = None) -> Any:
    return tool_call(name, {"task": task}, id=call_id)


def subagent_events(events: list[Event]) -> list[SubagentEvent]:
    return [event for event in events if isinstance(event, SubagentEvent)]


def test_a_subagent_starts_with_a_fresh_history_and_answers_with_its_final_text() -> None:
    child = Script([Turn([text("X is 42.")])], keep_requests=None)
    parent = parent_agent(Script([Turn([delegate("research", "Find X.")]), Turn([text("X is 42, says research.")])],
                                 keep_requests=None),
                          Subagent("research", "Finds things out.", child_config(child)).as_tool())
    parent.run_sync("What is X? Keep this secret: the parent's own words.")

    assert [message.role for message in child.requests[0].messages] == ["user"]
    assert child.requests[0].messages[0].content[0].text == "Find X."
    answer = parent.history[2]
    assert answer.role == "tool_result" and not answer.is_error
    assert json.loads(answer.content[0].text) == {"ok": True, "data": "X is 42."}


def test_agent_as_tool_builds_a_new_agent_per_call_and_leaves_its_own_history_alone() -> None:
    child = Script([Turn([text("one")]), Turn([text("two")])])
    definition = Agent(child_config(child), host=HOST)
    tool = definition.as_tool("helper", "Helps.")
    parent = parent_agent(Script([Turn([delegate("helper", "a")]), Turn([delegate("helper", "b")]), Turn([text("ok")])]),
                          tool)
    result = parent.run_sync("Go.")
    assert result.outcome is Outcome.COMPLETED
    assert [json.loads(message.content[0].text)["data"] for message in result.messages
            if message.role == "tool_result"] == ["one", "two"]
    assert definition.history == []


class Rendezvous(httpx.AsyncBaseTransport):
    """Answers each child only once ``expected`` children have sent their first request: proof they run together."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.arrived: list[str] = []
        self.all_here = asyncio.Event()
        self.script = Script([Turn([text("together")])] * expected)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(await request.aread())
        self.arrived.append(body["messages"][0]["content"][0]["text"])
        if len(self.arrived) == self.expected:
            self.all_here.set()
        # Generous: a sequential batch would wait here until the bound and answer "alone".
        try:
            await asyncio.wait_for(self.all_here.wait(), 60)
        except TimeoutError:
            return await Script([Turn([text("alone")])]).handle_async_request(request)
        return await self.script.handle_async_request(request)


def test_delegations_of_one_batch_run_concurrently() -> None:
    rendezvous = Rendezvous(3)
    parent = parent_agent(Script([Turn([delegate("worker", f"part {n}") for n in range(3)]), Turn([text("done")])]),
                          Subagent("worker", "Does a part.", child_config(rendezvous)).as_tool())
    result = parent.run_sync("Do the three parts.")
    assert sorted(rendezvous.arrived) == ["part 0", "part 1", "part 2"]
    assert [json.loads(message.content[0].text)["data"] for message in result.messages
            if message.role == "tool_result"] == ["together"] * 3


def endless_child(tokens_per_turn: int = 0) -> Script:
    """A child that calls a tool every turn and never answers: only its budget ends it."""
    return Script([Turn([tool_call("noop")], usage=Usage(input=tokens_per_turn))] * 200)


def test_the_child_gets_its_slice_of_turns_never_more_than_the_parent_has_left() -> None:
    events: list[Event] = []
    slice_of_two = Subagent("small", "Small.", child_config(endless_child()), Budget(turns=2)).as_tool()
    parent = parent_agent(Script([Turn([delegate("small", "go")]), Turn([text("ok")])]), slice_of_two)
    parent.subscribe(events.append)
    parent.run_sync("Go.")
    assert sum(isinstance(event.event, TurnStart) for event in subagent_events(events)) == 2
    result = json.loads(parent.history[2].content[0].text)
    assert result["error"] == "subagent_max_turns"

    events.clear()
    greedy = Subagent("greedy", "Greedy.", child_config(endless_child()), Budget(turns=100)).as_tool()
    parent = parent_agent(Script([Turn([delegate("greedy", "go")]), Turn([text("ok")])]), greedy,
                          limits=Limits(budget=Budget(turns=4)))
    parent.subscribe(events.append)
    result = parent.run_sync("Go.")
    # The parent's first turn spent one of its four; the child had the other three, and so the parent none.
    assert sum(isinstance(event.event, TurnStart) for event in subagent_events(events)) == 3
    assert (result.outcome, result.stopped_by, result.turns) == (Outcome.STOP_POLICY, "budget", 1)


def test_concurrent_slices_never_take_more_than_the_parent_had_left_and_their_spending_is_the_parents() -> None:
    events: list[Event] = []
    worker = Subagent("worker", "Works.", child_config(endless_child(tokens_per_turn=300)), Budget(tokens=800)).as_tool()
    parent = parent_agent(Script([Turn([delegate("worker", "a"), delegate("worker", "b")]), Turn([text("never")])]),
                          worker, limits=Limits(budget=Budget(tokens=1000)))
    parent.subscribe(events.append)
    result = parent.run_sync("Go.")

    child_turns = sum(isinstance(event.event, TurnStart) for event in subagent_events(events))
    # One child was granted 800 tokens (three turns of 300 reach it), the other what was left, 200 (one turn).
    assert child_turns == 4
    assert result.usage.total == 4 * 300
    assert (result.outcome, result.stopped_by) == (Outcome.STOP_POLICY, "budget")


def test_cost_slices_are_taken_the_same_way() -> None:
    events: list[Event] = []
    costly = Script([Turn([tool_call("noop")], usage=Usage(output=1, cost=0.25))] * 50)
    worker = Subagent("worker", "Works.", child_config(costly), Budget(cost=0.6)).as_tool()
    parent = parent_agent(Script([Turn([delegate("worker", "a"), delegate("worker", "b")]), Turn([text("never")])]),
                          worker, limits=Limits(budget=Budget(cost=1.0)))
    parent.subscribe(events.append)
    result = parent.run_sync("Go.")
    # Granted 0.60 and 0.40 of the parent's 1.00: three turns of 0.25 reach the first, two the second.
    assert sum(isinstance(event.event, TurnStart) for event in subagent_events(events)) == 5
    assert result.usage.cost == pytest.approx(1.25)
    assert result.stopped_by == "budget"


def test_no_delegation_once_the_parent_budget_is_spent() -> None:
    child = Script([Turn([text("never asked")])])
    parent = parent_agent(Script([Turn([delegate("worker", "a")], usage=Usage(output=50)), Turn([text("ok")])]),
                          Subagent("worker", "Works.", child_config(child)).as_tool(), limits=Limits(budget=Budget(tokens=50)))
    result = parent.run_sync("Go.")
    assert child.request_count == 0
    assert json.loads(parent.history[2].content[0].text)["error"] == "budget_exhausted"
    assert result.stopped_by == "budget"


def test_the_child_writes_its_own_session_in_the_parents_store_and_the_parent_log_links_it(tmp_path: Any) -> None:
    store = JsonlSessionStore(tmp_path)
    session = Session.new(store, cwd=tmp_path)
    child = Script([Turn([text("found it")])])
    parent = parent_agent(Script([Turn([delegate("research", "Find it.", call_id="call-1")]), Turn([text("ok")])]),
                          Subagent("research", "Finds.", child_config(child)).as_tool(), session=session)
    parent.run_sync("Go.")
    session.close()

    links = [entry.data["data"] for entry in Session.open(session.id, store).entries
             if entry.type == "custom" and entry.data["custom_type"] == "subagent"]
    assert len(links) == 1 and links[0]["tool_call_id"] == "call-1" and links[0]["agent"] == "research"
    answer = json.loads(parent.history[2].content[0].text)
    child_session = Session.open(links[0]["session_id"], store)
    assert [message.role for message in child_session.messages()] == ["user", "assistant"]
    assert child_session.messages()[0].content[0].text == "Find it."
    assert child_session.id != session.id and answer["data"] == "found it"
    # The parent resumes with its conversation only: the link is no message.
    assert [message.role for message in Session.open(session.id, store).messages()] == [
        "user", "assistant", "tool_result", "assistant"]


def test_sessions_show_names_the_child_session(agentkit: Any, tmp_path: Any) -> None:
    store = JsonlSessionStore(tmp_path / "data" / "sessions")
    session = Session.new(store, cwd=tmp_path)
    parent = parent_agent(Script([Turn([delegate("research", "Find it.")]), Turn([text("ok")])]),
                          Subagent("research", "Finds.", child_config(Script([Turn([text("found")])]))).as_tool(),
                          session=session)
    parent.run_sync("Go.")
    session.close()
    child_id = next(entry.data["data"]["session_id"] for entry in Session.open(session.id, store).entries
                    if entry.type == "custom")

    env = {"AGENTKIT_DATA_DIR": str(tmp_path / "data")}
    shown = agentkit("sessions", "show", session.id, env=env)
    assert shown.returncode == 0, shown.stderr
    assert f"[subagent research] session {child_id}" in shown.stdout
    child = agentkit("sessions", "show", child_id, env=env)
    assert child.returncode == 0 and "Find it." in child.stdout and "found" in child.stdout


def test_child_events_reach_the_parent_tagged_in_order_and_survive_json() -> None:
    events: list[Event] = []
    parent = parent_agent(Script([Turn([delegate("research", "Find.", call_id="c9")]), Turn([text("ok")])]),
                          Subagent("research", "Finds.", child_config(Script([Turn([text("found")])]))).as_tool())
    parent.subscribe(events.append)
    parent.run_sync("Go.")
    tagged = subagent_events(events)
    assert isinstance(tagged[0].event, AgentStart) and isinstance(tagged[-1].event, AgentEnd)
    assert {(event.agent, event.call_id) for event in tagged} == {("research", "c9")}
    assert len({event.session_id for event in tagged}) == 1
    # Between the parent's tool_call_start and its agent_end.
    start = next(index for index, event in enumerate(events) if isinstance(event, ToolCallStart))
    assert start < events.index(tagged[0]) and events.index(tagged[-1]) < len(events) - 1
    assert event_from_dict(json.loads(json.dumps(event_to_dict(tagged[-1])))) == tagged[-1]


class Observer:
    """A plugin observing every run: what each run's observer was shown, by session."""

    def __init__(self) -> None:
        self.seen: dict[str, list[Event]] = {}

    @hookimpl
    def agentkit_run_observer(self, session: Any) -> Any:
        return self.seen.setdefault(session.session_id, []).append


def test_run_observers_see_the_childs_events_without_its_streamed_pieces() -> None:
    observer = Observer()
    child = Script([Turn([text("a long answer, streamed in pieces " * 20)])])
    config = AgentConfig(model="faux/scripted", tools=["research"], trust=Trust(before_tool_call=allow_all),
                         connection=Connection(transport=Script([Turn([delegate("research", "Find.")]), Turn([text("ok")])])),

                         extra_tools=[Subagent("research", "Finds.", child_config(child)).as_tool()])
    parent = Agent(config, host=make_host(observer))
    parent.run_sync("Go.")
    tagged = [event for event in observer.seen[parent.session_id] if isinstance(event, SubagentEvent)]
    assert [event.event.type for event in tagged] == [
        "agent_start", "turn_start", "message_start", "message_end", "turn_end", "agent_end"]
    # The child's run is a run of its own, observed as such (its pieces left out there too).
    (child_id,) = set(observer.seen) - {parent.session_id}
    assert [event.type for event in observer.seen[child_id]] == [event.event.type for event in tagged]


def test_aborting_the_parent_aborts_its_running_children() -> None:
    events: list[Event] = []
    waiting = Script([Turn([tool_call("wait")])] * 3)
    parent = parent_agent(Script([Turn([delegate("worker", "a"), delegate("worker", "b")]), Turn([text("never")])]),
                          Subagent("worker", "Works.", child_config(waiting)).as_tool())
    started: set[str] = set()

    def on_event(event: Event) -> None:
        events.append(event)
        if isinstance(event, SubagentEvent) and isinstance(event.event, ToolCallStart):
            started.add(event.session_id)
            if len(started) == 2:  # both children are in the middle of a tool batch
                parent.abort()

    parent.subscribe(on_event)
    result = parent.run_sync("Go.")
    assert result.outcome is Outcome.ABORTED
    ends = [event.event for event in subagent_events(events) if isinstance(event.event, AgentEnd)]
    assert [end.outcome for end in ends] == [Outcome.ABORTED, Outcome.ABORTED]
    assert isinstance(events[-1], AgentEnd)  # every child ended before the parent did


def test_budget_limits_are_checked_when_made() -> None:
    for bad in ({"turns": -1}, {"tokens": 1.5}, {"cost": float("nan")}, {"turns": True}):
        with pytest.raises(ValueError, match="Budget"):
            Budget(**bad)


# -- aborting mid-delegation, under random fault schedules ------------------------------

CHILD_FAULTS = ["ok", "ok", "wait", "raise", "stuck_async", "stuck"]


def fault(arguments: dict[str, Any], context: Any) -> str:
    kind = arguments["kind"]
    if kind == "wait":
        context.cancel.wait()  # cooperative: returns at the abort (or at its deadline)
    elif kind == "stuck":
        threading.Event().wait(5)  # ignores the abort: abandoned at the grace
    elif kind == "raise":
        raise RuntimeError("scheduled fault")
    return kind


async def async_fault(arguments: dict[str, Any], context: Any) -> str:
    await asyncio.sleep(3600)  # cancelled at its deadline or at the abort
    return "never"


FAULT_TOOLS = [Tool("fault", "does what it is told", {"type": "object"}, fault),
               Tool("async_fault", "hangs", {"type": "object"}, async_fault)]


class PerChild(httpx.AsyncBaseTransport):
    """Each child's own script, chosen by its task (the first message): concurrent children never share turns."""

    def __init__(self, scripts: dict[str, Script]) -> None:
        self.scripts = scripts

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(await request.aread())
        return await self.scripts[body["messages"][0]["content"][0]["text"]].handle_async_request(request)


def fault_call(kind: str) -> Any:
    return tool_call("async_fault", {}) if kind == "stuck_async" else tool_call("fault", {"kind": kind})


def assert_every_call_answered(messages: list[Any]) -> None:
    for index, message in enumerate(messages):
        if message.role == "assistant" and message.stop_reason.value not in ("error", "aborted"):
            ids = [call.id for call in message.tool_calls]
            assert [getattr(item, "tool_use_id", None) for item in messages[index + 1: index + 1 + len(ids)]] == ids


def test_a_child_stuck_past_the_parents_grace_still_ends_before_its_parent() -> None:
    events: list[Event] = []
    stuck = Subagent("worker", "Works.", AgentConfig(
        model="faux/scripted", tools=["fault"], extra_tools=FAULT_TOOLS[:1], trust=Trust(before_tool_call=allow_all),
        connection=Connection(transport=Script([Turn([fault_call("stuck")]), Turn([text("never")])])))).as_tool()
    parent = parent_agent(Script([Turn([delegate("worker", "a")]), Turn([text("never")])]), stuck)

    def on_event(event: Event) -> None:
        events.append(event)
        if isinstance(event, SubagentEvent) and isinstance(event.event, ToolCallStart):
            parent.abort()  # the child's tool ignores it: the parent's batch gives the delegation up

    parent.subscribe(on_event)
    result = parent.run_sync("Go.")
    assert result.outcome is Outcome.ABORTED
    child_end = [event for event in subagent_events(events) if isinstance(event.event, AgentEnd)]
    assert len(child_end) == 1 and child_end[0].event.outcome is Outcome.ABORTED
    assert events[-1] is not child_end[0] and isinstance(events[-1], AgentEnd)


delegation_schedules = st.fixed_dictionaries({
    "children": st.lists(st.lists(st.sampled_from(CHILD_FAULTS), min_size=1, max_size=2), min_size=1, max_size=3),
    "interrupt_at": st.none() | st.integers(0, 40),
    "how": st.sampled_from(["abort", "abort_thread", "cancel"]),
})


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(delegation_schedules)
def test_aborting_the_parent_mid_delegation_ends_every_child_first_under_random_faults(schedule: dict[str, Any]) -> None:
    children = schedule["children"]
    scripts = {f"task {n}": Script([Turn([fault_call(kind) for kind in faults]), Turn([text(f"child {n} done")])])
               for n, faults in enumerate(children)}
    with tempfile.TemporaryDirectory() as directory:
        store = JsonlSessionStore(directory)
        session = Session.new(store, cwd=directory)
        worker = Subagent("worker", "Works.", AgentConfig(
            model="faux/scripted", tools=["fault", "async_fault"], extra_tools=FAULT_TOOLS,
            timeouts=Timeouts(tool=0.2),
            trust=Trust(before_tool_call=allow_all),
            connection=Connection(transport=PerChild(scripts)))).as_tool()
        parent = parent_agent(Script([Turn([delegate("worker", name) for name in scripts]), Turn([text("all done")])]),
                              worker, session=session)
        events: list[Event] = []
        running: set[str] = set()
        interrupted_while_running: set[str] = set()
        fired: list[str] = []
        task: list[asyncio.Future[Any]] = []

        def on_event(event: Event) -> None:
            events.append(event)
            if isinstance(event, SubagentEvent) and isinstance(event.event, AgentStart):
                running.add(event.session_id)
            if isinstance(event, SubagentEvent) and isinstance(event.event, AgentEnd):
                running.discard(event.session_id)
            if len(events) - 1 == schedule["interrupt_at"] and not isinstance(event, AgentEnd):
                fired.append(schedule["how"])
                interrupted_while_running.update(running)
                if schedule["how"] == "abort":
                    parent.abort()
                elif schedule["how"] == "abort_thread":
                    threading.Thread(target=parent.abort).start()
                else:
                    task[0].cancel()

        parent.subscribe(on_event)

        async def scenario() -> None:
            task.append(asyncio.ensure_future(parent.run("Go.")))
            with contextlib.suppress(asyncio.CancelledError):
                await task[0]

        asyncio.run(scenario())
        session.close()

        result = parent.last_result
        assert result is not None and isinstance(events[-1], AgentEnd) and events[-1].outcome is result.outcome
        assert_every_call_answered(parent.history)
        if not fired:
            assert result.outcome is Outcome.COMPLETED, (result.outcome, result.error, result.problems)
        else:
            assert result.outcome in (Outcome.COMPLETED, Outcome.ABORTED, Outcome.CANCELLED), result.outcome
        starts = {event.session_id for event in subagent_events(events) if isinstance(event.event, AgentStart)}
        ends = [event for event in subagent_events(events) if isinstance(event.event, AgentEnd)]
        assert sorted(event.session_id for event in ends) == sorted(starts)  # each child ended once, before its parent
        at = schedule["interrupt_at"]
        for end in ends:
            own = [index for index, event in enumerate(events)
                   if isinstance(event, SubagentEvent) and event.session_id == end.session_id]
            if end.session_id in interrupted_while_running and schedule["how"] == "abort":
                # The abort reaches the child at once: it starts no turn after it, and it ends aborted,
                # unless the request of its final answer was out already and that answer arrived whole.
                assert not [index for index in own if index > at and isinstance(events[index].event, TurnStart)]
                assert end.event.outcome in (Outcome.ABORTED, Outcome.COMPLETED), end.event.outcome
            child_log = Session.open(end.session_id, store)
            assert_every_call_answered(child_log.messages())
            child_log.close()
        linked = {entry.data["data"]["session_id"] for entry in Session.open(session.id, store).entries
                  if entry.type == "custom" and entry.data["custom_type"] == "subagent"}
        assert linked == starts
