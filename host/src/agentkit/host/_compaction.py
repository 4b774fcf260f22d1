"""Compaction: what of a long history each request carries.

Compaction is a *view*: before every request (the first of a run and each
one after a tool batch) the agent sends a checkpoint applied to its history,
never a changed history. The checkpoint is ``(first kept message, summary)``:
the messages before the first kept one are left out, and a summary of them,
when there is one, goes first as a user message. A checkpoint only moves
forward, and whether it must move is decided on the view it gives (the
request as it would go out), never on the whole history: estimating the whole
history would cut on every turn, each cut moving the provider's cached prefix
(the oscillation the reference implementation warns about).

A cut never starts on a tool result: it starts on a user message or on an
assistant message, whose tool results follow it, so a call and its results
are kept or left out together.

Strategies (:class:`Compaction`):

* ``none``: every request carries the whole history (the default).
* ``turn_window``: the last ``max_turns`` assistant turns (each with its tool
  results and what follows).
* ``token_window``: once the estimated prompt passes ``max_tokens``, cut so
  that ``keep_tokens`` remain; the cut then holds until the window fills again.
* ``summarize``: as ``token_window``, and what is cut is summarized by a
  separate request to the agent's model (its own system prompt, output budget
  and session id, no tools), extending the previous summary. A summary that
  fails (an error, an abort, an empty answer) falls back to the turn window.

The estimate is the one the output limit uses (characters / 4, see
:mod:`._budget`) over the messages, the system prompt and the tools.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any, Protocol

from agentkit.plugin_api import (
    AssistantMessage,
    Message,
    MessageEnd,
    ModelInfo,
    Provider,
    ProviderRequest,
    StopReason,
    TextBlock,
    ToolResultMessage,
    ToolSpec,
    ToolUseBlock,
    Usage,
    UserMessage,
)
from agentkit.plugin_api._dataclass import dataclass

from ._config_groups import NO_COMPACTION, SUMMARY_PROMPT, Compaction
from ._token_limits import CHARS_PER_TOKEN, message_chars

if TYPE_CHECKING:
    import asyncio

    from .runtime import ProviderRuntime

#: What every request carries besides its messages: the system prompt and the tool specs (asked only when needed).
PromptParts = Callable[[], tuple[str | None, Sequence[ToolSpec]]]

__all__ = ["NO_COMPACTION", "SUMMARY_PREFIX", "SUMMARY_PROMPT", "SUMMARY_SUFFIX", "WINDOW_NOTE", "Compaction", "Compactor"]

#: How the model is shown a summary: this, the summary, then :data:`SUMMARY_SUFFIX`, as a user message.
SUMMARY_PREFIX = "The conversation so far, summarized:\n<summary>\n"
SUMMARY_SUFFIX = "\n</summary>"
#: The user message a window without a summary starts with, when it would otherwise start with the assistant.
WINDOW_NOTE = "(Earlier messages of this conversation were left out.)"




@dataclass
class Checkpoint:
    """A cut that happened: ``summary`` stands for the history before ``first_kept``."""

    first_kept: Message
    summary: str | None
    #: What the summarization requests made for this cut cost (nothing for the windows).
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True)
class SummaryModel:
    """The model a summary is asked of and the way to reach it: the agent's own, on a cache line of its own."""

    model: ModelInfo
    provider: Provider
    runtime: ProviderRuntime
    session_id: str
    options: Mapping[str, Any]


class CompactionLog(Protocol):
    """Where a cut made on demand is recorded: the agent's session (named by what it does, not imported)."""

    def path(self) -> Sequence[Any]: ...

    def append_compaction(self, summary: str, first_kept_entry_id: str) -> Any: ...


class Compactor:
    """One agent's compaction state: the checkpoint applied to its history before each request.

    :param model: the model that writes a summary (the agent's own).
    """

    def __init__(self, config: Compaction, model: SummaryModel) -> None:
        self.config = config
        self.model = model
        self._history: list[Message] | None = None
        self._start = 0  # the index of the first kept message in _history
        self._summary: str | None = None
        self._summary_message: UserMessage | None = None
        self._note = UserMessage.text(WINDOW_NOTE)

    def restore(self, history: list[Message], first_kept: Message, summary: str | None) -> None:
        """Start from a checkpoint recorded earlier (a resumed session); ignored when ``first_kept`` is not in ``history``."""
        for index in range(len(history) - 1, -1, -1):
            if history[index] is first_kept:
                self._adopt(history, index, summary)
                return

    async def view(self, history: list[Message], prompt: PromptParts,
                   abort: asyncio.Event) -> tuple[list[Message], Checkpoint | None]:
        """The messages the next request carries, and the new checkpoint if one was made for it.

        :param prompt: the request's system prompt and tool specs, which count against a token window.
        """
        if self.config.strategy == "none":
            # None is made here; one made on demand (Agent.compact) or resumed from the session still holds.
            held = history is self._history and self._start <= len(history)
            return (self._view(history) if held else history), None
        if history is not self._history or self._start > len(history):
            self._adopt(history, 0, None)  # a history assigned by hand starts afresh
        overhead = _overhead(*prompt())
        cut = self._cut(history, overhead)
        if cut is None:
            return self._view(history), None
        summary, usage = self._summary, Usage()
        if self.config.strategy == "summarize":
            summary, usage = await _summarize(self.model, history[self._start:cut], self._summary, self.config, abort)
            if summary is None:  # the summary failed: the turn window instead, the previous summary kept
                summary = self._summary
                cut = max(cut, _turn_window_cut(history, self._start, self.config.max_turns))
        self._adopt(history, cut, summary)
        return self._view(history), Checkpoint(history[cut], summary, usage)

    def _adopt(self, history: list[Message], start: int, summary: str | None) -> None:
        self._history, self._start = history, start
        if summary != self._summary or self._summary_message is None:
            self._summary = summary
            self._summary_message = UserMessage.text(f"{SUMMARY_PREFIX}{summary}{SUMMARY_SUFFIX}") if summary else None

    def _view(self, history: list[Message]) -> list[Message]:
        kept = history[self._start:]
        if self._summary_message is not None:
            return [self._summary_message, *kept]
        if self._start > 0 and isinstance(kept[0], AssistantMessage):
            return [self._note, *kept]  # the wires want a user message first
        return kept

    def _cut(self, history: list[Message], overhead: int) -> int | None:
        """Where the history must now be cut (past the current start), or ``None`` while the view fits."""
        if self.config.strategy == "turn_window":
            cut = _turn_window_cut(history, self._start, self.config.max_turns)
            return cut if cut > self._start else None
        assert self.config.max_tokens is not None
        if _tokens(self._view(history), overhead) <= self.config.max_tokens:
            return None  # estimated on the view, after the checkpoint: never on the whole history
        cut = _token_window_cut(history, self._start, self.config.kept_tokens, overhead)
        return cut if cut > self._start else None


async def compact_now(history: list[Message], compactor: Compactor, session: CompactionLog | None,
                      prompt: PromptParts) -> str | None:
    """Cut ``history`` now: what :meth:`Agent.compact <agentkit.host.Agent.compact>` does."""
    import asyncio

    if sum(isinstance(message, UserMessage) for message in history) < 2:
        return None  # a single prompt and its answer: nothing before them to summarize
    # The whole history is summarized afresh (an earlier summary's ground included): one cut, from the start.
    forced = Compactor(Compaction.summarize(1, keep_tokens=1, max_turns=1), compactor.model)
    _, checkpoint = await forced.view(history, prompt, asyncio.Event())
    if checkpoint is None:
        return None
    if session is not None:
        for entry in reversed(session.path()):
            if entry.message is checkpoint.first_kept:
                session.append_compaction(checkpoint.summary or "", entry.id)
                break
    compactor.restore(history, checkpoint.first_kept, checkpoint.summary)
    return checkpoint.summary or ""


def _overhead(system: str | None, tools: Sequence[ToolSpec]) -> int:
    """The characters every request carries besides its messages."""
    return len(system or "") + sum(len(spec.name) + len(spec.description) + len(json.dumps(spec.input_schema))
                                   for spec in tools)


def _tokens(messages: Sequence[Message], overhead: int) -> int:
    return -(-(overhead + sum(message_chars(message) for message in messages)) // CHARS_PER_TOKEN)


def _can_start(history: Sequence[Message], index: int) -> bool:
    return not isinstance(history[index], ToolResultMessage)


def _last_start(history: Sequence[Message], start: int) -> int:
    """The latest place a cut may start: the last message that is not a tool result."""
    for index in range(len(history) - 1, start - 1, -1):
        if _can_start(history, index):
            return index
    return start


def _turn_window_cut(history: Sequence[Message], start: int, max_turns: int) -> int:
    """The earliest cut at or after ``start`` that keeps at most ``max_turns`` assistant messages."""
    turns = sum(isinstance(message, AssistantMessage) for message in history[start:])
    index = start
    while turns > max_turns and index < len(history):
        if isinstance(history[index], AssistantMessage):
            turns -= 1
        index += 1
    while index < len(history) and not _can_start(history, index):  # snap forward, past the results
        index += 1
    return min(index, _last_start(history, start))


def _token_window_cut(history: Sequence[Message], start: int, keep_tokens: int, overhead: int) -> int:
    """The earliest cut at or after ``start`` whose view fits ``keep_tokens``; the latest possible if none does."""
    last = _last_start(history, start)
    budget = keep_tokens * CHARS_PER_TOKEN - overhead - len(SUMMARY_PREFIX) - len(SUMMARY_SUFFIX)
    chars, best = 0, last
    for index in range(len(history) - 1, start - 1, -1):
        chars += message_chars(history[index])
        if chars > budget:
            break
        if index <= last and _can_start(history, index):
            best = index
    return best


async def _summarize(source: SummaryModel, messages: Sequence[Message], previous: str | None, config: Compaction,
                     abort: asyncio.Event) -> tuple[str | None, Usage]:
    """A summary of ``messages`` extending ``previous``, from the agent's model (``None`` if it failed), and its usage.

    A failed response is paid for as far as it went, so its usage counts too.
    """
    parts = [f"<previous-summary>\n{previous}\n</previous-summary>"] if previous else []
    parts.append(f"<conversation>\n{_transcript(messages)}\n</conversation>")
    model = source.model
    request = ProviderRequest(
        model=model,
        messages=[UserMessage.text("\n\n".join(parts))],
        system=config.summary_prompt,
        max_tokens=min(config.summary_max_tokens, model.max_output),
        session_id=f"{source.session_id}-compaction",  # its own cache line: never the conversation's prefix
        options=source.options,
    )
    message: AssistantMessage | None = None
    try:
        async for event in source.runtime.stream(source.provider, request, abort=abort):
            if isinstance(event, MessageEnd):
                message = event.message
    except Exception:  # a provider defect: the turn window instead
        return None, message.usage if message is not None else Usage()
    if message is None:
        return None, Usage()
    if message.stop_reason in (StopReason.ERROR, StopReason.ABORTED):
        return None, message.usage
    summary = "".join(block.text for block in message.content if isinstance(block, TextBlock)).strip()
    return summary or None, message.usage


def _transcript(messages: Sequence[Message]) -> str:
    """``messages`` as plain text for the summarizer."""
    lines = []
    for message in messages:
        for block in message.content:
            if isinstance(block, TextBlock):
                label = message.tool_name if isinstance(message, ToolResultMessage) else message.role
                lines.append(f"[{label}]: {block.text}")
            elif isinstance(block, ToolUseBlock):
                lines.append(f"[tool call {block.name}]: {block.arguments}")
    return "\n".join(lines)
