"""The model catalog at request time: limits that fit the model, and prices of the model that answered.

Catalog rows come from each provider's ``catalog()``; the host resolves
``vendor/model`` to a row (:meth:`PluginHost.resolve_model`, which clones the
vendor's default row for a model released after its plugin). Per request,
three things depend on the row:

* **max_tokens** is clamped to what the context window leaves after the
  prompt: ``min(requested, max(1, context_window - estimate - RESERVE))``.
  A request whose prompt plus output limit exceeds the window is rejected by
  most wires before the model runs.
* **reasoning** is clamped to a level the model supports (searching upward
  first, then down); a model without levels gets ``None``.
* **cost** is computed against the model that *served* the response when the
  wire names another catalog row of the same vendor (a fallback), else the
  requested row.

The prompt estimate is deliberately cheap: characters / 4, which overcounts
English prose and code a little (real tokenizers give 3.5-4.5 characters per
token), plus a flat amount per image. It only has to keep the output limit
inside the window, and :data:`RESERVE` absorbs the error. The count is
cached per message object, so a long session pays only for its new messages.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence

from agentkit.plugin_api import (
    AssistantMessage,
    ImageBlock,
    Message,
    ModelInfo,
    TextBlock,
    ThinkingBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)

from ._prefix import common_prefix
from .errors import ConfigError

__all__ = [
    "CHARS_PER_TOKEN",
    "IMAGE_TOKENS",
    "REASONING_SCALE",
    "RESERVE",
    "PromptEstimator",
    "clamp_max_tokens",
    "clamp_reasoning",
    "cost_of",
    "served_row",
    "with_served_cost",
]

#: Tokens kept free between the prompt estimate and the output limit: the
#: estimate's error, the wire's own framing tokens, the tool-use preamble.
RESERVE = 4096
CHARS_PER_TOKEN = 4
#: What one image is counted as (Anthropic bills a 1092x1092 image ~1600 tokens).
IMAGE_TOKENS = 1600
#: Reasoning levels from least to most effort, across the wires we know.
REASONING_SCALE: tuple[str, ...] = ("minimal", "low", "medium", "high", "xhigh", "max")
_OFF = frozenset({"none", "off"})


# -- max_tokens --------------------------------------------------------------------


def _block_chars(block: object) -> int:
    if isinstance(block, TextBlock):
        return len(block.text)
    if isinstance(block, ThinkingBlock):
        return len(block.thinking)
    if isinstance(block, ToolUseBlock):
        return len(block.name) + len(block.arguments)
    if isinstance(block, ImageBlock):
        return IMAGE_TOKENS * CHARS_PER_TOKEN
    return 0


def message_chars(message: Message) -> int:
    """The characters of ``message`` the estimate counts."""
    return sum(_block_chars(block) for block in message.content)


class PromptEstimator:
    """Estimates a request's prompt tokens, remembering each message's count.

    The transcript only grows between turns, so counts are reused while the
    messages are the same objects (identity, as the codecs' caches do).
    """

    def __init__(self) -> None:
        self._messages: list[Message] = []
        self._chars = [0]  # characters of the first i messages, for i = 0..len
        self._tools: dict[int, tuple[ToolSpec, int]] = {}

    def tokens(self, messages: Sequence[Message], system: str | None, tools: Sequence[ToolSpec]) -> int:
        keep = common_prefix(self._messages, messages)
        del self._messages[keep:], self._chars[keep + 1 :]
        for message in messages[keep:]:
            self._messages.append(message)
            self._chars.append(self._chars[-1] + message_chars(message))
        tool_chars = 0
        for spec in tools:  # the agent sends the same ToolSpec objects every turn
            entry = self._tools.get(id(spec))
            if entry is None or entry[0] is not spec:
                entry = (spec, len(spec.name) + len(spec.description) + len(json.dumps(spec.input_schema)))
                self._tools[id(spec)] = entry
            tool_chars += entry[1]
        chars = self._chars[-1] + len(system or "") + tool_chars
        return -(-chars // CHARS_PER_TOKEN)


def clamp_max_tokens(requested: int, model: ModelInfo, prompt_tokens: int) -> int:
    """``requested``, lowered to what ``model``'s context window leaves after the prompt; at least 1."""
    return min(requested, max(1, model.context_window - prompt_tokens - RESERVE))


# -- reasoning ---------------------------------------------------------------------


def clamp_reasoning(level: str | None, model: ModelInfo) -> str | None:
    """A reasoning level ``model`` supports, as close to ``level`` as it has.

    The nearest supported level at or above ``level`` wins (the caller asked
    for at least that much thought); only when the model has none above, the
    nearest below. ``None``, ``"none"``/``"off"`` and a model without levels
    give ``None``: an unsupported level is never sent.

    :raises ConfigError: ``level`` is not a level of :data:`REASONING_SCALE`
        and the model does not list it either.
    """
    if level is None or level in _OFF or not model.reasoning_levels:
        return None
    supported = model.reasoning_levels
    if level in supported:
        return level
    if level not in REASONING_SCALE:
        raise ConfigError(
            f"reasoning level {level!r} is unknown; use one of {', '.join(REASONING_SCALE)} "
            f"({model.key} supports {', '.join(supported)})"
        )
    position = REASONING_SCALE.index(level)
    ranked = [name for name in REASONING_SCALE if name in supported]
    above = [name for name in ranked if REASONING_SCALE.index(name) > position]
    if above:
        return above[0]
    below = [name for name in ranked if REASONING_SCALE.index(name) < position]
    return below[-1] if below else None


# -- cost --------------------------------------------------------------------------


def cost_of(usage: Usage, model: ModelInfo) -> float:
    """US dollars for ``usage`` at ``model``'s prices (per million tokens), cache reads and writes included."""
    return (
        usage.input * model.input_price
        + usage.output * model.output_price
        + usage.cache_read * model.cache_read_price
        + usage.cache_write * model.cache_write_price
    ) / 1_000_000


def served_row(message: AssistantMessage, requested: ModelInfo, models: Mapping[str, ModelInfo]) -> ModelInfo:
    """The catalog row of the model that served ``message``.

    ``response_model`` names it when the wire says so; a dated snapshot name
    (``claude-haiku-4-5-20251001``) matches the row it extends. A name that is
    no row of the requested vendor leaves the requested row.
    """
    served = message.response_model
    if not served or served == requested.id:
        return requested
    exact = models.get(f"{requested.vendor}/{served}")
    if exact is not None:
        return exact
    # The longest row id the name extends: "gpt-4o-mini-2024-07-18" is a
    # gpt-4o-mini, not a gpt-4o. The requested row competes too (it may be a
    # clone that is not in the catalog).
    rows = [row for row in models.values() if row.vendor == requested.vendor] + [requested]
    candidates = [row for row in rows if served.startswith(row.id + "-")]
    best = max(candidates, key=lambda row: len(row.id), default=requested)
    return requested if best.key == requested.key else best


def with_served_cost(
    message: AssistantMessage, requested: ModelInfo, models: Mapping[str, ModelInfo]
) -> AssistantMessage:
    """``message`` with its cost at the serving model's prices.

    A cost the wire reported itself (one that is not the requested row's
    arithmetic) is kept: the wire knows best.
    """
    row = served_row(message, requested, models)
    if row is requested:
        return message
    usage = message.usage
    at_requested = cost_of(dataclasses.replace(usage, cost=0.0), requested)
    if usage.cost and usage.cost != at_requested:
        return message
    cost = cost_of(usage, row)
    if cost == usage.cost:
        return message
    return dataclasses.replace(message, usage=dataclasses.replace(usage, cost=cost))
