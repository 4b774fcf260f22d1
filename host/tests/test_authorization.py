"""Authorization: the embedder decides first; plugin hooks can only narrow."""

from __future__ import annotations

import json

import pytest
from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent

from agentkit.host import Trust, allow_all
from agentkit.plugin_api import Block, Outcome, Tool, ToolResultMessage, hookimpl


def counting_tool(ran: list) -> Tool:
    def act(target: str = "") -> str:
        """Do the thing."""
        ran.append(target)
        return "done"

    return Tool.from_function(act)


class Recorder:
    """A hooks plugin that records what it was consulted about and answers ``answer``."""

    def __init__(self, answer=None, raises: Exception | None = None) -> None:
        self.seen: list[str] = []
        self.answer = answer
        self.raises = raises
        self.after: list[ToolResultMessage] = []
        self.sessions: list[tuple] = []

    @hookimpl
    def agentkit_before_tool_call(self, call, arguments):
        self.seen.append(arguments.get("target", ""))
        if self.raises:
            raise self.raises
        return self.answer(arguments) if callable(self.answer) else self.answer

    @hookimpl
    def agentkit_after_tool_call(self, call, result):
        self.after.append(result)

    @hookimpl
    def agentkit_session_start(self, session):
        self.sessions.append(("start", session.session_id))

    @hookimpl
    def agentkit_session_end(self, session, outcome, error):
        self.sessions.append(("end", outcome))


def run(turns, *plugins, **config):
    agent, _script = make_agent(turns, *plugins, **config)
    result = agent.run_sync("go")
    return result, [m for m in result.messages if isinstance(m, ToolResultMessage)]


def test_a_call_the_embedder_blocks_never_reaches_a_plugin():
    ran, hook = [], Recorder()

    def embedder(call, arguments):
        return Block("not that file") if arguments["target"] == "secret" else None

    _, answers = run(
        [Turn([tool_call("act", {"target": "secret"}), tool_call("act", {"target": "ok"})]), Turn([text("k")])],
        ToolsPlugin(counting_tool(ran)), hook, trust=Trust(before_tool_call=embedder),
    )
    assert hook.seen == ["ok"]
    assert ran == ["ok"]
    assert answers[0].is_error and json.loads(answers[0].text) == {"ok": False, "error": "blocked", "detail": "not that file"}
    assert [answer.tool_use_id for answer in hook.after] == [answer.tool_use_id for answer in answers]


def test_a_plugin_can_block_a_call_the_embedder_allowed():
    ran = []
    _, answers = run(
        [Turn([tool_call("act", {"target": "rm"})]), Turn([text("k")])],
        ToolsPlugin(counting_tool(ran)), Recorder(Block("plugin says no")), trust=Trust(before_tool_call=allow_all),
    )
    assert ran == [] and answers[0].is_error and "plugin says no" in answers[0].text


def test_the_first_block_wins_and_stops_the_scan():
    first, second = Recorder(Block("first")), Recorder(Block("second"))
    # pluggy calls the most recently registered plugin first
    _, answers = run([Turn([tool_call("act")]), Turn([text("k")])], ToolsPlugin(counting_tool([])), second, first)
    assert "first" in answers[0].text
    assert len(first.seen) == 1 and second.seen == []


def test_an_allow_from_a_plugin_changes_nothing():
    ran, hook = [], Recorder("allow")
    _, answers = run(
        [Turn([tool_call("act", {"target": "x"})]), Turn([text("k")])],
        ToolsPlugin(counting_tool(ran)), hook, trust=Trust(before_tool_call=lambda call, args: Block("embedder says no")),
    )
    assert ran == [] and hook.seen == [] and "embedder says no" in answers[0].text


def test_a_raising_plugin_hook_blocks_the_call_and_is_reported():
    ran = []
    result, answers = run(
        [Turn([tool_call("act")]), Turn([text("k")])],
        ToolsPlugin(counting_tool(ran)), Recorder(raises=RuntimeError("hook bug")),
    )
    assert ran == [] and answers[0].is_error
    assert result.outcome == "completed"
    assert any("hook bug" in problem for problem in result.problems)


def test_a_raising_embedder_policy_fails_closed():
    ran = []

    def broken(call, arguments):
        raise KeyError("oops")

    _, answers = run([Turn([tool_call("act")]), Turn([text("k")])], ToolsPlugin(counting_tool(ran)), trust=Trust(before_tool_call=broken))
    assert ran == [] and answers[0].is_error


async def async_policy(call, arguments):
    return Block("async no")


def test_an_async_embedder_policy_is_awaited():
    _, answers = run([Turn([tool_call("act")]), Turn([text("k")])], ToolsPlugin(counting_tool([])), trust=Trust(before_tool_call=async_policy))
    assert "async no" in answers[0].text


def test_a_terminating_block_from_the_embedder_ends_the_run_after_the_batch():
    result, answers = run(
        [Turn([tool_call("act")]), Turn([text("never")])],
        ToolsPlugin(counting_tool([])), trust=Trust(before_tool_call=lambda call, args: Block("enough", terminate=True)),
    )
    assert result.outcome is Outcome.TERMINATED and len(answers) == 1 and "enough" in answers[0].text


def test_a_terminating_block_from_a_plugin_hook_ends_the_run_the_same_way():
    hook = Recorder(answer=Block("enough", terminate=True))
    result, answers = run([Turn([tool_call("act")]), Turn([text("never")])], ToolsPlugin(counting_tool([])), hook,
                          trust=Trust(before_tool_call=allow_all))
    assert result.outcome is Outcome.TERMINATED and len(answers) == 1 and "enough" in answers[0].text
    assert hook.sessions[-1] == ("end", Outcome.TERMINATED)


def test_the_removed_terminate_still_ends_the_run_and_names_its_replacement():
    with pytest.warns(DeprecationWarning, match=r"Block\(reason, terminate=True\)"):
        from agentkit.host import Terminate
    result, _ = run([Turn([tool_call("act")]), Turn([text("never")])], ToolsPlugin(counting_tool([])),
                    trust=Trust(before_tool_call=lambda call, args: Terminate("enough")))
    assert result.outcome is Outcome.TERMINATED


def test_session_hooks_fire_on_clean_error_and_abort_exits():
    clean, failing, aborting = Recorder(), Recorder(), Recorder()
    run([Turn([text("hi")])], clean)
    run([Turn([text("partial")], error="boom")], failing)
    agent, _ = make_agent([Turn([tool_call("act")]), Turn([text("k")])], ToolsPlugin(counting_tool([])), aborting,
                          trust=Trust(before_tool_call=lambda call, args: agent.abort()))
    agent.run_sync("go")
    assert [entry[0] for entry in clean.sessions] == ["start", "end"] and clean.sessions[1] == ("end", "completed")
    assert failing.sessions[-1] == ("end", "error")
    assert aborting.sessions[-1] == ("end", "aborted")
    assert all(type(entry[1]) is Outcome for recorder in (clean, failing, aborting) for entry in recorder.sessions
               if entry[0] == "end"), "the hook is given the typed outcome"


def test_raising_observer_hooks_are_reported_and_change_nothing():
    class Noisy:
        @hookimpl
        def agentkit_session_start(self, session):
            raise RuntimeError("start bug")

        @hookimpl
        def agentkit_after_tool_call(self, call, result):
            raise RuntimeError("after bug")

        @hookimpl
        def agentkit_session_end(self, session):
            raise RuntimeError("end bug")

    result, answers = run([Turn([tool_call("act")]), Turn([text("k")])], ToolsPlugin(counting_tool([])), Noisy())
    assert result.outcome == "completed" and not answers[0].is_error
    assert {"start bug", "after bug"} <= {p.split("raised RuntimeError: ")[-1] for p in result.problems}
