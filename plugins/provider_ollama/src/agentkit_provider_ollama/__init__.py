"""Ollama's native chat wire (``ollama-chat``) for agentkit.

A pure codec: :class:`OllamaChat` encodes a canonical request into a
``POST /api/chat`` body (JSON bytes, serialized incrementally across turns)
and decodes the NDJSON stream, or a whole response, into canonical events.
The host does the HTTP, the NDJSON framing and the JSON decoding.

This wire carries no tool-call ids (results pair with calls by position),
sends tool arguments as JSON objects and reports failures inside a 200
response; see :mod:`agentkit_provider_ollama._decode` for how each is met.

Request options (``ProviderRequest.options``) this wire reads:

* ``num_ctx``, ``seed``, ``top_k``, ``top_p``, ``min_p``, ``stop``,
  ``repeat_penalty``: copied into the wire's ``options`` (a catalog row may
  set the same names in ``ModelInfo.options``; the request wins);
* ``keep_alive``: how long the server keeps the model loaded (``"5m"``, ``0``);
* ``extra_body``: a mapping merged into the body last, for fields not
  modelled here (``format``...); it cannot replace the model, messages or tools.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from agentkit.plugin_api import Provider, ProviderRequest, StreamDecoder, WireRequest, hookimpl
from agentkit.plugin_api.codec import CodecProvider

from ._catalog import API, CATALOG, CLOUD_BASE_URL, LOCAL_BASE_URL
from ._conformance import OllamaResponder
from ._decode import (
    DONE_REASONS,
    THINKING_SIGNATURE,
    ChatDecoder,
    argument_text,
    synthesized_call_id,
)
from ._encode import ERROR_PREFIX, PATH, ChatEncoder, wire_arguments

__all__ = [
    "API",
    "CLOUD_BASE_URL",
    "DONE_REASONS",
    "ERROR_PREFIX",
    "LOCAL_BASE_URL",
    "PATH",
    "THINKING_SIGNATURE",
    "OllamaChat",
    "agentkit_register_providers",
    "argument_text",
    "synthesized_call_id",
    "wire_arguments",
]


class OllamaChat(CodecProvider):
    """The ``ollama-chat`` provider.

    A local server needs no credential (``credential_env`` is empty); rows of
    the hosted API (``ollama-cloud/*``) name ``OLLAMA_API_KEY`` in their own
    ``options["credential_env"]``, and the key travels as a bearer token.
    """

    api: ClassVar[str] = API
    models = CATALOG
    #: Renders canonical responses as this wire's events, for the conformance suite.
    conformance_responder: ClassVar[OllamaResponder] = OllamaResponder()

    def __init__(self) -> None:
        self._encoder = ChatEncoder()

    def encode(self, request: ProviderRequest) -> WireRequest:
        return self._encoder.encode(request)

    def decoder(self, request: ProviderRequest) -> StreamDecoder:
        model = request.model
        return ChatDecoder(
            provider=model.vendor,
            api=self.api,
            model=model.id,
            # The response's position in its transcript names it: ids derived
            # from it are the same whether the response streamed or not.
            id_salt=f"{model.key}:{len(request.messages)}",
        )


@hookimpl
def agentkit_register_providers(register: Callable[[Provider], None]) -> None:
    """Register the ``ollama-chat`` provider."""
    register(OllamaChat())
