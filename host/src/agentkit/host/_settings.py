"""The model settings of a run: the agent's, overridden per run, and the tool-choice rule.

``AgentConfig.settings`` holds the agent's settings; ``Agent.run(..., settings=...)``
overrides any of them for one run. A forcing tool choice (``"required"`` or
a tool's name) applies to the run's first request only; every later request
of the run goes out with ``"auto"``, so that the model, having made the
forced call and seen its result, can answer. Without that rule a forced
choice would make the model call a tool on every turn, and the run would
only end at ``max_turns``.
"""

# No ``from __future__ import annotations`` here: a TypedDict turns each string annotation into a
# ForwardRef, which compiles it; evaluated types cost far less (0.5 M instructions less at
# a first use, bench/_first_use.py under callgrind). The annotations below are cheap to evaluate.
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from .errors import ConfigError

__all__ = ["ModelSettings", "check_settings", "request_settings"]


class ModelSettings(TypedDict, total=False):
    """Model settings: the agent's (``AgentConfig(settings=...)``) or one run's, overriding the agent's.

    :param max_tokens: output token limit per response (clamped to the model's).
    :param temperature: sampling temperature, clamped to the wire's range.
    :param top_p: nucleus sampling, clamped to the wire's range.
    :param top_k: sample from this many likeliest tokens.
    :param stop_sequences: texts that end a response when the model writes one.
    :param seed: a seed for reproducible sampling, where the wire has one.
    :param tool_choice: ``"auto"``, ``"none"``, ``"required"`` or a tool's
        name; a forcing choice applies to the run's first request only.
    """

    max_tokens: int | None
    temperature: float | None
    top_p: float | None
    top_k: int | None
    stop_sequences: Sequence[str]
    seed: int | None
    tool_choice: str | None


_NAMES = tuple(ModelSettings.__annotations__)
#: What a setting neither the config nor the run sets is.
_UNSET: dict[str, Any] = dict.fromkeys(_NAMES)
_FORCING_IS_NOT = ("auto", "none", None)


def check_settings(settings: Mapping[str, Any] | None) -> dict[str, Any]:
    """``settings`` as a plain dict, checked for unknown names.

    :raises ConfigError: a name that is no model setting.
    """
    if settings is None:
        return {}
    if not isinstance(settings, Mapping):
        raise ConfigError(f"settings must be a dict of model settings, got {type(settings).__name__}")
    unknown = sorted(set(settings) - set(_NAMES))
    if unknown:
        raise ConfigError(f"unknown model setting(s) {', '.join(map(repr, unknown))}; "
                          f"the settings are {', '.join(_NAMES)}")
    return dict(settings)


def request_settings(settings: ModelSettings, overrides: Mapping[str, Any], *, first: bool) -> dict[str, Any]:
    """The settings of one request: the agent's, the run's overrides, and the tool-choice rule.

    :param first: whether this is the run's first request.
    """
    chosen = {**_UNSET, **settings, **overrides}
    if not first and chosen["tool_choice"] not in _FORCING_IS_NOT:
        chosen["tool_choice"] = "auto"
    chosen["stop_sequences"] = chosen["stop_sequences"] or ()
    return chosen
