"""``AgentConfig`` in named groups, and the flat keywords of 0.1 still working for one minor version."""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import httpx
import pytest

from agentkit.host import (
    AgentConfig,
    Budget,
    ConfigError,
    Connection,
    Limits,
    ModelSettings,
    Timeouts,
    Trust,
    allow_all,
)
from agentkit.host.runtime import ResponseLimits, RetryPolicy


class NoCredentials:
    async def get(self, vendor: str) -> None:
        return None

    async def refresh(self, vendor: str, credential: Any) -> Any:
        return credential


#: One value for every flat keyword of 0.1, unlike its default, and where the groups keep it.
FLAT: dict[str, tuple[Any, str, str]] = {
    "max_turns": (7, "limits", "max_turns"),
    "budget": (Budget(turns=3), "limits", "budget"),
    "max_tool_result_chars": (500, "limits", "max_tool_result_chars"),
    "response_limits": (ResponseLimits(text_bytes=10), "limits", "response"),
    "request_timeout": (12.0, "timeouts", "request"),
    "connect_timeout": (3.0, "timeouts", "connect"),
    "read_timeout": (4.0, "timeouts", "read"),
    "tool_timeout": (5.0, "timeouts", "tool"),
    "hook_timeout": (6.0, "timeouts", "hook"),
    "run_timeout": (60.0, "timeouts", "run"),
    "trust_project": (True, "trust", "project"),
    "before_tool_call": (allow_all, "trust", "before_tool_call"),
    "transport": (httpx.MockTransport(lambda request: httpx.Response(200)), "connection", "transport"),
    "retry": (RetryPolicy(max_retries=1), "connection", "retry"),
    "credential_store": (NoCredentials(), "connection", "credential_store"),
    "provider_options": ({"headers": {"x-test": "1"}}, "connection", "provider_options"),
    "image_fetcher": (lambda url: b"", "connection", "image_fetcher"),
    "max_tokens": (99, "settings", "max_tokens"),
    "temperature": (0.5, "settings", "temperature"),
    "tool_choice": ("none", "settings", "tool_choice"),
    "top_p": (0.9, "settings", "top_p"),
    "top_k": (40, "settings", "top_k"),
    "stop_sequences": (["END"], "settings", "stop_sequences"),
    "seed": (7, "settings", "seed"),
}
CLASS = {"limits": "Limits", "timeouts": "Timeouts", "trust": "Trust", "connection": "Connection",
         "settings": "ModelSettings"}


def grouped(config: AgentConfig, group: str, key: str) -> Any:
    holder = getattr(config, group)
    return holder.get(key) if group == "settings" else getattr(holder, key)


def test_every_flat_field_of_0_1_is_covered():
    # The 0.1 fields that are no group's: what the agent is, and the collaborators that were groups already.
    kept = {"model", "root", "system_prompt", "tools", "extra_tools", "tool_options", "reasoning", "stop_policy",
            "compaction", "audit", "session_id"}
    added = {"output_retries", "output_validators"}  # 0.2: what checks the answer, beside stop_policy (decision 0056)
    assert {field.name for field in dataclasses.fields(AgentConfig)} == kept | added | set(CLASS)
    assert len(kept) + len(FLAT) == 35


@pytest.mark.parametrize("name", sorted(FLAT))
def test_a_flat_keyword_warns_naming_its_group_and_lands_there(name):
    value, group, key = FLAT[name]
    expected = f"AgentConfig({name}=...) is deprecated; use AgentConfig({group}={CLASS[group]}({key}=...))"
    with pytest.warns(DeprecationWarning, match=f"^{expected.replace('(', '[(]').replace(')', '[)]')}$") as caught:
        config = AgentConfig(model="faux/scripted", **{name: value})
    assert len(caught) == 1 and caught[0].filename == __file__  # pointed at the caller's line
    assert grouped(config, group, key) is value
    assert getattr(config, name) is value  # the flat read answers from the group


@pytest.mark.parametrize("name", sorted(FLAT))
def test_reading_a_flat_attribute_is_silent_and_reads_the_group(name):
    value, group, key = FLAT[name]
    config = AgentConfig(model="faux/scripted", **_as_group(group, key, value))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(config, name) is value


@pytest.mark.parametrize("name", sorted(FLAT))
def test_assigning_a_flat_attribute_warns_and_moves_it_into_the_group(name):
    value, group, key = FLAT[name]
    config = AgentConfig(model="faux/scripted")
    with pytest.warns(DeprecationWarning, match=rf"AgentConfig\({name}=\.\.\.\) is deprecated"):
        setattr(config, name, value)
    assert grouped(config, group, key) is value


def test_defaults_read_through_the_flat_names_as_in_0_1():
    config = AgentConfig(model="faux/scripted")
    assert (config.max_turns, config.tool_timeout, config.hook_timeout, config.run_timeout) == (50, 600.0, 30.0, None)
    assert (config.request_timeout, config.connect_timeout, config.read_timeout) == (900.0, 10.0, 300.0)
    assert (config.max_tool_result_chars, config.trust_project, config.before_tool_call) == (100_000, False, None)
    assert (config.temperature, config.stop_sequences, config.provider_options) == (None, (), {})


def test_flat_keywords_join_a_group_given_beside_them_and_win_on_the_same_field():
    with pytest.warns(DeprecationWarning):
        config = AgentConfig(model="faux/scripted", limits=Limits(max_turns=3, budget=Budget(turns=2)), max_turns=9)
    assert config.limits == Limits(max_turns=9, budget=Budget(turns=2))


def test_replace_with_a_flat_name_still_works_and_warns():
    config = AgentConfig(model="faux/scripted", timeouts=Timeouts(tool=5.0))
    with pytest.warns(DeprecationWarning, match=r"use AgentConfig\(timeouts=Timeouts\(hook=\.\.\.\)\)"):
        changed = dataclasses.replace(config, hook_timeout=1.0)
    assert changed.timeouts == Timeouts(tool=5.0, hook=1.0) and config.timeouts == Timeouts(tool=5.0)


def test_the_groups_construction_warns_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AgentConfig(model="faux/scripted", settings=ModelSettings(temperature=0.2), limits=Limits(max_turns=3),
                    timeouts=Timeouts(tool=5), trust=Trust(project=True), connection=Connection(retry=None))


def test_an_unknown_keyword_is_a_type_error_as_python_says_it():
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'max_turn'"):
        AgentConfig(model="faux/scripted", max_turn=3)  # type: ignore[call-arg]


def test_groups_are_frozen_with_defaults():
    limits = Limits()
    with pytest.raises(dataclasses.FrozenInstanceError):
        limits.max_turns = 3  # type: ignore[misc]
    assert (Timeouts().tool, Trust().project, Connection().transport) == (600.0, False, None)


def test_a_bad_value_is_refused_where_the_group_is_written():
    with pytest.raises(ConfigError, match=r"^Timeouts\.tool must be a positive number or None, got -1$"):
        Timeouts(tool=-1)
    with pytest.raises(ConfigError, match=r"^Limits\.budget must be a Budget or None, got dict$"):
        Limits(budget={"turns": 3})  # type: ignore[arg-type]


def _as_group(group: str, key: str, value: Any) -> dict[str, Any]:
    if group == "settings":
        return {"settings": {key: value}}
    kind = {"limits": Limits, "timeouts": Timeouts, "trust": Trust, "connection": Connection}[group]
    return {group: kind(**{key: value})}
