"""Structured output: ``run(..., output_type=T)`` ends with a validated ``T`` in ``RunResult.output``.

Through the fallback every wire has: a ``final_result`` tool whose parameters
are T's schema, a forced tool call, one retry for output that does not fit,
then a clear error.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Literal, NotRequired, TypedDict

import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent, make_host

from agentkit.host import Agent, AgentConfig, ConfigError, Connection, Outcome
from agentkit.plugin_api import (
    AssistantMessage,
    OutputPartial,
    Tool,
    ToolCallEnd,
    ToolResultMessage,
    UserMessage,
)


@dataclasses.dataclass
class Address:
    city: str
    zip_code: str | None = None


@dataclasses.dataclass
class Person:
    name: str
    age: int
    addresses: list[Address]
    role: Literal["admin", "user"] = "user"


class Weather(TypedDict):
    city: str
    celsius: float
    note: NotRequired[str]


WEATHER_SCHEMA = {
    "type": "object",
    "title": "Weather",
    "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
    "required": ["city", "celsius"],
    "additionalProperties": False,
}

ADA = {"name": "Ada", "age": 36, "addresses": [{"city": "London"}], "role": "admin"}


def _final(arguments: dict | str) -> Turn:
    return Turn([tool_call("final_result", arguments)])


def test_a_dataclass_output_is_built_from_the_final_result_call():
    agent, script = make_agent([_final(ADA)], tools=[])
    result = agent.run_sync("Who?", output_type=Person)
    assert result.outcome is Outcome.COMPLETED
    assert result.output == Person("Ada", 36, [Address("London")], "admin")
    request = script.requests[0]
    assert request.tool_names == ["final_result"]
    assert request.tool_choice == "required"
    (tool,) = request.tools
    assert tool["input_schema"]["required"] == ["name", "age", "addresses"]
    assert tool["input_schema"]["properties"]["role"] == {"enum": ["admin", "user"]}


def test_a_typeddict_output_is_the_validated_dict():
    agent, _ = make_agent([_final({"city": "Oslo", "celsius": -3.5})], tools=[])
    result = agent.run_sync("Weather?", output_type=Weather)
    assert (result.outcome, result.output) == (Outcome.COMPLETED, {"city": "Oslo", "celsius": -3.5})


def test_a_json_schema_output_is_the_validated_value():
    agent, script = make_agent([_final({"city": "Oslo", "celsius": 2})], tools=[])
    result = agent.run_sync("Weather?", output_type=WEATHER_SCHEMA)
    assert result.output == {"city": "Oslo", "celsius": 2}
    assert script.requests[0].tools[0]["input_schema"] == WEATHER_SCHEMA


def test_a_final_answer_on_the_first_turn_is_audited_as_a_call_nobody_was_asked_about():
    trail = []
    agent, _ = make_agent([_final({"city": "Oslo", "celsius": 2})], tools=[], audit=trail.append)
    result = agent.run_sync("Weather?", output_type=WEATHER_SCHEMA)
    assert (result.outcome, result.output) == (Outcome.COMPLETED, {"city": "Oslo", "celsius": 2})
    calls = [record for record in trail if record.kind == "tool_call"]
    assert [(c.tool_name, c.decision, c.is_error) for c in calls] == [("final_result", "not_asked", False)]


def test_a_pydantic_model_output_is_an_instance_of_it():
    pydantic = pytest.importorskip("pydantic")

    class City(pydantic.BaseModel):
        name: str
        population: int

    agent, _ = make_agent([_final({"name": "Oslo", "population": 700000})], tools=[])
    result = agent.run_sync("City?", output_type=City)
    assert result.output == City(name="Oslo", population=700000)


def test_the_final_call_is_answered_so_the_history_stays_well_formed():
    agent, _ = make_agent([_final(ADA)], tools=[])
    result = agent.run_sync("Who?", output_type=Person)
    assistant, answer = result.messages[1:]
    assert isinstance(assistant, AssistantMessage) and isinstance(answer, ToolResultMessage)
    assert (answer.tool_use_id, answer.is_error) == (assistant.tool_calls[0].id, False)


def test_other_tools_run_first_and_every_request_forces_a_tool_call():
    clock = Tool("clock", "The time.", {"type": "object", "properties": {}}, lambda _args: "12:00")
    agent, script = make_agent([Turn([tool_call("clock", {})]), _final({"city": "Oslo", "celsius": 1})],
                               ToolsPlugin(clock), tools=["clock"])
    result = agent.run_sync("Weather?", output_type=Weather)
    assert result.outcome is Outcome.COMPLETED and result.output == {"city": "Oslo", "celsius": 1}
    assert [request.tool_choice for request in script.requests] == ["required", "required"]
    assert script.requests[1].tool_names == ["clock", "final_result"]


def test_invalid_output_is_retried_once_with_the_validation_error():
    agent, script = make_agent([_final({"city": "Oslo"}), _final({"city": "Oslo", "celsius": 4})], tools=[])
    result = agent.run_sync("Weather?", output_type=Weather)
    assert (result.outcome, result.output) == (Outcome.COMPLETED, {"city": "Oslo", "celsius": 4})
    fed_back = script.requests[1].messages[-1]
    assert isinstance(fed_back, ToolResultMessage) and fed_back.is_error
    assert "'celsius' is a required property" in fed_back.text


def test_a_text_answer_is_retried_with_a_message_asking_for_the_final_result():
    agent, script = make_agent([Turn([text("It is cold.")]), _final({"city": "Oslo", "celsius": -1})], tools=[])
    result = agent.run_sync("Weather?", output_type=Weather)
    assert result.output == {"city": "Oslo", "celsius": -1}
    asked = script.requests[1].messages[-1]
    assert isinstance(asked, UserMessage) and "final_result" in asked.content[0].text


def test_invalid_output_twice_ends_the_run_with_an_error_naming_the_problem():
    agent, script = make_agent([_final({"city": 3, "celsius": 1}), _final("{not json")], tools=[])
    result = agent.run_sync("Weather?", output_type=Weather)
    assert result.outcome is Outcome.ERROR and result.output is None
    assert "did not fit Weather after 1 retry" in result.error
    assert "not JSON" in result.error
    assert script.request_count == 2
    # Every call has its answer, the failed one included.
    calls = [m for m in result.messages if isinstance(m, AssistantMessage)]
    answers = [m for m in result.messages if isinstance(m, ToolResultMessage)]
    assert [c.tool_calls[0].id for c in calls] == [a.tool_use_id for a in answers]


def test_calls_beside_the_final_result_are_answered_but_not_run():
    ran = []
    clock = Tool("clock", "The time.", {"type": "object", "properties": {}}, lambda _args: ran.append(1) or "12:00")
    turn = Turn([tool_call("clock", {}), tool_call("final_result", {"city": "Oslo", "celsius": 0})])
    agent, _ = make_agent([turn], ToolsPlugin(clock), tools=["clock"])
    result = agent.run_sync("Weather?", output_type=Weather)
    assert result.output == {"city": "Oslo", "celsius": 0} and ran == []
    answers = [m for m in result.messages if isinstance(m, ToolResultMessage)]
    assert [(a.tool_name, a.is_error) for a in answers] == [("clock", True), ("final_result", False)]


def test_the_final_call_is_announced_like_any_call():
    agent, _ = make_agent([_final({"city": "Oslo", "celsius": 0})], tools=[])

    async def events() -> list:
        return [event async for event in agent.stream("Weather?", output_type=Weather)]

    ended = [event for event in asyncio.run(events()) if isinstance(event, ToolCallEnd)]
    assert [event.result.tool_name for event in ended] == ["final_result"]


def test_a_later_run_without_output_type_is_plain_again():
    agent, script = make_agent([_final({"city": "Oslo", "celsius": 0}), Turn([text("hi")])], tools=[])
    agent.run_sync("Weather?", output_type=Weather)
    result = agent.run_sync("Hello")
    assert (result.outcome, result.output) == (Outcome.COMPLETED, None)
    assert script.requests[1].tool_names == [] and script.requests[1].tool_choice is None


@pytest.mark.parametrize("bad", [int, "a string", {"type": "no-such-type"}])
def test_an_output_type_that_is_no_schema_is_refused_before_the_run(bad):
    agent, script = make_agent([_final({})], tools=[])
    with pytest.raises(ConfigError, match="output_type"):
        agent.run_sync("x", output_type=bad)
    assert script.request_count == 0


def test_tool_choice_none_cannot_end_a_structured_run_and_is_refused():
    agent, script = make_agent([_final({})], tools=[])
    with pytest.raises(ConfigError, match="tool_choice='none'"):
        agent.run_sync("x", output_type=Weather, settings={"tool_choice": "none"})
    assert script.request_count == 0


@pytest.mark.parametrize("choice", ["auto", "clock"])
def test_a_chosen_tool_choice_gives_way_to_the_forced_call_after_the_first_request(choice):
    clock = Tool("clock", "The time.", {"type": "object", "properties": {}}, lambda _args: "12:00")
    agent, script = make_agent([Turn([tool_call("clock", {})]), _final({"city": "Oslo", "celsius": 1})],
                               ToolsPlugin(clock), tools=["clock"])
    result = agent.run_sync("Weather?", output_type=Weather, settings={"tool_choice": choice})
    assert result.output == {"city": "Oslo", "celsius": 1}
    first = "required" if choice == "auto" else "clock"
    assert [request.tool_choice for request in script.requests] == [first, "required"]


# -- native structured output: the catalog row says the model takes the schema on its wire ----------


def _native(turns: list[Turn], *plugins: object, tools: tuple[str, ...] = ()) -> tuple[Agent, Script]:
    script = Script(turns)
    agent = Agent(AgentConfig(model="faux/structured", connection=Connection(transport=script), tools=list(tools)),
                  host=make_host(*plugins))
    return agent, script


def test_a_model_with_native_structured_output_gets_the_schema_and_answers_in_text():
    agent, script = _native([Turn([text('{"city": "Oslo", "celsius": 3}')])])
    result = agent.run_sync("Weather?", output_type=Weather)
    assert (result.outcome, result.output) == (Outcome.COMPLETED, {"city": "Oslo", "celsius": 3})
    request = script.requests[0]
    assert request.body["output_schema"]["required"] == ["city", "celsius"]
    assert request.tool_names == [] and request.tool_choice is None  # no final-answer tool, nothing forced


def test_native_output_that_does_not_fit_is_retried_once_then_fails_naming_the_problem():
    agent, script = _native([Turn([text("It is cold.")]), Turn([text('{"city": "Oslo"}')])])
    result = agent.run_sync("Weather?", output_type=Weather)
    assert result.outcome is Outcome.ERROR
    assert "did not fit Weather after 1 retry" in result.error and "'celsius' is a required property" in result.error
    asked = script.requests[1].messages[-1]
    assert isinstance(asked, UserMessage) and "not one JSON value" in asked.content[0].text


def test_native_output_retried_once_can_succeed():
    agent, _ = _native([Turn([text("{")]), Turn([text('{"city": "Oslo", "celsius": 3}')])])
    result = agent.run_sync("Weather?", output_type=Weather)
    assert result.output == {"city": "Oslo", "celsius": 3}


def test_a_native_run_still_runs_its_tools_first():
    clock = Tool("clock", "The time.", {"type": "object", "properties": {}}, lambda _args: "12:00")
    agent, script = _native([Turn([tool_call("clock", {})]), Turn([text('{"city": "Oslo", "celsius": 3}')])],
                            ToolsPlugin(clock), tools=("clock",))
    result = agent.run_sync("Weather?", output_type=Weather)
    assert result.output == {"city": "Oslo", "celsius": 3} and script.request_count == 2


# -- partial output as it streams --------------------------------------------------------------------


def _partials(agent: Agent, output_type: object) -> tuple[list, object]:
    async def events() -> list:
        return [event async for event in agent.stream("Weather?", output_type=output_type)]

    seen = asyncio.run(events())
    return [event.value for event in seen if isinstance(event, OutputPartial)], agent.last_result


@pytest.mark.parametrize("native", [False, True], ids=["final-answer-tool", "native"])
def test_the_output_streams_as_partial_values_ending_with_the_whole(native):
    answer = '{"city": "Oslo", "celsius": -3.5, "note": "windy"}'
    turn = Turn([text(answer)]) if native else Turn([tool_call("final_result", answer)])
    agent, _ = _native([turn]) if native else make_agent([turn], tools=[])
    partials, result = _partials(agent, Weather)
    assert result.output == json.loads(answer)
    assert partials[-1] == json.loads(answer)
    assert len(partials) > 1 and all(isinstance(value, dict) for value in partials)
    assert partials[0] != partials[-1]


def test_tool_arguments_and_text_that_are_not_the_output_do_not_stream_as_output():
    clock = Tool("clock", "The time.", {"type": "object", "properties": {}}, lambda _args: "12:00")
    agent, _ = make_agent([Turn([text("Let me check."), tool_call("clock", {"zone": "UTC"})]),
                           _final({"city": "Oslo", "celsius": 1})], ToolsPlugin(clock), tools=["clock"])
    partials, _ = _partials(agent, Weather)
    assert partials and partials[-1] == {"city": "Oslo", "celsius": 1}
    assert all("zone" not in value for value in partials)


@pytest.mark.parametrize(("text_so_far", "value"), [
    ('{"a": "he', {"a": "he"}),
    ('{"a": 1, "b": [1, 2', {"a": 1, "b": [1, 2]}),
    ('{"a": 1, "b":', {"a": 1}),
    ('{"a": tru', {}),
    ('["x", {"k": "v', ["x", {"k": "v"}]),
])
def test_partial_json_is_closed_where_it_was_cut(text_so_far, value):
    from agentkit.host._partial_json import partial_value

    assert partial_value(text_so_far) == value


def test_a_native_run_may_forbid_tool_calls():
    agent, script = _native([Turn([text('{"city": "Oslo", "celsius": 3}')])])
    result = agent.run_sync("Weather?", output_type=Weather, settings={"tool_choice": "none"})
    assert result.output == {"city": "Oslo", "celsius": 3} and script.requests[0].tool_choice == "none"


# -- an agent's own output type: Agent(config, output_type=T) --------------------------------------


def _agent_with_output_type(turns: list[Turn], output_type: object) -> tuple[Agent, Script]:
    script = Script(turns)
    agent = Agent(AgentConfig(model="faux/scripted", connection=Connection(transport=script), tools=[]),
                  host=make_host(), output_type=output_type)
    return agent, script


def test_an_agents_output_type_structures_every_run_not_given_its_own():
    agent, script = _agent_with_output_type(
        [_final(ADA), _final({"city": "Oslo", "celsius": 2}), Turn([text("Hello.")])], Person)
    assert agent.output_type is Person
    assert agent.run_sync("Who?").output == Person("Ada", 36, [Address("London")], "admin")
    assert agent.run_sync("Weather?", output_type=WEATHER_SCHEMA).output == {"city": "Oslo", "celsius": 2}
    assert script.requests[0].tools[0]["input_schema"]["required"] == ["name", "age", "addresses"]
    assert script.requests[1].tools[0]["input_schema"] == WEATHER_SCHEMA  # the call's own won
    plain = Agent(AgentConfig(model="faux/scripted", connection=Connection(transport=script), tools=[]),
                  host=make_host())
    assert plain.output_type is None and plain.run_sync("Hi").output is None  # no output type: as before
    assert script.requests[2].tool_names == []


def test_an_agents_output_type_reaches_streamed_and_continued_runs():
    agent, script = _agent_with_output_type(
        [Turn([text("")], stop_reason="error"), _final({"city": "Oslo", "celsius": 3}),
         _final({"city": "Bergen", "celsius": 9})], Weather)
    first = agent.run_sync("Weather?")
    assert first.outcome is Outcome.ERROR
    assert agent.continue_sync().output == {"city": "Oslo", "celsius": 3}

    async def stream() -> list[object]:
        return [event async for event in agent.stream("And Bergen?")]

    asyncio.run(stream())
    assert agent.last_result is not None and agent.last_result.output == {"city": "Bergen", "celsius": 9}
    assert [request.tool_names for request in script.requests] == [["final_result"]] * 3


@pytest.mark.parametrize("bad", [int, "a string", {"type": "no-such-type"}])
def test_an_agents_output_type_that_is_no_schema_is_refused_when_the_agent_is_made(bad):
    with pytest.raises(ConfigError, match="output_type"):
        _agent_with_output_type([], bad)
