"""Canonical request -> Anthropic Messages request body.

The transcript rules (tool-result batches, argument replay, thinking) live in
:mod:`._transcript`; this module adds what surrounds the messages:

* Prompt caching: ``cache_control`` breakpoints on the system block, the last
  tool, and the last block of the last user message (rolling: recomputed on
  every request). Three, within the wire's limit of four.
* ``max_tokens`` is required on this wire: the model row's ``max_output``
  when the request names none.
* Reasoning: ``thinking: {"type": "adaptive"}`` plus ``output_config.effort``,
  or extended thinking with ``budget_tokens`` on rows that take a budget.
* ``tool_choice``: ``auto``, ``none``, ``required`` -> ``{"type": "any"}``, a
  tool's name -> ``{"type": "tool", "name": ...}``.
* Sampling: ``temperature`` (clamped to 0..1), ``top_p``, ``top_k`` and
  ``stop_sequences``; the wire has no seed, which is refused. API version
  2026-10-21, what the SDK sends, took ``temperature``, ``top_p`` and
  ``top_k`` out of the request type: the catalog rows of the models that
  refuse them say so (``refused_settings``), and a request setting one for
  such a model fails naming it. A request that carries one goes out on
  version 2023-06-01, the version that has them (the rows of the models that
  take them say so in their headers too). The request option ``stop_sequences`` is
  still read when the request sets none. With thinking on, the API refuses a
  forced tool choice, ``top_k``, a temperature other than 1 and a ``top_p``
  below 0.95: such a request is refused before sending.
* Structured output: a request's ``output_schema`` goes out as
  ``output_config.format`` ``{"type": "json_schema", "schema": ...}``, for the
  rows that say ``structured_output`` (every row of this catalog).
* The body is sent pre-serialized (JSON bytes, compact, UTF-8). Tool
  definitions are serialized once per :class:`ToolSpec` object (the host
  reuses them across turns) and the tool array once per list of them.
"""

from __future__ import annotations

import dataclasses
from functools import partial
from typing import Any

from agentkit.plugin_api import ProviderRequest, ToolSpec, WireRequest
from agentkit.plugin_api.codec import (
    IdentityCache,
    SamplingRules,
    dumps,
    refusal,
    sampling,
    structured_output,
    tool_choice,
)

from ._transcript import Transcript, Wire

PATH = "/v1/messages"
API_VERSION = "2026-10-21"
#: The newest version whose request still has ``temperature``, ``top_p`` and ``top_k``.
SAMPLING_API_VERSION = "2023-06-01"
SAMPLING = SamplingRules(
    "anthropic-messages",
    {"temperature": "temperature", "top_p": "top_p", "top_k": "top_k", "stop_sequences": "stop_sequences"},
    temperature=(0.0, 1.0),
)

#: ``budget_tokens`` per reasoning level, for catalog rows with budget thinking.
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768}
_MIN_BUDGET = 1024

_CACHE_CONTROL = {
    "none": None,
    "short": {"type": "ephemeral"},
    "long": {"type": "ephemeral", "ttl": "1h"},
}


class Encoder:
    """Builds request bodies; one per provider object, shared across requests.

    The body is JSON bytes (``WireRequest.body`` may be pre-serialized): the
    transcript and the tool list are serialized once and reused across turns,
    so the host does not serialize the whole transcript again each turn.
    """

    def __init__(self, *, max_tools: int = 1024, max_messages: int = 8192) -> None:
        # ToolSpec -> its serialized definition.
        self._tools: IdentityCache[bytes] = IdentityCache(max_tools)
        # The last tool list per first tool -> (that list, {retention: serialized array}).
        self._tool_lists: IdentityCache[tuple[list[ToolSpec], dict[str, bytes]]] = IdentityCache(64)
        self._transcript = Transcript(max_messages=max_messages)

    def encode(self, request: ProviderRequest) -> WireRequest:
        options = request.options
        retention = options.get("cache_retention", "short")
        if retention not in _CACHE_CONTROL:
            raise ValueError(
                f"anthropic option cache_retention={retention!r} is not one of "
                f"{sorted(_CACHE_CONTROL)}; pick one of those"
            )
        cache_control = _CACHE_CONTROL[retention]
        model = request.model
        max_tokens = request.max_tokens if request.max_tokens is not None else model.max_output
        # Values are JSON values or bytes already serialized ("messages": a list of pieces).
        fields: dict[str, Any] = {
            "model": model.id,
            "max_tokens": max_tokens,
            "messages": self._transcript.encode(request.messages, cache_control),
        }
        if request.system:
            system: Wire = {"type": "text", "text": request.system}
            if cache_control:
                system["cache_control"] = cache_control
            fields["system"] = [system]
        if request.tools:
            fields["tools"] = self._tool_array(list(request.tools), retention, cache_control)
        choice = _tool_choice(request)
        if choice is not None:
            fields["tool_choice"] = choice
        if not request.stop_sequences and "stop_sequences" in options:
            request = dataclasses.replace(request, stop_sequences=options["stop_sequences"])
        fields.update(sampling(request, SAMPLING))
        fields.update(_reasoning(request, max_tokens))
        schema = structured_output(request, SAMPLING.wire)
        if schema is not None:  # beside the effort, when reasoning set one
            fields["output_config"] = {**fields.get("output_config", {}),
                                       "format": {"type": "json_schema", "schema": schema}}
        if "thinking" in fields:
            _check_thinking_compatible(fields)
        fields["stream"] = request.stream
        pieces = [b"{"]
        for key, value in fields.items():
            pieces += (dumps(key), b":")
            if key == "messages":
                pieces += value  # already serialized, in pieces
            else:
                pieces.append(value if isinstance(value, bytes) else dumps(value))
            pieces.append(b",")
        pieces[-1] = b"}"
        sampled = "temperature" in fields or "top_p" in fields or "top_k" in fields
        return WireRequest(
            path=PATH,
            body=b"".join(pieces),
            headers={"anthropic-version": SAMPLING_API_VERSION if sampled else API_VERSION},
            framing="sse" if request.stream else "json",
        )

    def _tool_array(
        self, specs: list[ToolSpec], retention: str, cache_control: Wire | None
    ) -> bytes:
        kept = self._tool_lists.peek(specs[0])
        # List equality tests identity first: the same ToolSpec objects cost a C loop.
        if kept is None or kept[0] != specs:
            kept = (specs, {})
            self._tool_lists.put(specs[0], kept)
        arrays = kept[1]
        if retention not in arrays:
            parts = [self._tools.get(spec, partial(_tool_json, spec)) for spec in specs]
            # The breakpoint closes the tools that were there from the start;
            # tools added mid-session (deferred) follow it, outside the prefix.
            last = max((i for i, spec in enumerate(specs) if not spec.deferred), default=None)
            if cache_control and last is not None:
                parts[last] = dumps({**_tool(specs[last]), "cache_control": cache_control})
            arrays[retention] = b"[" + b",".join(parts) + b"]"
        return arrays[retention]


def _tool_json(spec: ToolSpec) -> bytes:
    return dumps(_tool(spec))


def _tool(spec: ToolSpec) -> Wire:
    return {
        "name": spec.name,
        "description": spec.description,
        "input_schema": spec.input_schema,
    }


def _tool_choice(request: ProviderRequest) -> Wire | None:
    choice = tool_choice(request)
    if choice is None:
        return None
    if choice.mode == "tool":
        return {"type": "tool", "name": choice.name}
    return {"type": "any" if choice.mode == "required" else choice.mode}


def _check_thinking_compatible(fields: Wire) -> None:
    """Refuse what the API answers 400 to when thinking is on: a forced tool choice, ``top_k``, a
    ``temperature`` other than 1 and a ``top_p`` below 0.95."""
    forced = fields.get("tool_choice", {}).get("type") in ("any", "tool")
    conflicts = [name for name, bad in (
        ("a forced tool_choice", forced),
        ("top_k", "top_k" in fields),
        ("temperature other than 1", fields.get("temperature", 1) != 1),
        ("top_p below 0.95", fields.get("top_p", 1) < 0.95),
    ) if bad]
    if conflicts:
        raise refusal(SAMPLING.wire, f"{', '.join(conflicts)} with thinking on",
                      "leave reasoning unset for this request, or drop those settings")


def _reasoning(request: ProviderRequest, max_tokens: int) -> Wire:
    level = request.reasoning
    if level is None or level == "off":
        return {}
    if request.model.options.get("thinking") == "budget":
        budget = THINKING_BUDGETS.get(level, THINKING_BUDGETS["medium"])
        # The budget must stay below max_tokens; the API rejects it otherwise.
        budget = max(_MIN_BUDGET, min(budget, max_tokens - 1))
        return {"thinking": {"type": "enabled", "budget_tokens": budget}}
    return {"thinking": {"type": "adaptive"}, "output_config": {"effort": level}}
