"""Canonical request -> Gemini ``generateContent`` request (path and body).

The transcript rules live in :mod:`._transcript`; this module adds what
surrounds ``contents``:

* The model is in the path: ``/models/{model}:streamGenerateContent?alt=sse``
  when streaming (server-sent events), ``/models/{model}:generateContent``
  otherwise (one JSON response).
* The system prompt is ``systemInstruction: {"parts": [{"text": ...}]}``.
* Tools are one ``{"functionDeclarations": [...]}`` entry, each declaration
  ``{name, description, parametersJsonSchema}`` (see :mod:`._schema`).
* ``tool_choice`` -> ``toolConfig.functionCallingConfig.mode``: ``auto`` ->
  ``AUTO``, ``none`` -> ``NONE``, ``required`` -> ``ANY``, a tool name ->
  ``ANY`` with ``allowedFunctionNames: [name]``. ``auto`` and ``none`` are
  sent even without tools (an explicit choice is never dropped); a forcing
  choice without tools is refused before sending.
* ``generationConfig``: ``maxOutputTokens``, the sampling settings
  (``temperature`` clamped to 0..2, ``topP``, ``topK``, ``stopSequences``, at
  most 5, and ``seed``), and ``thinkingConfig`` when reasoning is set
  (``thinkingLevel`` or ``thinkingBudget`` per the model row; levels in the
  enum's upper case, with ``includeThoughts: true`` so thought summaries
  arrive as thinking). The request option ``stop_sequences`` is still read
  when the request sets none. An ``output_schema`` is
  ``responseMimeType: "application/json"`` with ``responseJsonSchema`` (every
  row takes it), cleaned like a tool's parameters (see :mod:`._schema`).

The body is ``bytes`` of JSON serialized as the host would. Tool declarations
are serialized once per :class:`ToolSpec` object, the transcript
incrementally (see :mod:`._transcript`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import partial
from typing import Any
from urllib.parse import quote

from agentkit.plugin_api import ProviderRequest, ToolSpec, WireRequest
from agentkit.plugin_api.codec import (
    IdentityCache,
    SamplingRules,
    array,
    dumps,
    sampling,
    structured_output,
    tool_choice,
)

from ._schema import parameters_schema, response_schema
from ._transcript import Transcript, Wire

_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY"}
SAMPLING = SamplingRules(
    "google-generative-ai",
    {"temperature": "temperature", "top_p": "topP", "top_k": "topK", "stop_sequences": "stopSequences",
     "seed": "seed"},
    max_stop_sequences=5,
)

# Body fields written by the codec; the extra_body option may not replace them.
_ASSEMBLED = frozenset({"contents", "systemInstruction", "tools"})


def stream_path(model: str) -> str:
    return f"/models/{quote(model, safe='-._~')}:streamGenerateContent?alt=sse"


def whole_path(model: str) -> str:
    return f"/models/{quote(model, safe='-._~')}:generateContent"


class Encoder:
    """Builds request bodies; one per provider object, holding its caches."""

    def __init__(self, *, tool_cache_size: int = 1024) -> None:
        self._tools: IdentityCache[bytes] = IdentityCache(tool_cache_size)
        self._transcript = Transcript()

    def encode(self, request: ProviderRequest) -> WireRequest:
        model = request.model.id
        pieces = [b'{"contents":', *self._transcript.encode(request.messages)]
        if request.system:
            pieces += [b',"systemInstruction":', dumps({"parts": [{"text": request.system}]})]
        if request.tools:
            declarations = [self._tools.get(spec, partial(_declaration, spec)) for spec in request.tools]
            pieces += [b',"tools":[{"functionDeclarations":', *array(declarations), b"}]"]
        rest = settings(request)
        extra = request.options.get("extra_body") or {}
        rest.update({key: value for key, value in extra.items() if key not in _ASSEMBLED})
        if rest:
            pieces += [b",", dumps(rest)[1:-1]]
        pieces.append(b"}")
        return WireRequest(
            path=stream_path(model) if request.stream else whole_path(model),
            body=b"".join(pieces),
            framing="sse" if request.stream else "json",
        )


def _declaration(spec: ToolSpec) -> bytes:
    return dumps(
        {
            "name": spec.name,
            "description": spec.description,
            "parametersJsonSchema": parameters_schema(spec.input_schema),
        }
    )


def settings(request: ProviderRequest) -> Wire:
    """``toolConfig`` and ``generationConfig``, as far as the request sets them."""
    body: Wire = {}
    choice = tool_choice(request)
    if choice is not None:
        body["toolConfig"] = {"functionCallingConfig": _calling_config(choice.mode, choice.name)}
    generation: Wire = {}
    if request.max_tokens is not None:
        generation["maxOutputTokens"] = request.max_tokens
    if not request.stop_sequences and request.options.get("stop_sequences"):
        request = dataclasses.replace(request, stop_sequences=request.options["stop_sequences"])
    generation.update(sampling(request, SAMPLING))
    schema = structured_output(request, SAMPLING.wire)
    if schema is not None:
        generation["responseMimeType"] = "application/json"
        generation["responseJsonSchema"] = response_schema(schema)
    thinking = thinking_config(request.reasoning, request.model.options)
    if thinking is not None:
        generation["thinkingConfig"] = thinking
    if generation:
        body["generationConfig"] = generation
    return body


def _calling_config(mode: str, name: str | None) -> Wire:
    if name is None:
        return {"mode": _MODES[mode]}
    return {"mode": "ANY", "allowedFunctionNames": [name]}


def thinking_config(level: str | None, options: Mapping[str, Any]) -> Wire | None:
    """The ``thinkingConfig`` for reasoning ``level`` on a row with ``options``; ``None``: send none.

    ``off`` asks for no thinking (budget 0) where the row allows it, and sends
    nothing (the model's default) where it does not.
    """
    if level is None:
        return None
    if options.get("thinking") == "budget":
        budgets: Mapping[str, int] = options.get("thinking_budgets") or {}
        if level not in budgets:
            return None
        budget = budgets[level]
        if budget == 0:
            return {"thinkingBudget": 0}
        return {"thinkingBudget": budget, "includeThoughts": True}
    if level in ("off", "none"):
        return None
    # The API's enum values are upper case (the SDK sends ``HIGH``).
    return {"thinkingLevel": level.upper(), "includeThoughts": True}
