"""The codec kit's tool choice and sampling checks, which every wire maps from."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentkit.plugin_api import ModelInfo, ProviderRequest, ToolSpec, UserMessage
from agentkit.plugin_api.codec import (
    FORCED_TOOL_CHOICE,
    SamplingRules,
    ToolChoice,
    sampling,
    tool_choice,
)
from agentkit.plugin_api.errors import UsageError

ROW = ModelInfo(vendor="acme", id="m1", api="acme", base_url="http://acme.invalid", context_window=8, max_output=4)
TOOLS = (ToolSpec("clock", "The time.", {"type": "object"}), ToolSpec("search", "Search.", {"type": "object"}))
RULES = SamplingRules("acme-wire (v2)", {"temperature": "temp", "top_p": "topP", "stop_sequences": "stop"},
                      temperature=(0.0, 1.0), max_stop_sequences=2)


def _request(model: ModelInfo = ROW, **fields) -> ProviderRequest:
    return ProviderRequest(model=model, messages=[UserMessage.text("hi")], **fields)


@pytest.mark.parametrize(("choice", "expected"), [
    (None, None), ("auto", ToolChoice("auto")), ("none", ToolChoice("none")),
    ("required", ToolChoice("required")), ("search", ToolChoice("tool", "search")),
])
def test_tool_choice_reads_modes_and_tool_names(choice, expected):
    assert tool_choice(_request(tools=TOOLS, tool_choice=choice)) == expected


def test_a_tool_choice_naming_no_tool_is_refused_naming_the_tools():
    with pytest.raises(UsageError, match=r"tool_choice='calendar' names no tool .*clock, search"):
        tool_choice(_request(tools=TOOLS, tool_choice="calendar"))


@pytest.mark.parametrize("choice", ["required", "clock"])
def test_a_forced_choice_is_refused_for_a_model_that_refuses_it(choice):
    row = ModelInfo(vendor="acme", id="m3", api="acme", base_url="http://acme.invalid", context_window=8,
                    max_output=4, refused_settings=frozenset({FORCED_TOOL_CHOICE}))
    with pytest.raises(UsageError, match=f"acme/m3 does not accept a forced tool choice \\(tool_choice='{choice}'"):
        tool_choice(_request(row, tools=TOOLS, tool_choice=choice))
    assert tool_choice(_request(row, tools=TOOLS, tool_choice="none")) == ToolChoice("none")


def test_required_without_tools_is_refused():
    with pytest.raises(UsageError, match="needs a tool"):
        tool_choice(_request(tool_choice="required"))


def test_sampling_writes_the_wire_names_in_order():
    request = _request(temperature=0.3, top_p=0.5, stop_sequences=["A", "B"])
    assert list(sampling(request, RULES).items()) == [("temp", 0.3), ("topP", 0.5), ("stop", ["A", "B"])]


@given(st.floats(allow_nan=False, allow_infinity=False), st.floats(allow_nan=False, allow_infinity=False))
def test_temperature_and_top_p_are_clamped_to_the_wire_ranges(temperature, top_p):
    body = sampling(_request(temperature=temperature, top_p=top_p), RULES)
    assert 0.0 <= body["temp"] <= 1.0 and 0.0 <= body["topP"] <= 1.0
    if 0.0 <= temperature <= 1.0:
        assert body["temp"] == temperature


@pytest.mark.parametrize("setting", [{"top_k": 5}, {"seed": 1}])
def test_a_setting_the_wire_has_no_field_for_is_refused_naming_the_wire(setting):
    (name,) = setting
    with pytest.raises(UsageError, match=rf"acme-wire \(v2\) cannot express {name}"):
        sampling(_request(**setting), RULES)


def test_a_setting_the_model_refuses_is_refused_naming_the_model():
    row = ModelInfo(vendor="acme", id="m2", api="acme", base_url="http://acme.invalid", context_window=8,
                    max_output=4, refused_settings=frozenset({"temperature"}))
    with pytest.raises(UsageError, match="acme/m2 does not accept temperature"):
        sampling(_request(row, temperature=0.2), RULES)
    assert sampling(_request(row, top_p=0.2), RULES) == {"topP": 0.2}


def test_more_stop_sequences_than_the_wire_takes_are_refused():
    with pytest.raises(UsageError, match="3 stop sequences; it takes at most 2"):
        sampling(_request(stop_sequences=["a", "b", "c"]), RULES)


@pytest.mark.parametrize("fields", [
    {"temperature": "hot"}, {"temperature": float("nan")}, {"temperature": True}, {"top_p": "x"},
    {"stop_sequences": "END"}, {"stop_sequences": ["ok", ""]}, {"stop_sequences": [3]},
])
def test_values_of_the_wrong_type_are_refused(fields):
    rules = SamplingRules("any", {name: name for name in ("temperature", "top_p", "stop_sequences")})
    with pytest.raises(UsageError):
        sampling(_request(**fields), rules)


def test_no_stop_sequences_send_none():
    rules = SamplingRules("any", {"stop_sequences": "stop"})
    assert sampling(_request(stop_sequences=()), rules) == sampling(_request(stop_sequences=None), rules) == {}


def test_top_k_and_seed_must_be_integers_and_top_k_is_at_least_one():
    rules = SamplingRules("any", {"top_k": "top_k", "seed": "seed"})
    assert sampling(_request(top_k=0, seed=-3), rules) == {"top_k": 1, "seed": -3}
    with pytest.raises(UsageError, match="top_k must be an integer"):
        sampling(_request(top_k=2.5), rules)
