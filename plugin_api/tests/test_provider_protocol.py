"""The Provider protocol's optional members: declared with their defaults, read one way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import pytest

from agentkit.plugin_api import (
    DEFAULT_TOOL_CALL_ID_RULE,
    Credential,
    CredentialKind,
    ModelInfo,
    Provider,
    ProviderRequest,
    StreamDecoder,
    WireRequest,
    provider_member,
)


class Bare:
    """Only the required members: duck-typed, no optional one."""

    api = "bare"
    credential_env: ClassVar[Sequence[tuple[str, CredentialKind]]] = ()


class Declared(Provider):
    """Subclasses the protocol: inherits the defaults of what it leaves out."""

    api = "declared"
    credential_env: ClassVar[Sequence[tuple[str, CredentialKind]]] = ()
    tool_call_id_rule = ("[a-z]", 8)

    def auth_headers(self, credential: Credential) -> dict[str, str]:
        return {}

    def catalog(self) -> Sequence[ModelInfo]:
        return ()

    def encode(self, request: ProviderRequest) -> WireRequest:
        return WireRequest("/", {})

    def decoder(self, request: ProviderRequest) -> StreamDecoder:
        raise NotImplementedError


def test_a_provider_without_the_optional_members_gets_their_defaults():
    assert provider_member(Bare(), "tool_call_id_rule") == DEFAULT_TOOL_CALL_ID_RULE == ("[A-Za-z0-9_-]", 64)
    assert provider_member(Bare(), "conformance_responder") is None
    assert provider_member(Bare(), "script") is None


def test_a_subclass_of_the_protocol_inherits_the_same_defaults_and_keeps_what_it_sets():
    provider = Declared()
    assert provider_member(provider, "tool_call_id_rule") == ("[a-z]", 8)
    assert provider.conformance_responder is None and provider_member(provider, "conformance_responder") is None
    assert provider.script is None and provider_member(provider, "script") is None


def test_a_member_set_to_none_means_the_default():
    class Unset(Bare):
        tool_call_id_rule = None

    assert provider_member(Unset(), "tool_call_id_rule") == DEFAULT_TOOL_CALL_ID_RULE


def test_a_declared_method_is_returned_bound():
    class Scripted(Bare):
        def script(self, turns: list[Any]) -> Any:
            return ("transport", turns)

    assert provider_member(Scripted(), "script")([1]) == ("transport", [1])


def test_a_name_that_is_not_an_optional_member_is_refused():
    with pytest.raises(ValueError, match="'encode' is not an optional Provider member"):
        provider_member(Bare(), "encode")
