"""``Retry``: output validators and tools send the model back, within their budgets."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from host_helpers import make_agent, make_host

from agentkit.host import Agent, AgentConfig, ConfigError, Connection, Outcome
from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.plugin_api import Retry, RetryRequested, Tool, ToolResultMessage, UserMessage


def said(message):
    return "".join(block.text for block in message.content if block.type == "text")


def retries_of(agent):
    seen = []
    agent.subscribe(lambda event: seen.append(event) if isinstance(event, RetryRequested) else None)
    return seen


def no_shouting(output):
    if output.isupper():
        raise Retry("do not shout")


# -- output validators ------------------------------------------------------------------


def test_a_validator_retry_sends_its_reason_to_the_model_which_answers_again(tmp_path):
    agent, script = make_agent([Turn([text("HELLO")]), Turn([text("hello")])], root=tmp_path,
                               output_validators=[no_shouting])
    seen = retries_of(agent)
    result = agent.run_sync("greet")
    assert result.outcome is Outcome.COMPLETED and result.text == "hello"
    retry = script.requests[1].messages[-1]
    assert isinstance(retry, UserMessage) and "do not shout" in said(retry)
    assert seen == [RetryRequested("do not shout", "validator", 1, 1, True)]


def test_output_retries_bounds_the_retries_then_the_run_ends_as_error(tmp_path):
    agent, script = make_agent([Turn([text("HELLO")])] * 4, root=tmp_path, output_validators=[no_shouting],
                               output_retries=3)
    seen = retries_of(agent)
    result = agent.run_sync("greet")
    assert result.outcome is Outcome.ERROR
    assert result.error == "validator refused the answer after 3 retries: do not shout"
    assert len(script.requests) == 4
    assert [(event.attempt, event.retried) for event in seen] == [(1, True), (2, True), (3, True), (4, False)]


def test_output_retries_zero_ends_at_the_first_refusal(tmp_path):
    agent, script = make_agent([Turn([text("HELLO")])] * 2, root=tmp_path, output_validators=[no_shouting],
                               output_retries=0)
    result = agent.run_sync("greet")
    assert (result.outcome, len(script.requests)) == (Outcome.ERROR, 1)


def test_an_async_validator_of_a_structured_value(tmp_path):
    seen_values = []

    async def positive(output):
        seen_values.append(output)
        await asyncio.sleep(0)
        if output["count"] <= 0:
            raise Retry("the count must be positive")

    schema = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
    agent, script = make_agent([Turn([tool_call("final_result", {"count": 0})]),
                                Turn([tool_call("final_result", {"count": 2})])],
                               root=tmp_path, output_validators=[positive])
    result = agent.run_sync("count", output_type=schema)
    assert result.outcome is Outcome.COMPLETED and result.output == {"count": 2}
    assert seen_values == [{"count": 0}, {"count": 2}]
    refused = script.requests[1].messages[-1]
    assert isinstance(refused, ToolResultMessage) and refused.is_error and "the count must be positive" in said(refused)


def test_a_structured_output_that_does_not_fit_spends_the_same_retries(tmp_path):
    schema = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}

    def never(output):
        raise Retry("not this one either")

    # One retry for the type, the second refusal (a validator's) is past output_retries=1.
    agent, _script = make_agent([Turn([tool_call("final_result", {"count": "x"})]),
                                Turn([tool_call("final_result", {"count": 1})])],
                               root=tmp_path, output_validators=[never])
    seen = retries_of(agent)
    result = agent.run_sync("count", output_type=schema)
    assert result.outcome is Outcome.ERROR and result.error.endswith("after 1 retry: not this one either")
    assert [(event.by, event.retried) for event in seen] == [("output_type", True), ("validator", False)]


def test_a_validator_that_raises_anything_else_ends_the_run_as_error_without_a_retry(tmp_path):
    def broken(output):
        raise KeyError("oops")

    agent, script = make_agent([Turn([text("hello")])] * 2, root=tmp_path, output_validators=[broken])
    result = agent.run_sync("greet")
    assert (result.outcome, len(script.requests)) == (Outcome.ERROR, 1)
    assert result.error == "output validator broken raised KeyError: 'oops'"


def test_a_validator_cannot_change_the_answer(tmp_path):
    agent, _ = make_agent([Turn([text("hello")])], root=tmp_path, output_validators=[lambda output: "replaced"])
    assert agent.run_sync("greet").text == "hello"


@pytest.mark.parametrize(("config", "message"), [
    ({"output_retries": -1}, "AgentConfig.output_retries must be a whole number, 0 or more, got -1"),
    ({"output_retries": True}, "AgentConfig.output_retries must be a whole number"),
    ({"output_validators": ["not a function"]}, "AgentConfig.output_validators[0] must be a function of the output"),
])
def test_bad_retry_settings_are_refused_when_the_agent_is_made(tmp_path, config, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        make_agent([], root=tmp_path, **config)


# -- tools ------------------------------------------------------------------------------


def picky_tools(calls):
    def lookup_sync(key: str) -> str:
        """Look a key up."""
        calls.append(key)
        if key != "good":
            raise Retry(f"no key {key!r}; the keys are lower-case words such as 'good'")
        return "found"

    async def lookup_async(key: str) -> str:
        """Look a key up."""
        return lookup_sync(key)

    return Tool.from_function(lookup_sync), Tool.from_function(lookup_async, max_retries=2)


@pytest.mark.parametrize("name", ["lookup_sync", "lookup_async"])
def test_a_tool_retry_asks_the_model_to_call_again_with_better_arguments(tmp_path, name):
    calls = []
    agent, script = make_agent([Turn([tool_call(name, {"key": "BAD"})]), Turn([tool_call(name, {"key": "good"})]),
                                Turn([text("done")])], root=tmp_path, extra_tools=list(picky_tools(calls)))
    seen = retries_of(agent)
    result = agent.run_sync("look it up")
    assert result.outcome is Outcome.COMPLETED and calls == ["BAD", "good"]
    first = script.requests[1].messages[-1]
    assert first.is_error and '"error": "retry"' in said(first) and "no key 'BAD'" in said(first)
    assert f"Call {name} again with corrected arguments." in said(first)
    max_retries = 1 if name == "lookup_sync" else 2
    call_id = script.requests[1].messages[-2].tool_calls[0].id
    assert seen == [RetryRequested("no key 'BAD'; the keys are lower-case words such as 'good'", f"tool:{name}", 1,
                                   max_retries, True, call_id)]


@pytest.mark.parametrize(("name", "max_retries"), [("lookup_sync", 1), ("lookup_async", 2)])
def test_past_max_retries_the_calls_result_is_a_clear_error_and_the_run_goes_on(tmp_path, name, max_retries):
    calls = []
    turns = [Turn([tool_call(name, {"key": "BAD"})]) for _ in range(max_retries + 1)] + [Turn([text("gave up")])]
    agent, script = make_agent(turns, root=tmp_path, extra_tools=list(picky_tools(calls)))
    seen = retries_of(agent)
    result = agent.run_sync("look it up")
    assert result.outcome is Outcome.COMPLETED and result.text == "gave up"
    last = script.requests[-1].messages[-1]
    assert last.is_error and '"error": "retries_exhausted"' in said(last)
    assert f"{name} asked for a retry {max_retries + 1} turns in a row, more than its max_retries={max_retries}" in said(last)
    assert [(event.attempt, event.retried) for event in seen] == [
        *((n, True) for n in range(1, max_retries + 1)), (max_retries + 1, False)]


def test_a_turn_without_a_retry_starts_the_count_again_and_one_turn_counts_once(tmp_path):
    calls = []
    turns = [Turn([tool_call("lookup_sync", {"key": "A"}), tool_call("lookup_sync", {"key": "B"})]),
             Turn([tool_call("lookup_sync", {"key": "good"})]),
             Turn([tool_call("lookup_sync", {"key": "C"})]),
             Turn([text("done")])]
    agent, _script = make_agent(turns, root=tmp_path, extra_tools=list(picky_tools(calls)))
    seen = retries_of(agent)
    agent.run_sync("look it up")
    assert [(event.attempt, event.retried) for event in seen] == [(1, True), (1, True), (1, True)]
    assert all('"error": "retry"' in said(message) for message in agent.history
               if isinstance(message, ToolResultMessage) and message.is_error)


def test_max_retries_zero_makes_a_retry_an_error_at_once(tmp_path):
    calls = []
    tool = dataclasses.replace(picky_tools(calls)[0], max_retries=0)
    agent, script = make_agent([Turn([tool_call("lookup_sync", {"key": "BAD"})]), Turn([text("ok")])],
                               root=tmp_path, extra_tools=[tool])
    agent.run_sync("look it up")
    assert '"error": "retries_exhausted"' in said(script.requests[1].messages[-1])


def test_max_retries_must_be_a_whole_number():
    with pytest.raises(ValueError, match="max_retries must be a whole number, 0 or more, got -1"):
        Tool("t", "T.", {"type": "object"}, lambda arguments, context: None, max_retries=-1)


def test_tool_and_output_retries_are_in_the_session_log(tmp_path):
    store = JsonlSessionStore(tmp_path / "sessions")
    session = Session.new(store, cwd=tmp_path)
    calls = []
    script = Script([Turn([tool_call("lookup_sync", {"key": "BAD"})]), Turn([text("SHOUT")]), Turn([text("ok")])])
    agent = Agent(AgentConfig(model="faux/scripted", root=tmp_path, extra_tools=list(picky_tools(calls)),
                              output_validators=[no_shouting], connection=Connection(transport=script)),
                  host=make_host(), session=session)
    agent.run_sync("go")
    logged = [entry.data["data"] for entry in Session.open(session.id, store).entries
              if entry.type == "custom" and entry.data["custom_type"] == "retry"]
    call_id = script.requests[1].messages[-2].tool_calls[0].id
    assert logged == [
        {"reason": "no key 'BAD'; the keys are lower-case words such as 'good'", "by": "tool:lookup_sync",
         "attempt": 1, "max_retries": 1, "retried": True, "tool_use_id": call_id},
        {"reason": "do not shout", "by": "validator", "attempt": 1, "max_retries": 1, "retried": True,
         "tool_use_id": None},
    ]


def test_through_run_steps_a_tool_retry_is_just_the_calls_tool_result(tmp_path):
    from agentkit.host import RunSteps

    class Steps(RunSteps):
        run_id = "run-1"

        def __init__(self):
            self.results = []

        def begin(self, run):
            pass

        async def model_request(self, send):
            return await send()

        async def tool_batch(self, steps, sequential):
            results = [await step.execute() for step in steps]
            self.results.extend(results)  # what a durable run checkpoints
            return results

        async def authorize(self, call, decide):
            return await decide()

    calls = []
    agent, _ = make_agent([Turn([tool_call("lookup_async", {"key": "BAD"})]), Turn([text("ok")])],
                          root=tmp_path, extra_tools=list(picky_tools(calls)))
    agent.run_steps = steps = Steps()
    assert agent.run_sync("go").outcome is Outcome.COMPLETED
    [result] = steps.results
    assert (result.ok, result.error) == (False, "retry") and "no key 'BAD'" in result.detail
