"""What a configuration says of compaction (:class:`Compaction`); the machinery is in :mod:`._compaction`.

Apart so that building a configuration, as serving tools does, loads no
estimate of tokens and no message codec, and an agent loads ``_compaction``
only when there is something to cut (a strategy, a cut resumed or asked for).
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from agentkit.plugin_api._dataclass import dataclass

from .errors import ConfigError

__all__ = ["NO_COMPACTION", "SUMMARY_PROMPT", "Compaction"]

# A string, read by type checkers and typing.get_type_hints alike: subscribing Literal at import cost
# 0.15 M instructions of a first use (bench/_first_use.py under callgrind).
Strategy: TypeAlias = 'Literal["none", "turn_window", "token_window", "summarize"]'
_STRATEGIES: tuple[str, ...] = ("none", "turn_window", "token_window", "summarize")

#: The system prompt of a summarization request, unless the configuration gives another.
SUMMARY_PROMPT = (
    "You summarize the beginning of a conversation between a user and an AI assistant that uses tools, "
    "so that the assistant can go on without it. Keep the user's goals and constraints, the decisions "
    "made, what was done and found (file names, commands, results, errors) and what remains to do. "
    "When a previous summary is given, extend it. Answer with the summary alone."
)


@dataclass(frozen=True)
class Compaction:
    """How much of its history an agent sends with each request (``AgentConfig.compaction``).

    Build one with :meth:`turn_window`, :meth:`token_window` or
    :meth:`summarize`; ``Compaction()`` sends everything.

    :param strategy: ``"none"``, ``"turn_window"``, ``"token_window"`` or ``"summarize"``.
    :param max_turns: the turn window: assistant turns a request keeps (also the
        fallback of a summary that failed).
    :param max_tokens: the token window: the estimated prompt tokens (messages,
        system prompt, tools) past which a request is cut.
    :param keep_tokens: what a cut keeps, in estimated tokens (default half of
        ``max_tokens``): the room left is what the following turns fill
        before the next cut.
    :param summary_prompt: the system prompt of a summarization request.
    :param summary_max_tokens: the output limit of a summarization request
        (clamped to the model's).
    """

    strategy: Strategy = "none"
    max_turns: int = 20
    max_tokens: int | None = None
    keep_tokens: int | None = None
    summary_prompt: str = SUMMARY_PROMPT
    summary_max_tokens: int = 2048

    def __post_init__(self) -> None:
        if self.strategy not in _STRATEGIES:
            raise ConfigError(f"compaction strategy {self.strategy!r} is unknown; use one of {', '.join(_STRATEGIES)}")
        if self.max_turns < 1:
            raise ConfigError(f"Compaction max_turns must be 1 or more, not {self.max_turns}")
        if self.strategy in ("token_window", "summarize") and (self.max_tokens is None or self.max_tokens < 1):
            raise ConfigError(f"the {self.strategy} compaction needs max_tokens (1 or more), not {self.max_tokens}")
        if self.keep_tokens is not None and not 0 < self.keep_tokens <= (self.max_tokens or 0):
            raise ConfigError(f"Compaction keep_tokens must be between 1 and max_tokens, not {self.keep_tokens}")
        if self.summary_max_tokens < 1:
            raise ConfigError(f"Compaction summary_max_tokens must be 1 or more, not {self.summary_max_tokens}")

    @classmethod
    def turn_window(cls, max_turns: int) -> Compaction:
        """Send the last ``max_turns`` assistant turns (with the tool results and messages after them)."""
        return cls("turn_window", max_turns=max_turns)

    @classmethod
    def token_window(cls, max_tokens: int, *, keep_tokens: int | None = None) -> Compaction:
        """Cut the oldest messages when a request would pass ``max_tokens``, keeping ``keep_tokens``."""
        return cls("token_window", max_tokens=max_tokens, keep_tokens=keep_tokens)

    @classmethod
    def summarize(cls, max_tokens: int, *, keep_tokens: int | None = None, max_turns: int = 20,
                  prompt: str = SUMMARY_PROMPT, summary_max_tokens: int = 2048) -> Compaction:
        """As :meth:`token_window`, with what is cut summarized; a failed summary falls back to ``max_turns``."""
        return cls("summarize", max_turns=max_turns, max_tokens=max_tokens, keep_tokens=keep_tokens,
                   summary_prompt=prompt, summary_max_tokens=summary_max_tokens)

    @property
    def kept_tokens(self) -> int:
        return self.keep_tokens if self.keep_tokens is not None else max(1, (self.max_tokens or 0) // 2)


#: The default: every request carries the whole history.
NO_COMPACTION = Compaction()
