"""What the model and the embedder are told when a plugin hook objects or misbehaves.

The model reads the blocked call's result; the embedder reads ``RunResult.problems``
(and the ``agentkit.host`` log). Each names the plugin and what went wrong.
"""

from __future__ import annotations

import json
import logging

from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent

from agentkit.plugin_api import Block, SessionInfo, Tool, ToolResultMessage, hookimpl


def run(*plugins, calls: int = 1):
    """One turn of ``calls`` calls to a recording tool (registered as plugin0), then a text turn."""
    ran: list = []
    tool = Tool("act", "Act.", {"type": "object"}, lambda arguments, context: ran.append(1) or "acted")
    agent, _ = make_agent([Turn([tool_call("act", {})] * calls), Turn([text("k")])], ToolsPlugin(tool), *plugins)
    result = agent.run_sync("go")
    answers = [message for message in result.messages if isinstance(message, ToolResultMessage)]
    return result, [json.loads(answer.text) for answer in answers], ran


def plugin_answering(answer):
    class Answers:
        @hookimpl
        def agentkit_before_tool_call(self, call):
            if isinstance(answer, BaseException):
                raise answer
            return answer

    return Answers()


def test_a_raising_check_blocks_naming_the_plugin_and_the_exception():
    result, [envelope], ran = run(plugin_answering(ValueError("no way")))
    assert ran == []
    assert envelope["detail"] == "Blocked: the check of plugin 'plugin1' failed (ValueError)."
    assert "plugin 'plugin1' agentkit_before_tool_call raised ValueError: no way" in result.problems


def test_an_answer_neither_none_nor_a_block_is_reported_with_its_value():
    result, [envelope], ran = run(plugin_answering("allow"))
    assert ran == []
    assert envelope["detail"] == "Blocked: the check of plugin 'plugin1' answered neither None, a Block nor a Defer."
    assert result.problems == [
        "plugin 'plugin1' agentkit_before_tool_call returned 'allow'; only None (no objection), "
        "a Block or a Defer is understood, so the call was blocked"
    ]


def test_a_plugin_without_objection_leaves_the_word_to_the_next_one():
    # pluggy calls the plugin registered last first: the one without objection speaks first
    _, [envelope], ran = run(plugin_answering(Block("second says no")), plugin_answering(None))
    assert ran == [] and envelope["detail"] == "second says no"


class _RaisingReason(Block):
    @property
    def reason(self):
        raise RuntimeError("no reason")


def test_a_block_whose_fields_raise_blocks_naming_the_exception():
    result, [envelope], _ = run(plugin_answering(Block.__new__(_RaisingReason)))
    assert envelope["detail"] == "Blocked: the check of plugin 'plugin1' failed (RuntimeError)."
    assert result.problems == [
        "plugin 'plugin1' agentkit_before_tool_call returned a Block whose fields raised RuntimeError: no reason"
    ]


def test_a_block_whose_reason_is_not_text_is_told_by_plugin_name():
    result, [envelope], _ = run(plugin_answering(Block(42)))
    assert envelope["detail"] == "Blocked by plugin 'plugin1'."
    assert result.problems == ["plugin 'plugin1' agentkit_before_tool_call returned a Block whose reason is 42, not text"]


def test_a_plugin_block_that_terminates_ends_the_run_after_the_batch():
    result, envelopes, ran = run(plugin_answering(Block("stop here", terminate=True)), calls=2)
    assert ran == [] and [envelope["detail"] for envelope in envelopes] == ["stop here"] * 2
    assert result.outcome == "terminated" and result.text != "k"


def test_only_a_terminate_that_is_true_ends_the_run():
    result, _, _ = run(plugin_answering(Block("just this call", terminate="yes")))
    assert result.outcome == "completed" and result.text == "k"


def test_an_observer_returning_a_value_is_reported_with_the_value():
    class Returns:
        @hookimpl
        def agentkit_after_tool_call(self, result):
            return "changed?"

    result, [envelope], _ = run(Returns())
    assert envelope["data"] == "acted"
    assert result.problems == [
        "plugin 'plugin1' agentkit_after_tool_call returned 'changed?'; an observing hook "
        "changes nothing, so the value was ignored"
    ]


def test_an_observer_sees_the_session_of_the_run(tmp_path):
    sessions = []

    class Observes:
        @hookimpl
        def agentkit_after_tool_call(self, session):
            sessions.append(session)

    tool = Tool("act", "Act.", {"type": "object"}, lambda arguments, context: "acted")
    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("k")])], ToolsPlugin(tool), Observes(), root=tmp_path)
    result = agent.run_sync("go")
    assert result.problems == []
    [session] = sessions
    assert isinstance(session, SessionInfo) and session.root == tmp_path and session.model == "faux/scripted"


def test_every_problem_is_logged_as_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="agentkit.host"):
        result, _, _ = run(plugin_answering(ValueError("no way")))
    [problem] = result.problems
    assert [(record.levelno, record.getMessage()) for record in caplog.records if record.name == "agentkit.host"] == [
        (logging.WARNING, problem)
    ]
