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
* Tool definitions are built once per :class:`ToolSpec` object (the host
  reuses them across turns) and shared between bodies: a body is read-only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentkit.plugin_api import ProviderRequest, ToolSpec, WireRequest

from ._transcript import IdentityCache, TranscriptEncoder, Wire

PATH = "/v1/messages"
API_VERSION = "2023-06-01"

#: ``budget_tokens`` per reasoning level, for catalog rows with budget thinking.
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768}
_MIN_BUDGET = 1024

_CACHE_CONTROL = {
    "none": None,
    "short": {"type": "ephemeral"},
    "long": {"type": "ephemeral", "ttl": "1h"},
}


class Encoder:
    """Builds request bodies; one per provider object, shared across requests."""

    def __init__(self, *, max_tools: int = 1024, max_messages: int = 8192) -> None:
        self._tools = IdentityCache(max_tools)
        # The last tool list per first tool: a list equal to it reuses its definitions.
        self._tool_lists = IdentityCache(64)
        self._transcript = TranscriptEncoder(max_messages=max_messages)

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
        body: Wire = {
            "model": model.id,
            "max_tokens": request.max_tokens
            if request.max_tokens is not None
            else model.max_output,
            "messages": self._transcript.encode(request.messages, cache_control),
        }
        if request.system:
            system: Wire = {"type": "text", "text": request.system}
            if cache_control:
                system["cache_control"] = cache_control
            body["system"] = [system]
        if request.tools:
            tools = list(self._tool_definitions(list(request.tools)))
            if cache_control:
                tools[-1] = {**tools[-1], "cache_control": cache_control}
            body["tools"] = tools
        if request.tool_choice is not None:
            body["tool_choice"] = _tool_choice(request.tool_choice)
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if "stop_sequences" in options:
            body["stop_sequences"] = list(options["stop_sequences"])
        _reasoning(body, request)
        body["stream"] = request.stream
        return WireRequest(
            path=PATH,
            body=body,
            headers={"anthropic-version": API_VERSION},
            framing="sse" if request.stream else "json",
        )

    def _tool_definitions(self, specs: list[ToolSpec]) -> list[Wire]:
        kept = self._tool_lists.lookup(specs[0])
        # List equality tests identity first: the same ToolSpec objects cost a C loop.
        if kept is not None and kept[0] == specs:
            return kept[1]
        definitions = [self._tools.get(spec, None, lambda s=spec: _tool(s)) for spec in specs]
        self._tool_lists.put(specs[0], None, (specs, definitions))
        return definitions


def _tool(spec: ToolSpec) -> Wire:
    return {
        "name": spec.name,
        "description": spec.description,
        "input_schema": _plain(spec.input_schema),
    }


def _plain(value: Any) -> Any:
    """A JSON value built from plain dicts and lists (a schema may hold other mappings)."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _tool_choice(choice: str) -> Wire:
    if choice in ("auto", "none"):
        return {"type": choice}
    return {"type": "tool", "name": choice}


def _reasoning(body: Wire, request: ProviderRequest) -> None:
    level = request.reasoning
    if level is None or level == "off":
        return
    if request.model.options.get("thinking") == "budget":
        budget = THINKING_BUDGETS.get(level, THINKING_BUDGETS["medium"])
        # The budget must stay below max_tokens; the API rejects it otherwise.
        budget = max(_MIN_BUDGET, min(budget, body["max_tokens"] - 1))
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    else:
        body["thinking"] = {"type": "adaptive"}
        body["output_config"] = {"effort": level}
