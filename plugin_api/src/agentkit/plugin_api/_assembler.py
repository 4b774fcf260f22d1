"""The message assembler: the normative event sequence of one response, built for decoders.

A decoder (see :class:`~agentkit.plugin_api.StreamDecoder`) only says what its
wire said; the assembler turns that into canonical events in the one order
the host accepts, so every decoder emits them the same way.
"""

from __future__ import annotations

from typing import Any

from ._events import (
    BlockDelta,
    BlockEnd,
    BlockKind,
    BlockStart,
    MessageEnd,
    MessageStart,
    ProviderEvent,
)
from ._messages import (
    AssistantMessage,
    ContentBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)


class MessageAssembler:
    """Builds the normative event sequence of one response, for decoders.

    A decoder reports what the wire said (a block began, more text, the block
    ended, the message ended) and the assembler emits the canonical events,
    keeps the partial content, and can always close the message (``fail``)
    with whatever arrived.
    """

    def __init__(self, *, provider: str = "", api: str = "", model: str = "") -> None:
        self.provider = provider
        self.api = api
        self.model = model
        self.response_model: str | None = None
        self.response_id: str | None = None
        self.usage = Usage()
        self.blocks: list[ContentBlock] = []
        self._open: dict[int, tuple[BlockKind, list[str], dict[str, Any]]] = {}
        self._started = False
        self._ended = False

    @property
    def ended(self) -> bool:
        return self._ended

    def start(self) -> list[ProviderEvent]:
        if self._started:
            return []
        self._started = True
        return [MessageStart(self.provider, self.model)]

    def start_block(self, kind: BlockKind, **fields: Any) -> tuple[int, list[ProviderEvent]]:
        """Open a block; returns its index and the events. ``fields``: ``id``/``name`` for tool use."""
        events = self.start()
        index = len(self.blocks) + len(self._open)
        self._open[index] = (kind, [], dict(fields))
        events.append(
            BlockStart(index, kind, tool_name=fields.get("name"), tool_use_id=fields.get("id"))
        )
        return index, events

    def delta(self, index: int, text: str) -> list[ProviderEvent]:
        if not text:
            return []
        self._open[index][1].append(text)
        return [BlockDelta(index, text)]

    def update(self, index: int, **fields: Any) -> None:
        """Set block fields that arrive late (a thinking signature, a tool name)."""
        self._open[index][2].update(fields)

    def end_block(self, index: int) -> list[ProviderEvent]:
        kind, parts, fields = self._open.pop(index)
        text = "".join(parts)
        block: ContentBlock
        if kind == "tool_use":
            block = ToolUseBlock(fields.get("id", ""), fields.get("name", ""), text)
        elif kind == "thinking":
            block = ThinkingBlock(text, fields.get("signature"), bool(fields.get("redacted")))
        else:
            block = TextBlock(text)
        self.blocks.append(block)
        return [BlockEnd(index, block)]

    def open_blocks(self) -> list[int]:
        return sorted(self._open)

    def finish(
        self,
        stop_reason: StopReason,
        raw_stop_reason: str | None = None,
        error_message: str | None = None,
    ) -> list[ProviderEvent]:
        """Close every open block and end the message."""
        if self._ended:
            return []
        events = self.start()
        for index in self.open_blocks():
            events.extend(self.end_block(index))
        self._ended = True
        message = AssistantMessage(
            list(self.blocks),
            stop_reason,
            raw_stop_reason=raw_stop_reason,
            provider=self.provider,
            api=self.api,
            model=self.model,
            response_model=self.response_model,
            response_id=self.response_id,
            usage=self.usage,
            error_message=error_message,
        )
        events.append(MessageEnd(message))
        return events

    def fail(self, stop_reason: StopReason, error_message: str) -> list[ProviderEvent]:
        """End the message as failed or aborted, keeping the partial content."""
        return self.finish(stop_reason, error_message=error_message)
