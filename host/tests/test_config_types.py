"""``AgentConfig`` says in its annotations what each collaborator must be, so a checker holds it."""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from agentkit.host import AgentConfig
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
