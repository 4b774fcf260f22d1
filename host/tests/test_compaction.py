"""Compaction is a view applied before every request: the history and the log stay whole, the requests stay small."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from agentkit_provider_faux import Script, ScriptedRequest, Turn, text, tool_call
from host_helpers import ToolsPlugin, make_host
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentkit.host import (
    Agent,
    AgentBusy,
    AgentConfig,
    Budget,
    Compaction,
    ConfigError,
    Connection,
    Limits,
    Trust,
    allow_all,
)
from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.plugin_api import (
    AssistantMessage,
    Outcome,
    TextBlock,
    Tool,
    ToolResultMessage,
    ToolUseBlock,
    Usage,
)

WORD = "compaction-" * 8


def shout(word: str) -> str:
    """Say a word louder."""
    return word.upper()


def calls_turn(number: int) -> Turn:
    """A turn of one to three tool calls, so that cuts meet batches of every size."""
    return Turn([text(f"Turn {number}.")] + [tool_call("shout", {"word": WORD}) for _ in range(number % 3 + 1)])


class Router(httpx.AsyncBaseTransport):
    """The conversation's script, and another for the summarization requests (told apart by their system prompt)."""

    def __init__(self, main: Script, summaries: Script, summary_prompt: str) -> None:
        self.main, self.summaries, self.summary_prompt = main, summaries, summary_prompt

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(await request.aread())
        script = self.summaries if body.get("system") == self.summary_prompt else self.main
        # a fresh request object: the body was read here already
        return await script.handle_async_request(httpx.Request(request.method, request.url, headers=request.headers,
                                                               content=json.dumps(body).encode()))


def agent_with(transport: Any, compaction: Compaction, session: Session | None = None) -> Agent:
    host = make_host(ToolsPlugin(Tool.from_function(shout)))
    return Agent(AgentConfig(model="faux/scripted", tools=["shout"], limits=Limits(max_turns=None),
                             trust=Trust(before_tool_call=allow_all), connection=Connection(transport=transport),
                             compaction=compaction), host=host, session=session)


def prompt_chars(request: ScriptedRequest) -> int:
    """What the estimate counts of a request: message text, tool calls, the system prompt and the tools."""
    chars = len(request.system or "")
    for tool in request.tools:
        chars += len(tool["name"]) + len(tool.get("description", "")) + len(json.dumps(tool["input_schema"]))
    for message in request.messages:
        for block in message.content:
            if isinstance(block, TextBlock):
                chars += len(block.text)
            elif isinstance(block, ToolUseBlock):
                chars += len(block.name) + len(block.arguments)
    return chars


def assert_well_formed(request: ScriptedRequest) -> None:
    """The first message is the user's, and every tool result has its call before it in the same request."""
    messages = request.messages
    assert messages[0].role == "user"
    called: set[str] = set()
    for message in messages:
        if isinstance(message, AssistantMessage):
            called |= {call.id for call in message.tool_calls}
        elif isinstance(message, ToolResultMessage):
            assert message.tool_use_id in called


def test_a_thousand_turns_stay_under_a_token_window_and_the_history_stays_whole() -> None:
    turns = 1000
    script = Script([calls_turn(number) for number in range(turns - 1)] + [Turn([text("Done.")])], keep_requests=None)
    agent = agent_with(script, Compaction.token_window(1500))
    result = agent.run_sync("Shout, a thousand times.")
    assert result.outcome is Outcome.COMPLETED
    assert script.request_count == turns
    for request in script.requests:
        assert prompt_chars(request) <= 1500 * 4
        assert_well_formed(request)
    # the history holds everything; the requests only a window of it
    assert len([message for message in agent.history if isinstance(message, AssistantMessage)]) == turns
    assert sum(len(json.dumps(message.to_dict())) for message in agent.history) > 20 * 1500 * 4
    # no oscillation: a cut holds until the window fills again, so the cached prefix moves seldom
    heads = [json.dumps(request.body["messages"][:2]) for request in script.requests]
    moves = sum(1 for before, after in itertools.pairwise(heads) if before != after)
    assert 0 < moves < turns // 4


def test_a_turn_window_keeps_the_last_turns_and_records_each_cut_in_the_session(tmp_path: Path) -> None:
    session = Session.new(JsonlSessionStore(tmp_path), cwd=tmp_path)
    script = Script([calls_turn(number) for number in range(30)] + [Turn([text("Done.")])], keep_requests=None)
    agent = agent_with(script, Compaction.turn_window(3), session)
    assert agent.run_sync("Shout.").outcome is Outcome.COMPLETED
    session.close()
    for request in script.requests:
        assert sum(isinstance(message, AssistantMessage) for message in request.messages) <= 3
        assert_well_formed(request)
    assert len(script.requests[-1].messages) > 3
    reopened = Session.open(session.id, JsonlSessionStore(tmp_path))
    compactions = [entry for entry in reopened.entries if entry.type == "compaction"]
    assert compactions
    messages = [entry for entry in reopened.entries if entry.type == "message"]
    assert len(messages) == len(agent.history)  # the log lost nothing
    for compaction in compactions:
        kept = reopened.entry(compaction.data["first_kept_entry_id"])
        assert kept.type == "message" and kept.message is not None and kept.message.role != "tool_result"


def test_summarization_is_its_own_request_and_its_summary_leads_the_next_requests(tmp_path: Path) -> None:
    prompt = "Summarize for the test."
    main = Script([calls_turn(number) for number in range(40)] + [Turn([text("Done.")])], keep_requests=None)
    summaries = Script([Turn([text(f"SUMMARY-{number}")]) for number in range(40)], keep_requests=None)
    session = Session.new(JsonlSessionStore(tmp_path), cwd=tmp_path)
    agent = agent_with(Router(main, summaries, prompt),
                       Compaction.summarize(800, prompt=prompt, summary_max_tokens=300), session)
    assert agent.run_sync("Shout.").outcome is Outcome.COMPLETED
    assert summaries.request_count >= 2
    for request in summaries.requests:
        assert request.system == prompt and request.max_tokens == 300 and not request.tools
    # each summary extends the one before it
    assert "<previous-summary>\nSUMMARY-0\n</previous-summary>" in summaries.requests[1].messages[0].content[0].text
    last = main.requests[-1]
    assert f"SUMMARY-{summaries.request_count - 1}" in last.messages[0].content[0].text
    for request in main.requests:
        assert_well_formed(request)
    recorded = [entry.data["summary"] for entry in session.entries if entry.type == "compaction"]
    assert recorded == [f"SUMMARY-{number}" for number in range(summaries.request_count)]
    session.close()


def test_what_the_summaries_cost_is_the_runs_usage_and_counts_against_its_budget() -> None:
    prompt = "Summarize for the test."
    main = Script([Turn(calls_turn(number).content, usage=Usage(input=10, cost=0.001)) for number in range(40)]
                  + [Turn([text("Done.")])])
    summaries = Script([Turn([text(f"SUMMARY-{number}")], usage=Usage(input=1000, output=100, cost=0.5))
                        for number in range(40)])
    agent = agent_with(Router(main, summaries, prompt), Compaction.summarize(800, prompt=prompt))
    result = agent.run_sync("Shout.")
    assert summaries.request_count >= 2
    answered = main.request_count - 1  # the final "Done." reports no usage
    assert result.usage.total == answered * 10 + summaries.request_count * 1100
    assert result.usage.cost == pytest.approx(answered * 0.001 + summaries.request_count * 0.5)

    # A budget sees them too: one summary spends more than the run may.
    main, summaries = (Script([calls_turn(number) for number in range(40)]),
                       Script([Turn([text("SUMMARY")], usage=Usage(output=5000))] * 40))
    agent = Agent(AgentConfig(model="faux/scripted", tools=["shout"],
                              limits=Limits(max_turns=None, budget=Budget(tokens=5000)),
                              trust=Trust(before_tool_call=allow_all),
                              connection=Connection(transport=Router(main, summaries, prompt)),
                              compaction=Compaction.summarize(800, prompt=prompt)),
                  host=make_host(ToolsPlugin(Tool.from_function(shout))))
    result = agent.run_sync("Shout.")
    assert (result.stopped_by, summaries.request_count) == ("budget", 1)


def test_a_failed_summary_falls_back_to_the_turn_window() -> None:
    prompt = "Summarize for the test."
    main = Script([calls_turn(number) for number in range(20)] + [Turn([text("Done.")])], keep_requests=None)
    failing = Script([Turn(status=500, error="summaries are down") for _ in range(20)])
    agent = agent_with(Router(main, failing, prompt), Compaction.summarize(800, prompt=prompt, max_turns=2))
    assert agent.run_sync("Shout.").outcome is Outcome.COMPLETED
    assert failing.request_count >= 1
    after = main.requests[-1]
    assert sum(isinstance(message, AssistantMessage) for message in after.messages) <= 2
    assert "<summary>" not in json.dumps(after.body)
    assert_well_formed(after)


def test_without_compaction_every_request_carries_the_whole_history() -> None:
    script = Script([calls_turn(number) for number in range(5)] + [Turn([text("Done.")])], keep_requests=None)
    agent = agent_with(script, Compaction())
    agent.run_sync("Shout.")
    assert len(script.requests[-1].messages) == len(agent.history) - 1


@pytest.mark.parametrize("build", [
    lambda: Compaction("sliding"),
    lambda: Compaction.turn_window(0),
    lambda: Compaction("token_window"),
    lambda: Compaction.token_window(100, keep_tokens=200),
])
def test_a_bad_compaction_is_refused_with_the_fix(build: Any) -> None:
    with pytest.raises(ConfigError):
        build()


def test_a_resumed_session_goes_on_from_its_last_compaction(tmp_path: Path) -> None:
    prompt = "Summarize for the test."
    store = JsonlSessionStore(tmp_path)
    session = Session.new(store, cwd=tmp_path)
    main = Script([calls_turn(number) for number in range(40)] + [Turn([text("Done.")])], keep_requests=None)
    summaries = Script([Turn([text(f"SUMMARY-{number}")]) for number in range(40)])
    compaction = Compaction.summarize(800, keep_tokens=200, prompt=prompt)
    agent_with(Router(main, summaries, prompt), compaction, session).run_sync("Shout.")
    session.close()
    last_summary = f"SUMMARY-{summaries.request_count - 1}"

    resumed = Session.open(session.id, store)
    again = Script([Turn([text("Again.")])], keep_requests=None)
    fresh_summaries = Script([Turn([text("A NEW SUMMARY")])])
    agent = agent_with(Router(again, fresh_summaries, prompt), compaction, resumed)
    assert agent.run_sync("Once more.").outcome is Outcome.COMPLETED
    resumed.close()
    # the checkpoint is permanent: the resumed request is the compacted one, not the whole history again
    assert fresh_summaries.request_count == 0
    first = again.requests[0]
    assert last_summary in first.messages[0].content[0].text
    assert len(first.messages) < len(agent.history) // 4


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=st.lists(st.integers(min_value=1, max_value=4), min_size=1, max_size=14),
       compaction=st.one_of(st.integers(min_value=1, max_value=4).map(Compaction.turn_window),
                            st.integers(min_value=150, max_value=700).map(Compaction.token_window)))
def test_no_cut_starts_on_a_tool_result_or_parts_a_call_from_its_results(batches: list[int],
                                                                         compaction: Compaction) -> None:
    turns = [Turn([tool_call("shout", {"word": WORD}) for _ in range(size)]) for size in batches]
    script = Script([*turns, Turn([text("Done.")])], keep_requests=None)
    agent = agent_with(script, compaction)
    assert agent.run_sync("Shout.").outcome is Outcome.COMPLETED
    for request in script.requests:
        assert_well_formed(request)
        results = sum(isinstance(message, ToolResultMessage) for message in request.messages)
        calls = sum(len(message.tool_calls) for message in request.messages if isinstance(message, AssistantMessage))
        assert results == calls  # every call kept has its results, and no result is kept without its call


# -- Agent.compact: a cut now, whatever the configured compaction ------------------------------

SUMMARY_PROMPT = Compaction.summarize(1).summary_prompt


def talked_twice(tmp_path: Path, session: Session | None) -> tuple[Agent, Script, Script]:
    """An agent (no compaction configured) after two prompts, its conversation's script and its summaries' script."""
    main = Script([Turn([text("one")]), Turn([text("two")]), Turn([text("three")])], keep_requests=None)
    summaries = Script([Turn([text("THE SUMMARY")])], keep_requests=None)
    agent = Agent(AgentConfig(model="faux/scripted",
                              connection=Connection(transport=Router(main, summaries, SUMMARY_PROMPT))),
                  host=make_host(), session=session)
    assert agent.run_sync("first").outcome is Outcome.COMPLETED
    assert agent.run_sync("second").outcome is Outcome.COMPLETED
    return agent, main, summaries


def texts(request: ScriptedRequest) -> list[str]:
    return [block.text for message in request.messages for block in message.content if isinstance(block, TextBlock)]


@pytest.mark.parametrize("with_session", [True, False])
def test_compact_summarizes_now_and_the_next_request_starts_from_the_summary(tmp_path: Path,
                                                                             with_session: bool) -> None:
    session = Session.new(JsonlSessionStore(tmp_path), cwd=tmp_path) if with_session else None
    agent, main, summaries = talked_twice(tmp_path, session)

    assert asyncio.run(agent.compact()) == "THE SUMMARY"
    assert summaries.request_count == 1 and len(agent.history) == 4  # the history itself stays whole
    assert agent.run_sync("third").outcome is Outcome.COMPLETED

    sent = texts(main.requests[-1])
    assert "THE SUMMARY" in sent[0] and sent[1:] == ["two", "third"]  # the last answer kept, then the prompt
    if session is not None:
        assert [entry.data["summary"] for entry in session.entries if entry.type == "compaction"] == ["THE SUMMARY"]
        session.close()


def test_compact_after_a_single_prompt_has_nothing_to_cut(tmp_path: Path) -> None:
    summaries = Script([Turn([text("unused")])], keep_requests=None)
    agent = Agent(AgentConfig(model="faux/scripted",
                              connection=Connection(transport=Router(Script([Turn([text("one")])]), summaries,
                                                                      SUMMARY_PROMPT))), host=make_host())
    agent.run_sync("first")
    assert asyncio.run(agent.compact()) is None
    assert summaries.request_count == 0


def test_compact_during_a_run_is_refused() -> None:
    refused: list[str] = []
    agent: Agent

    async def probe(arguments: dict[str, Any], context: Any) -> str:
        try:
            await agent.compact()
        except AgentBusy as exc:
            refused.append(str(exc))
        return "probed"

    tool = Tool(name="probe", description="Compact the running agent.", input_schema={"type": "object"}, handler=probe)
    script = Script([Turn([tool_call("probe", {})]), Turn([text("done")])])
    agent = Agent(AgentConfig(model="faux/scripted", tools=["probe"], connection=Connection(transport=script)),
                  host=make_host(ToolsPlugin(tool)))
    assert agent.run_sync("go").outcome is Outcome.COMPLETED
    assert len(refused) == 1 and "running" in refused[0]


def test_a_cut_made_on_demand_holds_when_the_session_is_resumed_without_compaction(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    agent, _, _ = talked_twice(tmp_path, Session.new(store, cwd=tmp_path))
    asyncio.run(agent.compact())
    assert agent.session is not None
    agent.session.close()

    resumed = Session.open(agent.session.id, store)
    again = Script([Turn([text("four")])], keep_requests=None)
    Agent(AgentConfig(model="faux/scripted",
                      connection=Connection(transport=again)), host=make_host(), session=resumed).run_sync("fourth")
    resumed.close()
    sent = texts(again.requests[0])
    assert "THE SUMMARY" in sent[0] and sent[1:] == ["two", "fourth"]
