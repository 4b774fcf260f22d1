"""Checking a decoder's canonical events before anyone consumes them.

A provider plugin is third-party code, and its decoder may be wrong in ways
that would otherwise reach the loop: a ``None`` (the loop's own end-of-stream
marker), a delta for a block that never started, two tool calls with one id
(both would run). :class:`StreamPolice` turns each of these into a
:class:`ProviderDefect` naming the provider, and counts the response's bytes
against its :class:`~agentkit.host.runtime.ResponseLimits`.
"""

from __future__ import annotations

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

_EVENT_TYPES = (MessageStart, BlockStart, BlockDelta, BlockEnd, MessageEnd)
_BUCKETS = {"thinking": "thinking", "tool_use": "arguments"}
_LIMIT_FIELDS = {"text": "text_bytes", "thinking": "thinking_bytes", "arguments": "argument_bytes"}
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
        self.limits = {bucket: getattr(limits, field) for bucket, field in _LIMIT_FIELDS.items()}
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

    def check(self, event: object, *, count: bool = True) -> None:
        """Raise :class:`ProviderDefect` or :class:`ResponseTooLarge` if ``event`` may not pass."""
        if isinstance(event, BlockDelta):
            bucket = self.open.get(event.index)
            if bucket is None:
                raise self.defect(self._unknown_block("sent a delta for", event.index))
            if not isinstance(event.delta, str):
                raise self.defect(f"sent a delta of {_describe(event.delta)} for block {event.index}")
            if count:
                self._count(bucket, _size(event.delta) + DELTA_BYTES)
        elif isinstance(event, BlockStart):
            if event.index in self.open or event.index in self.closed:
                raise self.defect(f"started block {event.index} twice")
            if event.kind == "tool_use" and event.tool_use_id:
                self._new_tool_id(event.tool_use_id)
            self.start_ids[event.index] = event.tool_use_id
            bucket = self.open[event.index] = _BUCKETS.get(event.kind, "text")
            if count:
                self._count(bucket, BLOCK_BYTES)
        elif isinstance(event, BlockEnd):
            if event.index not in self.open:
                raise self.defect(self._unknown_block("ended", event.index))
            block = event.block
            if isinstance(block, ToolUseBlock) and block.id and block.id != self.start_ids.get(event.index):
                self._new_tool_id(block.id)
            del self.open[event.index]
            self.closed.add(event.index)
            self.blocks.append(block)
        elif isinstance(event, MessageEnd):
            if not isinstance(event.message, AssistantMessage):
                raise self.defect(f"ended the message with {_describe(event.message)}, not an AssistantMessage")
            ids = [block.id for block in event.message.content if isinstance(block, ToolUseBlock) and block.id]
            if len(set(ids)) != len(ids):
                twice = next(i for n, i in enumerate(ids) if i in ids[:n])
                raise self.defect(f"used the tool-call id {twice!r} twice")
        elif not isinstance(event, _EVENT_TYPES):
            raise self.defect(f"produced {_describe(event)} where an event was expected")

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
        limit = self.limits[bucket]
        if used > limit:
            raise ResponseTooLarge(
                f"the response's {_WHAT[bucket]} passed its limit of {limit} bytes; the rest was "
                f"not read (raise response_limits.{_LIMIT_FIELDS[bucket]} in AgentConfig if this "
                "model's answers are meant to be that long)"
            )
        self.used[bucket] = used
