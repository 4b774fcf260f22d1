"""The OpenAI Chat Completions wire (``openai-completions``) for agentkit.

A pure codec: :class:`OpenAICompletions` encodes a canonical request into a
``POST /chat/completions`` body and decodes the streamed chunks (or the whole
response) into canonical events. One provider serves OpenAI and the
OpenAI-compatible vendors in its catalog (OpenRouter, DeepSeek, Groq, a local
server), each through a named :class:`CompatProfile`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar

from agentkit.plugin_api import (
    CredentialKind,
    ModelInfo,
    Provider,
    ProviderRequest,
    StreamDecoder,
    WireRequest,
    hookimpl,
)
from agentkit.plugin_api.codec import CodecProvider

from ._catalog import API, CATALOG
from ._compat import PROFILES, CompatProfile, profile_for
from ._decode import CompletionsDecoder, usage_from_wire
from ._encode import ERROR_PREFIX, CompletionsEncoder, wire_tool_call_id

if TYPE_CHECKING:
    from ._conformance import OpenAICompletionsResponder

__all__ = [
    "ERROR_PREFIX",
    "PROFILES",
    "CompatProfile",
    "OpenAICompletions",
    "agentkit_register_providers",
    "profile_for",
    "usage_from_wire",
    "wire_tool_call_id",
]


class _ConformanceResponder:
    """:attr:`OpenAICompletions.conformance_responder`, loaded when first read: only the
    conformance suite reads it, and a process that serves the wire need not load it."""

    def __get__(self, instance: object, owner: type | None = None) -> OpenAICompletionsResponder:
        from ._conformance import RESPONDER

        return RESPONDER


class OpenAICompletions(CodecProvider):
    """The ``openai-completions`` provider.

    Request options it reads (``ProviderRequest.options``):

    * ``strict_tools`` (bool): mark tool definitions ``strict`` where the
      profile supports it; the schemas must then follow OpenAI's strict rules.
    * ``extra_body`` (mapping): fields merged into the body last, for vendor
      parameters this codec does not model (e.g. OpenRouter's ``provider``).
    """

    api: ClassVar[str] = API
    models = CATALOG
    #: Renders canonical responses as this wire's events, for the conformance suite.
    conformance_responder = _ConformanceResponder()
    #: The provider-wide key; rows of other vendors name theirs in
    #: ``ModelInfo.options["credential_env"]``, which takes precedence.
    #: What tool-call ids from another model are rewritten to: OpenAI refuses ids past 40 characters (string_above_max_length); the narrow alphabet costs nothing.
    tool_call_id_rule: ClassVar[tuple[str, int]] = ("[A-Za-z0-9_-]", 40)
    credential_env: ClassVar[Sequence[tuple[str, CredentialKind]]] = (
        ("OPENAI_API_KEY", "api_key"),
    )

    def __init__(self) -> None:
        self._encoder = CompletionsEncoder()
        # The profile of the model asked for last (a catalog row is frozen): every request
        # asks twice, to encode and to decode, and a session asks for one model.
        self._profile: tuple[ModelInfo, CompatProfile] | None = None

    def _profile_of(self, model: ModelInfo) -> CompatProfile:
        kept = self._profile
        if kept is None or kept[0] is not model:
            kept = self._profile = (model, profile_for(model))
        return kept[1]

    def encode(self, request: ProviderRequest) -> WireRequest:
        return self._encoder.encode(request, self._profile_of(request.model))

    def decoder(self, request: ProviderRequest) -> StreamDecoder:
        model = request.model
        return CompletionsDecoder(
            provider=model.vendor,
            api=self.api,
            model=model.id,
            profile=self._profile_of(model),
            id_salt=f"{model.key}:{len(request.messages)}",
        )


@hookimpl
def agentkit_register_providers(register: Callable[[Provider], None]) -> None:
    """Register the ``openai-completions`` provider."""
    register(OpenAICompletions())
