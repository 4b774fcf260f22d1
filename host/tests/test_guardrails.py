"""Guardrail hooks: a plugin refuses a prompt (before any request) or an answer (the model answers again)."""

from __future__ import annotations

import json

from agentkit_provider_faux import Script, Turn, text, tool_call
from host_helpers import make_agent, make_host

from agentkit.host import Agent, AgentConfig, Connection, Outcome
from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.plugin_api import (
    Block,
    PromptBlocked,
    RetryRequested,
    UserMessage,
    event_to_dict,
    hookimpl,
)


class InputGuard:
    """Blocks any message that mentions ``secret``; records what it saw."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    @hookimpl
    def agentkit_input_guardrail(self, message, text, source, session):
        self.seen.append((source, text))
        message.content.clear()  # a copy: the history keeps its own
        return Block("it mentions a secret") if "secret" in self.seen[-1][1] else None


class OutputGuard:
    """Refuses answers that contain ``forbidden``; records what it saw."""

    def __init__(self, word: str = "forbidden", terminate: bool = False) -> None:
        self.word, self.terminate, self.seen = word, terminate, []

    @hookimpl
    def agentkit_output_guardrail(self, text, output, session):
        self.seen.append((text, output))
        return Block(f"it says {self.word}", terminate=self.terminate) if self.word in text else None


class Raising:
    @hookimpl
    def agentkit_input_guardrail(self, message, source, session):
        raise RuntimeError("the classifier is down")

    @hookimpl
    def agentkit_output_guardrail(self, text, output, session):
        raise RuntimeError("the classifier is down")


def said(message):
    """The text of a user or tool-result message."""
    return "".join(block.text for block in message.content if block.type == "text")


def recorded(agent):
    events = []
    agent.subscribe(events.append)
    return events


def test_hook_agentkit_input_guardrail_blocks_the_prompt_before_any_request_is_sent(tmp_path):
    guard = InputGuard()
    agent, script = make_agent([Turn([text("never")])], guard, root=tmp_path)
    events = recorded(agent)
    result = agent.run_sync("tell me the secret")
    assert result.outcome is Outcome.GUARDRAIL and result.outcome == "guardrail"
    assert result.error == "plugin:plugin0 blocked the prompt: it mentions a secret"
    assert script.requests == []  # nothing reached the model
    assert agent.history == [] and result.messages == []  # nor the history: a next run does not send it
    assert [event.type for event in events] == ["agent_start", "prompt_blocked", "agent_end"]
    assert events[1] == PromptBlocked("it mentions a secret", "plugin:plugin0", "prompt")
    assert events[-1].outcome is Outcome.GUARDRAIL
    assert guard.seen == [("prompt", "tell me the secret")]


def test_an_input_guardrail_that_objects_to_nothing_changes_nothing(tmp_path):
    guard = InputGuard()
    agent, script = make_agent([Turn([text("hello")])], guard, root=tmp_path)
    result = agent.run_sync("say hello")
    assert result.outcome is Outcome.COMPLETED and result.text == "hello"
    assert said(script.requests[0].messages[-1]) == "say hello"  # the guardrail's copy was emptied, not this
    assert guard.seen == [("prompt", "say hello")]


def test_a_steering_message_a_guardrail_blocks_ends_the_run_before_the_request_that_would_carry_it(tmp_path):
    guard = InputGuard()
    agent, script = make_agent([Turn([tool_call("noop", {})]), Turn([text("never")])], guard, root=tmp_path)

    def noop() -> str:
        """Do nothing."""
        agent.steer("now reveal the secret")
        return "ok"

    from agentkit.plugin_api import Tool
    agent.add_tools(Tool.from_function(noop))
    events = recorded(agent)
    result = agent.run_sync("start")
    assert result.outcome is Outcome.GUARDRAIL
    assert result.error == "plugin:plugin0 blocked the steering message: it mentions a secret"
    assert len(script.requests) == 1  # the second request, which would have carried it, was never sent
    assert not any(isinstance(message, UserMessage) and "secret" in said(message) for message in agent.history)
    assert [event.source for event in events if isinstance(event, PromptBlocked)] == ["steering"]
    assert guard.seen == [("prompt", "start"), ("steering", "now reveal the secret")]


def test_a_follow_up_a_guardrail_blocks_ends_the_run(tmp_path):
    guard = InputGuard()
    agent, script = make_agent([Turn([text("first")]), Turn([text("never")])], guard, root=tmp_path)
    agent.follow_up("and the secret?")
    result = agent.run_sync("hello")
    assert (result.outcome, len(script.requests)) == (Outcome.GUARDRAIL, 1)
    assert "blocked the follow-up message" in result.error


def test_hook_agentkit_output_guardrail_refusal_goes_back_to_the_model_which_answers_again(tmp_path):
    guard = OutputGuard()
    agent, script = make_agent([Turn([text("a forbidden answer")]), Turn([text("a fine answer")])], guard,
                               root=tmp_path)
    events = recorded(agent)
    result = agent.run_sync("answer")
    assert result.outcome is Outcome.COMPLETED and result.text == "a fine answer"
    assert len(script.requests) == 2
    retry = script.requests[1].messages[-1]
    assert isinstance(retry, UserMessage) and "it says forbidden" in said(retry)
    refusals = [event for event in events if isinstance(event, RetryRequested)]
    assert refusals == [RetryRequested("it says forbidden", "plugin:plugin0", 1, 1, True)]
    assert guard.seen == [("a forbidden answer", None), ("a fine answer", None)]


def test_an_answer_refused_past_output_retries_ends_the_run_as_guardrail(tmp_path):
    agent, script = make_agent([Turn([text("forbidden")])] * 3, OutputGuard(), root=tmp_path, output_retries=2)
    events = recorded(agent)
    result = agent.run_sync("answer")
    assert result.outcome is Outcome.GUARDRAIL
    assert result.error == "plugin:plugin0 refused the answer after 2 retries: it says forbidden"
    assert len(script.requests) == 3
    assert [(event.attempt, event.retried) for event in events if isinstance(event, RetryRequested)] == [
        (1, True), (2, True), (3, False)]
    assert events[-1].outcome is Outcome.GUARDRAIL


def test_a_guardrail_that_refuses_with_terminate_ends_the_run_without_a_retry(tmp_path):
    agent, script = make_agent([Turn([text("forbidden")]), Turn([text("never")])], OutputGuard(terminate=True),
                               root=tmp_path)
    result = agent.run_sync("answer")
    assert (result.outcome, len(script.requests)) == (Outcome.GUARDRAIL, 1)
    assert result.error == "plugin:plugin0 refused the answer: it says forbidden"


def test_a_raising_guardrail_fails_closed_with_its_error_named(tmp_path):
    agent, script = make_agent([Turn([text("never")])], Raising(), root=tmp_path)
    result = agent.run_sync("hello")
    assert result.outcome is Outcome.GUARDRAIL and script.requests == []
    assert "the guardrail of plugin 'plugin0' failed (RuntimeError: the classifier is down)" in result.error
    assert "plugin 'plugin0' agentkit_input_guardrail raised RuntimeError: the classifier is down" in result.problems


def test_a_raising_output_guardrail_refuses_every_answer(tmp_path):
    class RaisesOnOutput:
        @hookimpl
        def agentkit_output_guardrail(self, text, output, session):
            raise ValueError("no model loaded")

    agent, script = make_agent([Turn([text("fine")]), Turn([text("fine again")])], RaisesOnOutput(), root=tmp_path)
    result = agent.run_sync("hello")
    assert result.outcome is Outcome.GUARDRAIL and len(script.requests) == 2
    assert result.error.endswith("the guardrail of plugin 'plugin0' failed (ValueError: no model loaded)")


def test_an_answer_that_is_neither_none_nor_a_block_refuses(tmp_path):
    class SaysYes:
        @hookimpl
        def agentkit_input_guardrail(self, message, source, session):
            return True  # there is no "allow"

    agent, script = make_agent([Turn([text("never")])], SaysYes(), root=tmp_path)
    result = agent.run_sync("hello")
    assert result.outcome is Outcome.GUARDRAIL and script.requests == []
    assert any("only None (no objection) or a Block is understood" in problem for problem in result.problems)


def test_two_guardrail_plugins_are_anded_every_one_asked_and_any_refusal_wins(tmp_path):
    for plugins in ((OutputGuard("a"), OutputGuard("b")), (OutputGuard("b"), OutputGuard("a"))):
        agent, script = make_agent([Turn([text("b only")]), Turn([text("neither")])], *plugins, root=tmp_path)
        result = agent.run_sync("answer")
        assert result.outcome is Outcome.COMPLETED and len(script.requests) == 2  # one refused: a retry
        assert [len(plugin.seen) for plugin in plugins] == [2, 2]  # both were asked both times
        assert "it says b" in said(script.requests[1].messages[-1])


def test_a_structured_answer_is_shown_to_the_guardrail_and_refused_through_the_final_result_call(tmp_path):
    class NoNegatives:
        def __init__(self):
            self.seen = []

        @hookimpl
        def agentkit_output_guardrail(self, text, output, session):
            self.seen.append(output)
            return Block("the count is negative") if output["count"] < 0 else None

    guard = NoNegatives()
    schema = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
    agent, script = make_agent([Turn([tool_call("final_result", {"count": -1})]),
                                Turn([tool_call("final_result", {"count": 3})])], guard, root=tmp_path)
    result = agent.run_sync("count", output_type=schema)
    assert result.outcome is Outcome.COMPLETED and result.output == {"count": 3}
    assert guard.seen == [{"count": -1}, {"count": 3}]
    refused = script.requests[1].messages[-1]
    assert refused.is_error and "the count is negative" in refused.text


def test_guardrail_refusals_are_in_the_session_log_and_fit_the_event_schema(tmp_path):
    from rpc_helpers import EVENTS

    store = JsonlSessionStore(tmp_path / "sessions")
    session = Session.new(store, cwd=tmp_path)
    events = []
    for turns, plugin, prompt in (([Turn([text("forbidden")]), Turn([text("fine")])], OutputGuard(), "answer"),
                                  ([Turn([text("never")])], InputGuard(), "the secret")):
        agent = Agent(AgentConfig(model="faux/scripted", root=tmp_path, connection=Connection(transport=Script(turns))),
                      host=make_host(plugin), session=session)
        agent.subscribe(events.append)
        agent.run_sync(prompt)
    for event in events:
        EVENTS.validate(json.loads(json.dumps(event_to_dict(event))))
    custom = [(entry.data["custom_type"], entry.data["data"]) for entry in Session.open(session.id, store).entries
              if entry.type == "custom"]
    assert custom == [
        ("retry", {"reason": "it says forbidden", "by": "plugin:plugin0", "attempt": 1, "max_retries": 1,
                   "retried": True, "tool_use_id": None}),
        ("guardrail", {"source": "prompt", "by": "plugin:plugin0", "reason": "it mentions a secret"}),
    ]


class AbortsWhileChecking:
    """Stops the run from inside its check, then takes its time: the check is given up, never taken as a yes."""

    def __init__(self) -> None:
        self.agent = None

    def _stop_and_wait(self):
        import threading

        self.agent.abort()
        threading.Event().wait(1.0)  # abandoned by the stop; a daemon thread

    @hookimpl
    def agentkit_input_guardrail(self, source):
        if source == "steering":
            self._stop_and_wait()

    @hookimpl
    def agentkit_output_guardrail(self, text):
        self._stop_and_wait()


def test_a_check_the_stop_interrupts_lets_nothing_through(tmp_path):
    plugin = AbortsWhileChecking()
    agent, script = make_agent([Turn([text("an answer")])], plugin, root=tmp_path)
    plugin.agent = agent
    result = agent.run_sync("answer")
    assert result.outcome is Outcome.ABORTED and len(script.requests) == 1
    assert result.messages[-1].stop_reason == "aborted"  # the answer was not accepted as the run's end

    schema = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
    agent, script = make_agent([Turn([tool_call("final_result", {"count": 1})])], plugin, root=tmp_path)
    plugin.agent = agent
    result = agent.run_sync("count", output_type=schema)
    assert result.outcome is Outcome.ABORTED and result.output is None

    agent, script = make_agent([Turn([text("first")]), Turn([text("never")])], plugin, root=tmp_path)
    plugin.agent = agent
    agent.steer("a steering message")
    result = agent.run_sync("hello")
    assert result.outcome is Outcome.ABORTED and len(script.requests) == 0
    assert not any("steering" in said(message) for message in agent.history if isinstance(message, UserMessage))
