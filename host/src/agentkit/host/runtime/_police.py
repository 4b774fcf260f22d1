"""Checking a decoder's canonical events before anyone consumes them.

A provider plugin is third-party code, and its decoder may be wrong in ways
that would otherwise reach the loop: a ``None`` (the loop's own end-of-stream
marker), a delta for a block that never started, two tool calls with one id
(both would run). :class:`StreamPolice` turns each of these into a
:class:`ProviderDefect` naming the provider, and counts the response's bytes
against its :class:`~agentkit.host.runtime.ResponseLimits`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from agentkit.plugin_api import (
    AssistantMessage,
    BlockDelta,
    BlockEnd,
    BlockStart,
    ContentBlock,
    MessageEnd,
    MessageStart,
    ToolUseBlock,
)

from .limits import ResponseLimits

_BUCKETS = {"thinking": "thinking", "tool_use": "arguments"}
_LIMIT_FIELDS = {"text": "text_bytes", "thinking": "thinking_bytes", "arguments": "argument_bytes"}
_READ_LIMITS = operator.attrgetter(*_LIMIT_FIELDS.values())  # a response's limits, in _LIMIT_FIELDS order
_WHAT = {"text": "text", "thinking": "thinking", "arguments": "tool-call arguments"}


class ProviderDefect(Exception):
    """The decoder produced something no correct decoder produces."""


class ResponseTooLarge(Exception):
    """The response went past one of its :class:`ResponseLimits`."""


#: What each block and each delta counts toward its kind's limit beyond its
#: text: what keeping it costs (the block and its entries in the lists that
#: hold it, the delta's entry in its block's parts), so that a flood of empty
#: blocks or one-character deltas is bounded like a flood of text.
BLOCK_BYTES = 256
DELTA_BYTES = 8


def _size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _describe(value: object) -> str:
    return "None" if value is None else f"a {type(value).__name__}"


class StreamPolice:
    """Checks one response's events, in order; :meth:`check` raises on the first bad one.

    :param api: the provider's wire name, for the messages.
    :param limits: resolved limits (no ``None`` fields).
    """

    def __init__(self, api: str, limits: ResponseLimits) -> None:
        self.api = api
        self.limits = dict(zip(_LIMIT_FIELDS, _READ_LIMITS(limits), strict=True))
        self.used = dict.fromkeys(self.limits, 0)
        self.open: dict[int, str] = {}  # index -> bucket
        self.closed: set[int] = set()
        self.tool_ids: set[str] = set()
        self.start_ids: dict[int, str | None] = {}
        #: The blocks that ended properly: the content of a message ended for a defect.
        self.blocks: list[ContentBlock] = []

    def defect(self, what: str) -> ProviderDefect:
        return ProviderDefect(
            f"the {self.api!r} provider {what} (a defect in the provider plugin; "
            "the response was ended here and no tool call of it runs)"
        )

    def check_batch(self, events: object) -> None:
        if not isinstance(events, list | tuple):
            raise self.defect(f"returned {_describe(events)} where a list of events was expected")

    def check(self, event: object, count: bool = True) -> None:
        """Raise :class:`ProviderDefect` or :class:`ResponseTooLarge` if ``event`` may not pass."""
        self.check_of(event)(self, event, count)

    def check_of(self, event: object) -> Callable[[StreamPolice, Any, bool], None]:
        """The check of ``event``'s type, called as ``check(police, event, count)``.

        Every event of every response is checked: the check is found by the
        event's exact type, and an instance of a subclass of an event type is
        checked as that type (as ``isinstance`` finds it).

        :raises ProviderDefect: ``event`` is not an event.
        """
        check = EVENT_CHECKS.get(type(event))
        if check is None:
            check = next((check for base, check in EVENT_CHECKS.items() if isinstance(event, base)), None)
            if check is None:
                raise self.defect(f"produced {_describe(event)} where an event was expected")
        return check

    def _delta(self, event: BlockDelta, count: bool) -> None:
        index = event.index
        bucket = self.open.get(index)
        if bucket is None:
            raise self.defect(self._unknown_block("sent a delta for", index))
        delta = event.delta
        if not isinstance(delta, str):
            raise self.defect(f"sent a delta of {_describe(delta)} for block {index}")
        if count:
            self._count(bucket, _size(delta) + DELTA_BYTES)

    def _start(self, event: BlockStart, count: bool) -> None:
        index = event.index
        if index in self.open or index in self.closed:
            raise self.defect(f"started block {index} twice")
        call_id = event.tool_use_id
        if call_id and event.kind == "tool_use":
            self._new_tool_id(call_id)
        self.start_ids[index] = call_id
        bucket = self.open[index] = _BUCKETS.get(event.kind, "text")
        if count:
            self._count(bucket, BLOCK_BYTES)

    def _end(self, event: BlockEnd, count: bool) -> None:
        if event.index not in self.open:
            raise self.defect(self._unknown_block("ended", event.index))
        block = event.block
        if isinstance(block, ToolUseBlock) and block.id and block.id != self.start_ids.get(event.index):
            self._new_tool_id(block.id)
        del self.open[event.index]
        self.closed.add(event.index)
        self.blocks.append(block)

    def _message_end(self, event: MessageEnd, count: bool) -> None:
        if not isinstance(event.message, AssistantMessage):
            raise self.defect(f"ended the message with {_describe(event.message)}, not an AssistantMessage")
        ids = [block.id for block in event.message.content if isinstance(block, ToolUseBlock) and block.id]
        if len(set(ids)) != len(ids):
            twice = next(i for n, i in enumerate(ids) if i in ids[:n])
            raise self.defect(f"used the tool-call id {twice!r} twice")

    def _message_start(self, event: MessageStart, count: bool) -> None:
        pass

    def _unknown_block(self, verb: str, index: int) -> str:
        if index in self.closed:
            return f"{verb} block {index} after it ended"
        return f"{verb} block {index}, which never started"

    def _new_tool_id(self, call_id: str) -> None:
        if call_id in self.tool_ids:
            raise self.defect(f"used the tool-call id {call_id!r} twice")
        self.tool_ids.add(call_id)

    def _count(self, bucket: str, size: int) -> None:
        used = self.used[bucket] + size
        if used > self.limits[bucket]:
            raise self._too_large(bucket)
        self.used[bucket] = used

    def _too_large(self, bucket: str) -> ResponseTooLarge:
        return ResponseTooLarge(
            f"the response's {_WHAT[bucket]} passed its limit of {self.limits[bucket]} bytes; the rest was "
            f"not read (raise response_limits.{_LIMIT_FIELDS[bucket]} in AgentConfig if this "
            "model's answers are meant to be that long)"
        )


#: The check of each event type, in the order ``isinstance`` is asked for a subclass.
EVENT_CHECKS: dict[type, Callable[[StreamPolice, Any, bool], None]] = {
    BlockDelta: StreamPolice._delta,
    BlockStart: StreamPolice._start,
    BlockEnd: StreamPolice._end,
    MessageEnd: StreamPolice._message_end,
    MessageStart: StreamPolice._message_start,
}
