"""The Gemini ``generateContent`` wire (``google-generative-ai``) for agentkit.

A pure codec: :meth:`GeminiGenerateContent.encode` builds the request (path
with the model, and the body as JSON bytes, serialized incrementally across
turns) and :meth:`GeminiGenerateContent.decoder` turns the response (an SSE
stream or a whole body) into canonical events. The host does the HTTP, the
SSE framing and the JSON decoding.

Request options (``ProviderRequest.options``) this wire reads:

* ``stop_sequences``: a list of strings, sent as ``generationConfig.stopSequences``;
* ``extra_body`` (mapping): top-level body fields merged in last, for what this
  codec does not model (``safetySettings``, ``cachedContent``...);
  ``generationConfig`` given there replaces the codec's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from agentkit.plugin_api import (
    Credential,
    CredentialKind,
    Provider,
    ProviderRequest,
    StreamDecoder,
    WireRequest,
    hookimpl,
)
from agentkit.plugin_api.codec import CodecProvider

from ._catalog import API, BASE_URL, CATALOG, VENDOR
from ._conformance import GeminiResponder
from ._decode import FINISH_REASONS, GeminiDecoder, arguments_text, usage_from_wire
from ._encode import Encoder, stream_path, whole_path
from ._ids import SYNTHESIZED_PREFIX, UNSIGNED_THOUGHT, carrier, is_carrier, synthesized_id
from ._schema import DROPPED_KEYWORDS, parameters_schema

__all__ = [
    "API",
    "BASE_URL",
    "DROPPED_KEYWORDS",
    "FINISH_REASONS",
    "SYNTHESIZED_PREFIX",
    "UNSIGNED_THOUGHT",
    "VENDOR",
    "GeminiGenerateContent",
    "agentkit_register_providers",
    "arguments_text",
    "carrier",
    "is_carrier",
    "parameters_schema",
    "stream_path",
    "synthesized_id",
    "usage_from_wire",
    "whole_path",
]


class GeminiGenerateContent(CodecProvider):
    """The ``google-generative-ai`` provider."""

    api: ClassVar[str] = API
    models = CATALOG
    #: Renders canonical responses as this wire's events, for the conformance suite.
    conformance_responder: ClassVar[GeminiResponder] = GeminiResponder()
    credential_env: ClassVar[Sequence[tuple[str, CredentialKind]]] = (
        ("GEMINI_API_KEY", "api_key"),
        ("GOOGLE_API_KEY", "api_key"),
    )
    #: Ids from other wires are rewritten to this before they are sent.
    tool_call_id_rule: ClassVar[tuple[str, int]] = ("[A-Za-z0-9_-]", 64)

    def __init__(self) -> None:
        self._encoder = Encoder()

    def auth_headers(self, credential: Credential) -> dict[str, str]:
        """A key travels in ``x-goog-api-key``; an OAuth or bearer token as ``Authorization``."""
        if credential.kind == "api_key":
            return {"x-goog-api-key": credential.value}
        return {"Authorization": f"Bearer {credential.value}"}

    def encode(self, request: ProviderRequest) -> WireRequest:
        return self._encoder.encode(request)

    def decoder(self, request: ProviderRequest) -> StreamDecoder:
        model = request.model
        return GeminiDecoder(
            provider=model.vendor or VENDOR,
            model=model.id,
            id_salt=f"{model.key}:{len(request.messages)}",
        )


@hookimpl
def agentkit_register_providers(register: Callable[[Provider], None]) -> None:
    """Register the ``google-generative-ai`` codec."""
    register(GeminiGenerateContent())
