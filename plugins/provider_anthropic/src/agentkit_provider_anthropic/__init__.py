"""The Anthropic Messages wire (``anthropic-messages``) for agentkit.

A pure codec: :meth:`AnthropicMessages.encode` builds the ``POST /v1/messages``
body (as JSON bytes, serialized incrementally across turns) and
:meth:`AnthropicMessages.decoder` turns the response (a stream or a whole
body) into canonical events. The host does the HTTP, the SSE framing and the
JSON decoding.

Request options (``ProviderRequest.options``) this wire reads:

* ``cache_retention``: ``"short"`` (default, 5-minute ``cache_control``
  breakpoints), ``"long"`` (1 hour) or ``"none"`` (no breakpoints);
* ``stop_sequences``: a list of strings, sent as the wire's field.
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

from ._catalog import API, CATALOG, VENDOR
from ._conformance import AnthropicResponder
from ._decode import STOP_REASONS, AnthropicDecoder
from ._encode import API_VERSION, PATH, Encoder

__all__ = [
    "API",
    "API_VERSION",
    "OAUTH_BETA",
    "PATH",
    "STOP_REASONS",
    "AnthropicMessages",
    "agentkit_register_providers",
]

#: The beta an OAuth access token needs on the Messages API.
OAUTH_BETA = "oauth-2025-04-20"


class AnthropicMessages(CodecProvider):
    """The ``anthropic-messages`` provider."""

    api: ClassVar[str] = API
    models = CATALOG
    #: Renders canonical responses as this wire's events, for the conformance suite.
    conformance_responder: ClassVar[AnthropicResponder] = AnthropicResponder()
    #: What tool-call ids from another model are rewritten to: Anthropic documents tool_use ids as ^[a-zA-Z0-9_-]+$.
    tool_call_id_rule: ClassVar[tuple[str, int]] = ("[A-Za-z0-9_-]", 64)
    credential_env: ClassVar[Sequence[tuple[str, CredentialKind]]] = (
        ("ANTHROPIC_AUTH_TOKEN", "bearer"),
        ("ANTHROPIC_OAUTH_TOKEN", "oauth"),
        ("ANTHROPIC_API_KEY", "api_key"),
    )

    def __init__(self) -> None:
        self._encoder = Encoder()

    def auth_headers(self, credential: Credential) -> dict[str, str]:
        """``x-api-key`` for a key; ``Authorization: Bearer`` for tokens (OAuth adds its beta).

        The ``anthropic-version`` is the request's (see :meth:`encode`), not the credential's.
        """
        headers: dict[str, str] = {}
        if credential.kind == "api_key":
            headers["x-api-key"] = credential.value
        else:
            headers["Authorization"] = f"Bearer {credential.value}"
            if credential.kind == "oauth":
                headers["anthropic-beta"] = OAUTH_BETA
        return headers

    def encode(self, request: ProviderRequest) -> WireRequest:
        return self._encoder.encode(request)

    def decoder(self, request: ProviderRequest) -> StreamDecoder:
        return AnthropicDecoder(
            provider=request.model.vendor or VENDOR, api=API, model=request.model.id
        )


@hookimpl
def agentkit_register_providers(register: Callable[[Provider], None]) -> None:
    """Register the ``anthropic-messages`` codec."""
    register(AnthropicMessages())
