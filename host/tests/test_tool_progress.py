"""A tool reports how its call is going through ``ToolContext.progress``: ``tool_call_progress`` events within the call."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from host_helpers import ToolsPlugin, make_host
from rpc_helpers import EVENTS

from agentkit.host import Agent, AgentConfig, Connection, Trust, allow_all
from agentkit.plugin_api import Event, Tool, ToolCallProgress, ToolContext, event_to_dict

KEPT: list[ToolContext] = []  # contexts kept past their call, as a careless plugin might


def fetch_sync(context: ToolContext) -> str:
    """Fetch in steps (a worker thread: each report is handed to the run's loop)."""
    assert context.progress is not None
    context.progress("connecting")
    context.progress("downloading " + "x" * 10_000)  # a chatty report is cut, not passed on whole
    KEPT.append(context)
    return "fetched"


async def fetch_async(context: ToolContext) -> str:
    """Fetch in steps (on the run's loop)."""
    assert context.progress is not None
    context.progress("queued")
    await asyncio.sleep(0)
    context.progress("working")
    KEPT.append(context)
    return "fetched"


def agent_with(turns: list[Turn]) -> tuple[Agent, list[tuple[Event, int]]]:
    seen: list[tuple[Event, int]] = []  # each event, and the thread its listener was called on
    agent = Agent(AgentConfig(model="faux/scripted", trust=Trust(before_tool_call=allow_all),
                              connection=Connection(transport=Script(turns))),
                  host=make_host(ToolsPlugin(Tool.from_function(fetch_sync), Tool.from_function(fetch_async))))
    agent.subscribe(lambda event: seen.append((event, threading.get_ident())))
    return agent, seen


def test_sync_and_async_tools_report_progress_in_order_within_their_calls() -> None:
    agent, seen = agent_with([Turn([tool_call("fetch_sync", {}, id="c1"), tool_call("fetch_async", {}, id="c2")]),
                              Turn([text("done")])])
    result = agent.run_sync("go")

    assert result.outcome == "completed" and result.problems == []
    events = [event for event, _ in seen]
    for call_id, expected in (("c1", ["connecting", "downloading "]), ("c2", ["queued", "working"])):
        start = next(i for i, e in enumerate(events) if e.type == "tool_call_start" and e.call.id == call_id)
        end = next(i for i, e in enumerate(events) if e.type == "tool_call_end" and e.result.tool_use_id == call_id)
        reports = [(i, e) for i, e in enumerate(events) if isinstance(e, ToolCallProgress) and e.tool_use_id == call_id]
        assert len(reports) == len(expected)
        assert [e.message[:len(word)] for (_, e), word in zip(reports, expected, strict=True)] == expected
        assert all(start < i < end for i, _ in reports), "a report came outside its call"
        assert {e.tool_name for _, e in reports} == {events[start].call.name}  # type: ignore[union-attr]
    [long] = [e for e in events if isinstance(e, ToolCallProgress) and e.message.startswith("downloading")]
    assert len(long.message) == 4096 and long.message.endswith("\u2026")
    assert {thread for _, thread in seen} == {seen[0][1]}  # the loop's thread only, though one tool ran in a worker
    for event in events:
        EVENTS.validate(json.loads(json.dumps(event_to_dict(event))))


def test_a_report_after_the_run_ended_is_dropped_without_error() -> None:
    async def scenario() -> list[Event]:
        agent, seen = agent_with([Turn([tool_call("fetch_sync", {}), tool_call("fetch_async", {})]),
                                  Turn([text("done")])])
        KEPT.clear()
        await agent.run("go")
        ended = len(seen)
        for context in KEPT:  # the loop still runs: from its own thread and from another one
            assert context.progress is not None
            context.progress("too late")
            await asyncio.to_thread(context.progress, "too late")
        for _ in range(5):
            await asyncio.sleep(0)
        return [event for event, _ in seen[ended:]]

    assert asyncio.run(scenario()) == []
    assert len(KEPT) == 2
    for context in KEPT:  # the run's loop is closed now
        assert context.progress is not None
        threading.Thread(target=context.progress, args=("much too late",)).start()
        context.progress("much too late")


def test_a_report_that_is_not_text_fails_the_call_with_a_clear_error() -> None:
    def careless(context: ToolContext) -> str:
        """Report a number."""
        assert context.progress is not None
        context.progress(42)  # type: ignore[arg-type]
        return "ok"

    agent = Agent(AgentConfig(model="faux/scripted", trust=Trust(before_tool_call=allow_all),
                              connection=Connection(transport=Script([Turn([tool_call("careless", {})]),
                                                                      Turn([text("done")])]))),
                  host=make_host(ToolsPlugin(Tool.from_function(careless))))
    result = agent.run_sync("go")

    [answer] = [m for m in result.messages if m.role == "tool_result"]
    assert answer.is_error and "ToolContext.progress takes a str, not int" in answer.content[0].text  # type: ignore[union-attr]


def test_outside_a_run_a_context_has_no_progress(tmp_path: Any) -> None:
    assert ToolContext(root=tmp_path).progress is None


@pytest.fixture(autouse=True)
def _forget_contexts() -> None:
    KEPT.clear()
