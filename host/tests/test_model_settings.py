"""Tool choice and sampling settings: set on the agent or per run, they reach the wire, and a
forced tool choice cannot keep the model calling tools for ever."""

from __future__ import annotations

import json

import httpx
import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent, make_host

from agentkit.host import (
    Agent,
    AgentConfig,
    ConfigError,
    Connection,
    Limits,
    ModelSettings,
    Outcome,
)
from agentkit.plugin_api import Tool


def _clock(_args: dict) -> str:
    return "12:00"


CLOCK = Tool("clock", "The time.", {"type": "object", "properties": {}}, _clock)
FORCING = ("required", "clock")


class ObedientModel(httpx.AsyncBaseTransport):
    """A scripted model that calls ``clock`` whenever the request forces a tool, and answers otherwise."""

    def __init__(self) -> None:
        self.calls = Script([Turn([tool_call("clock", {})])] * 20)
        self.answers = Script([Turn([text("It is noon.")])] * 20)
        self.choices: list[str | None] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        choice = json.loads(await request.aread())["tool_choice"]
        self.choices.append(choice)
        return await (self.calls if choice in FORCING else self.answers).handle_async_request(request)


def _obeyed_by(model: ObedientModel, **config) -> Agent:
    return Agent(AgentConfig(model="faux/scripted", tools=["clock"], connection=Connection(transport=model),
                             **config),
                 host=make_host(ToolsPlugin(CLOCK)))


def _body(script: Script, index: int = 0) -> dict:
    return script.requests[index].body


def test_sampling_settings_of_the_config_reach_the_wire():
    agent, script = make_agent([Turn([text("ok")])], tools=[],
                               settings=ModelSettings(max_tokens=99, temperature=0.5, top_p=0.9, top_k=40,
                                                      stop_sequences=["END"], seed=7))
    assert agent.run_sync("hi").outcome is Outcome.COMPLETED
    body = _body(script)
    assert (body["max_tokens"], body["temperature"], body["top_p"], body["top_k"], body["stop_sequences"],
            body["seed"]) == (99, 0.5, 0.9, 40, ["END"], 7)


def test_unset_settings_are_not_sent():
    agent, script = make_agent([Turn([text("ok")])], tools=[])
    agent.run_sync("hi")
    assert not {"top_p", "top_k", "stop_sequences", "seed"} & set(_body(script))


def test_run_settings_override_the_config_for_that_run_only():
    agent, script = make_agent([Turn([text("one")]), Turn([text("two")])], tools=[],
                               settings=ModelSettings(temperature=0.5, seed=1))
    settings: ModelSettings = {"temperature": 0.0, "top_k": 3, "tool_choice": "none"}
    agent.run_sync("first", settings=settings)
    agent.run_sync("second")
    first, second = _body(script, 0), _body(script, 1)
    assert (first["temperature"], first["top_k"], first["seed"], first["tool_choice"]) == (0.0, 3, 1, "none")
    assert (second["temperature"], second.get("top_k"), second["seed"], second["tool_choice"]) == (0.5, None, 1, None)


def test_an_unknown_run_setting_is_refused_before_the_run_starts():
    agent, script = make_agent([Turn([text("ok")])], tools=[])
    with pytest.raises(ConfigError, match="'temprature'"):
        agent.run_sync("hi", settings={"temprature": 0.2})  # type: ignore[typeddict-unknown-key]
    assert script.request_count == 0


@pytest.mark.parametrize("choice", FORCING)
@pytest.mark.parametrize("where", ["config", "run"])
def test_a_forced_tool_choice_applies_to_the_first_request_only(choice, where):
    model = ObedientModel()
    config = {"settings": ModelSettings(tool_choice=choice)} if where == "config" else {}
    agent = _obeyed_by(model, limits=Limits(max_turns=10), **config)
    result = agent.run_sync("What time is it?", settings={"tool_choice": choice} if where == "run" else None)
    assert result.outcome is Outcome.COMPLETED and result.text == "It is noon."
    assert model.choices == [choice, "auto"]
    assert [m.role for m in result.messages] == ["user", "assistant", "tool_result", "assistant"]


def test_each_run_forces_its_first_request_again():
    model = ObedientModel()
    agent = _obeyed_by(model, settings=ModelSettings(tool_choice="required"))
    agent.run_sync("time?")
    agent.run_sync("and now?")
    assert model.choices == ["required", "auto", "required", "auto"]


@pytest.mark.parametrize("choice", ["auto", "none"])
def test_a_choice_that_does_not_force_stays_on_every_request(choice):
    agent, script = make_agent([Turn([tool_call("clock", {})]), Turn([text("noon")])], ToolsPlugin(CLOCK),
                               tools=["clock"], settings=ModelSettings(tool_choice=choice))
    agent.run_sync("time?")
    assert [request.tool_choice for request in script.requests] == [choice, choice]


def test_a_tool_choice_naming_no_tool_ends_the_run_with_an_error_naming_it():
    agent, script = make_agent([Turn([text("ok")])], ToolsPlugin(CLOCK), tools=["clock"],
                               settings=ModelSettings(tool_choice="calendar"))
    result = agent.run_sync("hi")
    assert result.outcome is Outcome.ERROR and script.request_count == 0
    assert "tool_choice='calendar' names no tool" in (result.error or "") and "clock" in (result.error or "")


def test_a_sampling_setting_of_the_wrong_type_ends_the_run_with_an_error_naming_it():
    agent, script = make_agent([Turn([text("ok")])], tools=[], settings=ModelSettings(stop_sequences="END"))
    result = agent.run_sync("hi")
    assert result.outcome is Outcome.ERROR and script.request_count == 0
    assert "stop_sequences must be a list" in (result.error or "")
