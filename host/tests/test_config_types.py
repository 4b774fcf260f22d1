"""``AgentConfig`` says in its annotations what each collaborator must be, so a checker holds it."""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from typing import Any

import httpx
import pytest

from agentkit.host import (
    Agent,
    AgentConfig,
    Compaction,
    ConfigError,
    Connection,
    Limits,
    ModelSettings,
    PluginRecord,
    Timeouts,
    Trust,
)
from agentkit.host.runtime import CredentialStore, ResponseLimits, RetryPolicy
from agentkit.plugin_api import Tool


def _open_ended(hint: Any) -> bool:
    """Whether ``hint`` lets anything through, other than as the values of an options mapping."""
    if hint is Any:
        return True
    if typing.get_origin(hint) in (Mapping, dict):
        return False  # options bags: JSON values, described per key in the docstring
    return any(_open_ended(arg) for arg in typing.get_args(hint))


def test_the_collaborators_have_their_own_types():
    connection = typing.get_type_hints(Connection)
    assert connection["transport"] == httpx.AsyncBaseTransport | None
    assert connection["retry"] == RetryPolicy | None
    assert connection["credential_store"] == CredentialStore | None
    assert typing.get_type_hints(Limits)["response"] == ResponseLimits | None
    assert typing.get_type_hints(AgentConfig)["extra_tools"] == Sequence[Tool]


def test_the_named_choices_and_the_model_settings_read_as_their_types():
    assert typing.get_type_hints(Compaction)["strategy"] == typing.Literal[
        "none", "turn_window", "token_window", "summarize"]
    assert typing.get_type_hints(PluginRecord)["status"] == typing.Literal["loaded", "failed", "disabled"]
    assert typing.get_type_hints(ModelSettings) == {
        "max_tokens": int | None, "temperature": float | None, "top_p": float | None, "top_k": int | None,
        "stop_sequences": Sequence[str], "seed": int | None, "tool_choice": str | None}
    assert ModelSettings.__required_keys__ == frozenset() and len(ModelSettings.__optional_keys__) == 7


@pytest.mark.parametrize("holder", [AgentConfig, Limits, Timeouts, Trust, Connection])
def test_no_field_is_typed_any(holder):
    hints = typing.get_type_hints(holder)
    assert [name for name, hint in hints.items() if _open_ended(hint)] == []


@pytest.mark.parametrize(
    ("group", "field", "value", "expected"),
    [
        (Connection, "transport", "http://127.0.0.1:8080", "an httpx.AsyncBaseTransport"),
        (Connection, "retry", 3, "a RetryPolicy"),
        (Connection, "credential_store", {"anthropic": "key"}, "a CredentialStore"),
        (Limits, "response", {"text_bytes": 10}, "a ResponseLimits"),
    ],
)
def test_a_collaborator_of_the_wrong_type_is_refused_naming_the_type(group, field, value, expected):
    # Found when the agent is built, not as an AttributeError in the middle of a request.
    message = rf"{group.__name__}\.{field} must be {expected} or None, got {type(value).__name__}"
    with pytest.raises(ConfigError, match=message):
        Agent(AgentConfig(model="faux/scripted", **{group.__name__.lower(): group(**{field: value})}))


@pytest.mark.parametrize(("name", "group"), [("limits", Limits), ("timeouts", Timeouts), ("trust", Trust),
                                             ("connection", Connection)])
def test_a_group_given_as_a_dict_is_refused_naming_the_class_to_use(name, group):
    message = rf"AgentConfig\.{name} must be a {group.__name__}, got dict: write AgentConfig\({name}={group.__name__}"
    with pytest.raises(ConfigError, match=message):
        Agent(AgentConfig(model="faux/scripted", **{name: {}}))


def test_an_unknown_model_setting_is_refused_naming_the_settings():
    with pytest.raises(ConfigError, match=r"unknown model setting.*'temprature'"):
        Agent(AgentConfig(model="faux/scripted", settings={"temprature": 0.2}))  # type: ignore[typeddict-unknown-key]


def test_an_extra_tool_that_is_not_a_tool_is_refused_naming_the_fix():
    def shout(text: str) -> str:
        return text.upper()

    with pytest.raises(ConfigError, match=r"AgentConfig\.extra_tools\[0\] must be a Tool.*Tool\.from_function"):
        Agent(AgentConfig(model="faux/scripted", extra_tools=[shout]))
