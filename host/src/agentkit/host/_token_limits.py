"""What one request may spend: an output limit that fits the model's window, a reasoning level it has.

Per request, two things depend on the model's catalog row:

* **max_tokens** is clamped to what the context window leaves after the
  prompt: ``min(requested, max(1, context_window - estimate - RESERVE))``.
  A request whose prompt plus output limit exceeds the window is rejected by
  most wires before the model runs.
* **reasoning** is clamped to a level the model supports (searching upward
  first, then down); a model without levels gets ``None``.

The prompt estimate is deliberately cheap: characters / 4, which overcounts
English prose and code a little (real tokenizers give 3.5-4.5 characters per
token), plus a flat amount per image. It only has to keep the output limit
inside the window, and :data:`RESERVE` absorbs the error. The count is
cached per message object, so a long session pays only for its new messages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from agentkit.plugin_api import (
    AudioBlock,
    DocumentBlock,
    ImageBlock,
    Message,
    ModelInfo,
    TextBlock,
    ThinkingBlock,
    ToolSpec,
    ToolUseBlock,
)
from agentkit.plugin_api.codec import Transcript

from ._repair import common_prefix
from .errors import ConfigError

__all__ = [
    "CHARS_PER_TOKEN",
    "IMAGE_TOKENS",
    "REASONING_SCALE",
    "RESERVE",
    "PromptEstimator",
    "clamp_max_tokens",
    "clamp_reasoning",
    "message_chars",
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
    if isinstance(block, DocumentBlock):  # a character per byte: exact for text, near for a PDF's text
        return len(block.data) * 3 // 4
    if isinstance(block, AudioBlock):  # Gemini counts 32 tokens a second: ~1 per KB of 16 kHz WAV
        return len(block.data) * 3 // 4 // 1024 * CHARS_PER_TOKEN
    return 0


def message_chars(message: Message) -> int:
    """The characters of ``message`` the estimate counts."""
    chars = 0
    for block in message.content:  # a loop, not sum() over a generator: every new message passes here
        # The two blocks of nearly every message, by exact type, without a call; the rest as _block_chars says.
        if type(block) is TextBlock:
            chars += len(block.text)
        elif type(block) is ToolUseBlock:
            chars += len(block.name) + len(block.arguments)
        else:
            chars += _block_chars(block)
    return chars


class PromptEstimator:
    """Estimates a request's prompt tokens, remembering each message's count.

    The transcript only grows between turns, so counts are reused while the
    messages are the same objects (identity, as the codecs' caches do).
    """

    def __init__(self) -> None:
        self._messages: list[Message] = []
        self._chars = [0]  # characters of the first i messages, for i = 0..len
        self._tools: dict[int, tuple[ToolSpec, int]] = {}
        # The line of the transcript counted last, and how many of its messages it vouched for.
        self._line: object | None = None
        self._stable = 0

    def tokens(self, messages: Sequence[Message], system: str | None, tools: Sequence[ToolSpec]) -> int:
        line, stable = (messages.line, messages.stable) if isinstance(messages, Transcript) else (None, 0)
        if line is None:
            stable = 0
        trusted = self._stable if line is not None and line is self._line and stable >= self._stable else 0
        self._line, self._stable = line, stable
        # A line that vouches for every message counted last leaves nothing to compare.
        keep = trusted if trusted == len(self._messages) else common_prefix(self._messages, messages, trusted)
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
