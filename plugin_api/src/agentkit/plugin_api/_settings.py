"""Tool choice and sampling settings: checked once here, mapped by each wire.

A codec asks :func:`tool_choice` what the request's choice means and writes
it in its wire's words, refusing (with :func:`refusal`) a choice its wire
cannot express. It asks :func:`sampling` for the sampling settings under its
wire's field names, clamped to the ranges its :class:`SamplingRules` give:
a setting the wire has no field for, or the model's catalog row refuses,
fails the request with an error naming the wire or the model. Nothing is
dropped quietly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import field
from typing import Any, Literal

from ._dataclass import dataclass
from ._providers import ProviderRequest
from .errors import UsageError

#: The tool choices that are not a tool's name.
TOOL_CHOICE_MODES = ("auto", "none", "required")

#: What a catalog row lists in ``refused_settings`` when the model refuses ``required`` and named choices.
FORCED_TOOL_CHOICE = "forced_tool_choice"

#: The sampling settings of a :class:`~agentkit.plugin_api.ProviderRequest`, in the order a wire writes them.
SAMPLING_SETTINGS = ("temperature", "top_p", "top_k", "stop_sequences", "seed")


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """What a request's ``tool_choice`` asks: ``mode`` ``auto``, ``none``, ``required``, or
    ``tool`` with the forced tool's ``name``."""

    mode: Literal["auto", "none", "required", "tool"]
    name: str | None = None


def tool_choice(request: ProviderRequest) -> ToolChoice | None:
    """The request's tool choice, checked against its tools; ``None`` when it sets none.

    ``"auto"``, ``"none"`` and ``"required"`` are modes; any other text names
    the tool to force, which must be one of the request's tools (so a tool
    named like a mode cannot be forced by name).

    :raises UsageError: ``required`` without tools, a name that is no tool of
        the request, a forcing choice (``required`` or a name) for a model
        whose catalog row lists ``forced_tool_choice`` in ``refused_settings``,
        or a value that is not text.
    """
    choice = request.tool_choice
    if choice is None:
        return None
    if not isinstance(choice, str) or not choice:
        raise UsageError(
            f"tool_choice must be 'auto', 'none', 'required' or a tool's name, got {choice!r}"
        )
    names = [spec.name for spec in request.tools]
    if choice == "required" and not names:
        raise UsageError("tool_choice='required' needs a tool, and the request offers none; "
                         "enable a tool or use tool_choice='auto'")
    model = request.model
    if choice not in ("auto", "none") and FORCED_TOOL_CHOICE in model.refused_settings:
        raise UsageError(f"{model.key} does not accept a forced tool choice (tool_choice={choice!r}); "
                         "use 'auto' or 'none' with this model, or choose another model")
    if choice in TOOL_CHOICE_MODES:
        return ToolChoice(choice)  # type: ignore[arg-type]  # one of the three modes
    if choice not in names:
        offered = ", ".join(names) or "none"
        raise UsageError(f"tool_choice={choice!r} names no tool of the request (its tools: {offered}); "
                         "name one of them, or use 'auto', 'none' or 'required'")
    return ToolChoice("tool", choice)


def refusal(wire: str, what: str, fix: str) -> UsageError:
    """The error of a wire that cannot express ``what``: ``"<wire> cannot express <what>; <fix>"``."""
    return UsageError(f"{wire} cannot express {what}; {fix}")


@dataclass(frozen=True, slots=True)
class SamplingRules:
    """How one wire (at one API version) carries the sampling settings.

    :param wire: how errors name the wire, e.g. ``"anthropic-messages (anthropic-version 2026-10-21)"``.
    :param fields: each setting of :data:`SAMPLING_SETTINGS` the wire carries -> its field name
        there; a setting left out is one the wire cannot express.
    :param temperature: the range a temperature is clamped to.
    :param top_p: the range a ``top_p`` is clamped to.
    :param max_stop_sequences: the most stop sequences the wire takes; ``None``: no limit.
    """

    wire: str
    fields: Mapping[str, str] = field(default_factory=dict)
    temperature: tuple[float, float] = (0.0, 2.0)
    top_p: tuple[float, float] = (0.0, 1.0)
    max_stop_sequences: int | None = None


def sampling(request: ProviderRequest, rules: SamplingRules) -> dict[str, Any]:
    """The request's sampling settings as ``{wire field: value}``, in :data:`SAMPLING_SETTINGS` order.

    ``temperature`` and ``top_p`` are clamped to the wire's ranges and
    ``top_k`` to at least 1; settings left unset are not written.

    :raises UsageError: a setting of the wrong type, one the model's catalog
        row lists in ``refused_settings``, one the wire has no field for, or
        more stop sequences than the wire takes.
    """
    model = request.model
    wanted = {
        "temperature": request.temperature,
        "top_p": request.top_p,
        "top_k": request.top_k,
        "stop_sequences": _stop_sequences(request.stop_sequences) or None,
        "seed": request.seed,
    }
    body: dict[str, Any] = {}
    for name, value in wanted.items():
        if value is None:
            continue
        if name in model.refused_settings:
            raise UsageError(f"{model.key} does not accept {name} on {rules.wire}; "
                             f"leave {name} unset for this model, or choose another model")
        wire_field = rules.fields.get(name)
        if wire_field is None:
            raise refusal(rules.wire, name, f"leave {name} unset, or use a wire that carries it "
                                            "(docs/providers.md lists them)")
        body[wire_field] = _checked(name, value, rules)
    return body


def _checked(name: str, value: Any, rules: SamplingRules) -> Any:
    if name == "stop_sequences":
        limit = rules.max_stop_sequences
        if limit is not None and len(value) > limit:
            raise refusal(rules.wire, f"{len(value)} stop sequences", f"it takes at most {limit}; pass fewer")
        return value
    if name in ("temperature", "top_p"):
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise UsageError(f"{name} must be a finite number, got {value!r}")
        low, high = rules.temperature if name == "temperature" else rules.top_p
        return min(max(value, low), high)
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{name} must be an integer, got {value!r}")
    return max(value, 1) if name == "top_k" else value


def _stop_sequences(value: Any) -> list[str]:
    if value is None:
        return []
    # A lone string is a sequence of characters: taking it as one would stop at any of its letters.
    if isinstance(value, str) or not all(isinstance(item, str) and item for item in value):
        raise UsageError(f"stop_sequences must be a list of non-empty texts, got {value!r}")
    return list(value)
