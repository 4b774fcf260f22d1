"""``Defer(reason)``: the embedder or a hook asks a person; a run that is not durable cannot wait.

Authorization stays narrow-only: the embedder decides first, then the plugins;
any block wins over a deferral, and a deferred call runs only if a person
approves, which only a durable run can wait for (see extensions/durable).
"""

from __future__ import annotations

import json

import pytest
from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent

from agentkit.host import Agent, Trust, allow_all
from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.plugin_api import (
    Block,
    Defer,
    Outcome,
    Tool,
    ToolCallEnd,
    ToolResultMessage,
    hookimpl,
)
from agentkit.testing import write_script

TURNS = [Turn([tool_call("act", {"target": "prod"})]), Turn([text("I will wait for the approval.")])]


def acting(ran: list) -> Tool:
    def act(target: str = "") -> str:
        """Act on a target."""
        ran.append(target)
        return "done"

    return Tool.from_function(act)


class Answering:
    """A hooks plugin answering ``answer`` about every call."""

    def __init__(self, answer) -> None:
        self.answer = answer
        self.asked = 0

    @hookimpl
    def agentkit_before_tool_call(self, call):
        self.asked += 1
        return self.answer


def run(*plugins, tmp_path=None, **config):
    ran: list[str] = []
    agent, _ = make_agent(TURNS, ToolsPlugin(acting(ran)), *plugins, **config)
    events: list = []
    agent.subscribe(events.append)
    result = agent.run_sync("deploy")
    [answer] = [m for m in result.messages if isinstance(m, ToolResultMessage)]
    return result, answer, ran, events


def defer(call, arguments):
    return Defer("deploys to production need a person")


@pytest.mark.parametrize("who", ["embedder", "plugin"])
def test_a_deferral_in_a_run_that_is_not_durable_is_answered_with_an_error_naming_durable(who):
    plugins, trust = ((), Trust(before_tool_call=defer)) if who == "embedder" else (
        (Answering(Defer("deploys to production need a person")),), Trust(before_tool_call=allow_all))
    result, answer, ran, events = run(*plugins, trust=trust)
    assert ran == []  # never runs without a person's yes
    envelope = json.loads(answer.text)
    assert answer.is_error and envelope["error"] == "approval_needs_durable_run"
    assert "deploys to production need a person" in envelope["detail"] and "--durable" in envelope["detail"]
    # The model sees it, the events carry it, and the run goes on (it never waits).
    assert [e.result.text for e in events if isinstance(e, ToolCallEnd)] == [answer.text]
    assert result.outcome is Outcome.COMPLETED and result.text == "I will wait for the approval."


def test_any_block_wins_over_a_deferral():
    # The embedder defers, a plugin blocks: blocked, with the plugin's reason.
    _, answer, ran, _ = run(Answering(Block("never in production")), trust=Trust(before_tool_call=defer))
    assert ran == [] and json.loads(answer.text) == {"ok": False, "error": "blocked", "detail": "never in production"}
    # One plugin defers, another blocks, whichever pluggy asks first (the last registered).
    for plugins in ((Answering(Defer("ask")), Answering(Block("no"))), (Answering(Block("no")), Answering(Defer("ask")))):
        _, answer, ran, _ = run(*plugins, trust=Trust(before_tool_call=allow_all))
        assert ran == [] and json.loads(answer.text)["detail"] == "no"


def test_an_embedders_block_is_final_even_when_a_plugin_would_defer():
    hook = Answering(Defer("ask"))
    _, answer, ran, _ = run(hook, trust=Trust(before_tool_call=lambda call, arguments: Block("embedder says no")))
    assert ran == [] and hook.asked == 0 and json.loads(answer.text)["error"] == "blocked"


def test_the_plugins_are_still_asked_about_a_call_the_embedder_deferred():
    hook = Answering(None)
    _, answer, ran, _ = run(hook, trust=Trust(before_tool_call=defer))
    assert hook.asked == 1 and ran == [] and json.loads(answer.text)["error"] == "approval_needs_durable_run"


def test_a_deferral_whose_reason_is_not_text_still_defers_and_is_reported():
    result, answer, ran, _ = run(Answering(Defer(42)), trust=Trust(before_tool_call=allow_all))  # type: ignore[arg-type]
    assert ran == [] and json.loads(answer.text)["error"] == "approval_needs_durable_run"
    assert any("Defer whose reason is 42" in problem for problem in result.problems)


def test_the_session_log_keeps_the_deferred_calls_answer(tmp_path):
    store = JsonlSessionStore(tmp_path)
    session = Session.new(store, cwd=tmp_path)
    built, _ = make_agent(TURNS, ToolsPlugin(acting([])), trust=Trust(before_tool_call=defer))
    Agent(built.config, host=built.host, session=session).run_sync("deploy")
    [logged] = [m for m in Session.open(session.id, store).messages() if isinstance(m, ToolResultMessage)]
    assert logged.is_error and "--durable" in json.loads(logged.text)["detail"]


DEFERRER = """
from agentkit.plugin_api import Defer, hookimpl

@hookimpl
def agentkit_before_tool_call(call):
    return Defer("a person reads every file read")
"""


def test_agentkit_run_says_in_one_line_that_the_call_needs_a_durable_run(agentkit, site_dir, tmp_path):
    site_dir("deferrer-plugin", entry_points={"agentkit.hooks": {"deferrer": "deferrerplugin"}},
             requires=["agentkit-plugin-api>=0.1"], files={"deferrerplugin.py": DEFERRER})
    (tmp_path / "a.txt").write_text("alpha\n")
    script = str(write_script(tmp_path / "turns.json", [
        {"content": [{"type": "tool_use", "name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"content": [{"type": "text", "text": "I could not read it."}]},
    ]))
    result = agentkit.inline("run", "read a.txt", "--model", "faux/scripted", "--script", script,
                             "--root", str(tmp_path), site=site_dir.site)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "I could not read it.\n"
    [line] = [line for line in result.stderr.splitlines() if "approval" in line]
    assert line == ("[tool] read_file failed: approval_needs_durable_run: The call to 'read_file' needs a person's "
                    "approval (a person reads every file read), and only a durable run can wait for one: run it "
                    "with --durable (pip install agentkit-durable).")
