"""Scrubbing the credentials in use from what a response streams: a key the vendor echoes back.

Every other channel (errors, headers, log records) is scrubbed by
:mod:`._redact`; the streamed answer is the one channel a vendor (or a proxy,
or a model told to repeat its headers) fills with text of its choosing. What
is scrubbed here is scrubbed at the source: the deltas, the blocks and the
message every consumer sees (events, ``--json``, the session log, tracing,
the history sent back on the next turn) all come from these events.

A key may arrive cut across two deltas, so each block's stream holds back its
tail while that tail could be the start of a key (at most ``len(key) - 1``
characters) and releases it with the next delta or the block's end. The cost
per delta is what a delta with no key in sight costs: one substring test and
one ``find`` of the key's first character per key in use (a single key,
nearly always); real work is done only when a key, or the start of one,
straddles the delta's end. See ``docs/decisions/0033-secrets-at-rest-and-in-echoes.md``.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable, Iterable
from typing import Any

from agentkit.plugin_api import (
    AssistantMessage,
    BlockDelta,
    BlockEnd,
    ContentBlock,
    MessageEnd,
    ProviderEvent,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
)

from ._redact import scrub
from .headers import redact_secret

__all__ = ["EchoScrubber"]


_TEXT_OF: dict[type, Callable[[Any], str]] = {
    TextBlock: operator.attrgetter("text"),
    ToolUseBlock: operator.attrgetter("arguments"),
    ThinkingBlock: operator.attrgetter("thinking"),
}


@functools.lru_cache(maxsize=64)
def _keys(secrets: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The distinct secrets, and each one's first two characters and first one: made once per key, not per response."""
    distinct = tuple(secret for secret in dict.fromkeys(secrets) if secret)
    return distinct, tuple((secret[:2], secret[0]) for secret in distinct)


def _same(blocks: list[ContentBlock], checked: list[ContentBlock]) -> bool:
    """Whether ``blocks`` are exactly the blocks already found clean (one comparison of identities)."""
    return len(blocks) == len(checked) and all(map(operator.is_, blocks, checked))


class EchoScrubber:
    """Scrubs one response's events of ``secrets``, whole, even when a secret is cut across deltas.

    :param secrets: the credential values the request was sent with.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets, self._heads = _keys(tuple(secrets))
        #: Per open block, the tail held back because a secret may start there.
        self.held: dict[int, str] = {}
        #: ``(tail, what was shown of it)`` of each block whose stream ended inside part of a secret.
        self.released: list[tuple[str, str]] = []
        #: The blocks of ended blocks found clean, in order: the message's own, nearly always, so its end
        #: need not read them again.
        self.clean: list[ContentBlock] = []
        # One secret (nearly always): its first two characters and its first, for :meth:`passes`.
        self._head: str | None = self._heads[0][0] if len(self._heads) == 1 else None
        self._first = self._heads[0][1] if len(self._heads) == 1 else None

    def passes(self, event: BlockDelta | BlockEnd) -> bool:
        """Whether ``event`` may be shown as it is, asked cheaply: no secret's start in sight, nothing held.

        ``False`` asks nothing more: :meth:`block_event` then decides. The common case written out, since
        it runs for every delta and block end of every response: ``bench/bench_loop.py`` counts about 250
        fewer bytecodes per turn than through :meth:`block_event` alone.
        """
        head = self._head
        if head is None or self.held:
            return False
        if event.__class__ is BlockDelta:
            text = event.delta
            return head not in text and text[-1:] != self._first
        block = event.block  # type: ignore[union-attr]
        read = _TEXT_OF.get(block.__class__)
        if read is None or head in read(block):
            return False
        self.clean.append(block)
        return True

    def block_event(self, event: ProviderEvent, out: list[ProviderEvent]) -> None:
        """Append to ``out`` what of ``event`` (a block's start, delta or end) may be shown."""
        kind = event.__class__
        if kind is BlockDelta and not self.held:
            # Most deltas: nothing held back, and neither a secret nor the start of one in sight. A secret,
            # or a tail of two characters or more that starts one, holds its first two characters.
            text = event.delta  # type: ignore[union-attr]
            for head, first in self._heads:
                if head in text or text[-1:] == first:
                    break
            else:
                out.append(event)
                return
        if kind is BlockEnd and not self.held and self._clean(event.block):  # type: ignore[union-attr]
            self.clean.append(event.block)  # type: ignore[union-attr]
            out.append(event)
        elif isinstance(event, BlockDelta):
            self._delta(event, out)
        elif isinstance(event, BlockEnd):
            tail = self._release(event.index, out)
            block = self.block(event.block, tail)
            out.append(event if block is event.block else BlockEnd(event.index, block))
        else:
            out.append(event)

    def message_end(self, event: MessageEnd, out: list[ProviderEvent]) -> MessageEnd:
        """Release what blocks that never ended hold back (into ``out``); the end with its content scrubbed."""
        for index in list(self.held):
            self._release(index, out)
        message = event.message
        if not isinstance(message, AssistantMessage):
            return event  # the police report it
        if not self.released and (
            _same(message.content, self.clean) or all(self._clean(block) for block in message.content)
        ):
            return event
        content = list(message.content)
        tails: list[tuple[str, str] | None] = [*self.released] or [None]
        for tail in tails:  # a block cut short ends with what its stream showed of its tail
            content = [self.block(block, tail) for block in content]
        if all(new is old for new, old in zip(content, message.content, strict=True)):
            return event
        return MessageEnd(dataclasses.replace(message, content=content))

    def _clean(self, block: object) -> bool:
        """Whether ``block`` holds nothing a secret could be in: no secret's first two characters."""
        read = _TEXT_OF.get(block.__class__)
        if read is None:
            return not isinstance(block, TextBlock | ToolUseBlock | ThinkingBlock)  # a subclass: the long way
        text = read(block)
        return not any(head in text for head, _ in self._heads)

    def text(self, text: str) -> str:
        """``text`` with every whole secret redacted."""
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, redact_secret(secret))
        return text

    def block(self, block: ContentBlock, released: tuple[str, str] | None = None) -> ContentBlock:
        """``block`` with its text scrubbed; ``released``: the held tail and what was shown of it."""
        if isinstance(block, TextBlock):
            text = self._with_tail(self.text(block.text), released)
            return block if text == block.text else dataclasses.replace(block, text=text)
        if isinstance(block, ToolUseBlock):
            arguments = self._with_tail(self.text(block.arguments), released)
            return block if arguments == block.arguments else dataclasses.replace(block, arguments=arguments)
        if isinstance(block, ThinkingBlock):
            thinking = self._with_tail(self.text(block.thinking), released)
            if thinking == block.thinking:
                return block
            # Its signature vouches for the text as sent: changed, it is replayed as unsigned reasoning.
            return dataclasses.replace(block, thinking=thinking, signature=None)
        return block

    # -- the stream of one block ------------------------------------------------------------------

    def _delta(self, event: BlockDelta, out: list[ProviderEvent]) -> None:
        text = event.delta
        held = self.held.pop(event.index, None) if self.held else None
        if held is not None:
            text = held + text
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, redact_secret(secret))
        cut = self._straddle(text)
        if cut < len(text):
            self.held[event.index] = text[cut:]
            text = text[:cut]
        if text is event.delta:
            out.append(event)
        elif text:
            out.append(BlockDelta(event.index, text))

    def _straddle(self, text: str) -> int:
        """Where the tail of ``text`` that could start a secret begins (``len(text)`` when none could)."""
        end = cut = len(text)
        for secret in self.secrets:
            # A tail of two characters or more starts with the secret's first two, far rarer in text than
            # its first alone (an "s" of "sk-..."): searched for first, the last character is checked alone.
            head = secret[:2]
            position = text.find(head, max(0, end - len(secret) + 1))
            while position != -1 and position < cut:
                if secret.startswith(text[position:]):
                    cut = position
                    break
                position = text.find(head, position + 1)
            if cut == end and end and text[-1] == secret[0]:
                cut = end - 1
        return cut

    def _release(self, index: int, out: list[ProviderEvent]) -> tuple[str, str] | None:
        """Show what block ``index`` held back: the stream ended there, so it is no start of a secret."""
        held = self.held.pop(index, None)
        if held is None:
            return None
        # Only part of a secret: scrubbed of any long run of one (a stream cut short inside a key).
        shown = scrub(held, self.secrets)
        out.append(BlockDelta(index, shown))
        if shown != held:
            self.released.append((held, shown))
        return held, shown

    @staticmethod
    def _with_tail(text: str, released: tuple[str, str] | None) -> str:
        """``text`` ending as its stream was shown: a released tail replaced by what was shown of it."""
        if released is None or released[0] == released[1] or not text.endswith(released[0]):
            return text
        return text[: len(text) - len(released[0])] + released[1]
