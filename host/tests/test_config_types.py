"""``AgentConfig`` says in its annotations what each collaborator must be, so a checker holds it."""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from typing import Any

import httpx
import pytest

from agentkit.host import Agent, AgentConfig, ConfigError
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
    hints = typing.get_type_hints(AgentConfig)
    assert hints["transport"] == httpx.AsyncBaseTransport | None
    assert hints["retry"] == RetryPolicy | None
    assert hints["credential_store"] == CredentialStore | None
    assert hints["response_limits"] == ResponseLimits | None
    assert hints["extra_tools"] == Sequence[Tool]


def test_no_field_is_typed_any():
    hints = typing.get_type_hints(AgentConfig)
    assert [name for name, hint in hints.items() if _open_ended(hint)] == []


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("transport", "http://127.0.0.1:8080", "an httpx.AsyncBaseTransport"),
        ("retry", 3, "a RetryPolicy"),
        ("credential_store", {"anthropic": "key"}, "a CredentialStore"),
        ("response_limits", {"text_bytes": 10}, "a ResponseLimits"),
    ],
)
def test_a_collaborator_of_the_wrong_type_is_refused_naming_the_type(field, value, expected):
    # Found when the agent is built, not as an AttributeError in the middle of a request.
    message = rf"AgentConfig\.{field} must be {expected} or None, got {type(value).__name__}"
    with pytest.raises(ConfigError, match=message):
        Agent(AgentConfig(model="faux/scripted", **{field: value}))


def test_an_extra_tool_that_is_not_a_tool_is_refused_naming_the_fix():
    def shout(text: str) -> str:
        return text.upper()

    with pytest.raises(ConfigError, match=r"AgentConfig\.extra_tools\[0\] must be a Tool.*Tool\.from_function"):
        Agent(AgentConfig(model="faux/scripted", extra_tools=[shout]))
