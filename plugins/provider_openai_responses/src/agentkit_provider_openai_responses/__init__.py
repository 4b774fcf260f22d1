"""The OpenAI Responses wire (``openai-responses``) for agentkit.

A pure codec, separate from Chat Completions: :class:`OpenAIResponses`
encodes a canonical request into a stateless ``POST /responses`` body and
decodes the streamed events (or the whole response) into canonical events.
The tool-call identity (``call_id`` and item id) and reasoning items (id and
encrypted content) are kept in canonical blocks as ``_ids`` describes, so a
transcript replays without any server-side state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from agentkit.plugin_api import (
    CredentialKind,
    Provider,
    ProviderRequest,
    StreamDecoder,
    WireRequest,
    hookimpl,
)
from agentkit.plugin_api.codec import CodecProvider

from ._catalog import API, BASE_URL, CATALOG, VENDOR
from ._conformance import ResponsesResponder
from ._decode import ResponsesDecoder, usage_from_wire
from ._encode import ERROR_PREFIX, INCLUDE_REASONING, ResponsesEncoder, input_items
from ._ids import CALL_ID_SEPARATOR, ReasoningRef, join_call_id, split_call_id

__all__ = [
    "API",
    "BASE_URL",
    "CALL_ID_SEPARATOR",
    "ERROR_PREFIX",
    "INCLUDE_REASONING",
    "VENDOR",
    "OpenAIResponses",
    "ReasoningRef",
    "agentkit_register_providers",
    "input_items",
    "join_call_id",
    "split_call_id",
    "usage_from_wire",
]


class OpenAIResponses(CodecProvider):
    """The ``openai-responses`` provider.

    Request options it reads (``ProviderRequest.options``):

    * ``strict_tools`` (bool): send tools with ``strict: true``; the schemas
      must then follow OpenAI's strict rules.
    * ``reasoning_summary`` (``"auto"``, ``"concise"`` or ``"detailed"``): ask
      for reasoning summaries, which become the thinking text. Off by default:
      OpenAI gives summaries only to verified organizations.
    * ``extra_body`` (mapping): fields merged into the body last, for
      parameters this codec does not model (``service_tier``, ``text``...).
    """

    api: ClassVar[str] = API
    models = CATALOG
    #: Renders canonical responses as this wire's events, for the conformance suite.
    conformance_responder: ClassVar[ResponsesResponder] = ResponsesResponder()
    credential_env: ClassVar[Sequence[tuple[str, CredentialKind]]] = (
        ("OPENAI_API_KEY", "api_key"),
    )

    def __init__(self) -> None:
        self._encoder = ResponsesEncoder()

    def encode(self, request: ProviderRequest) -> WireRequest:
        return self._encoder.encode(request)

    def decoder(self, request: ProviderRequest) -> StreamDecoder:
        model = request.model
        return ResponsesDecoder(provider=model.vendor, api=self.api, model=model.id)


@hookimpl
def agentkit_register_providers(register: Callable[[Provider], None]) -> None:
    """Register the ``openai-responses`` provider."""
    register(OpenAIResponses())
