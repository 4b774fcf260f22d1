"""Send-time transcript repair: the view of the history that goes on the wire.

The history is what happened, and it is never changed here. What a wire
accepts is narrower: a user may press Ctrl-C in the middle of a batch and
resume, switch models halfway through a session, or load a session file that
lost its last lines. :func:`repair` builds, per request, a transcript every
wire accepts:

1. **Same model or not.** An assistant message is "same model" when its
   (vendor, api, model) are the target's. Only such messages keep what is
   meaningful to one model only (signatures, opaque ids).
2. **Failed responses go.** An assistant message that ended in ``error`` or
   ``aborted`` is dropped, and so are the tool results that answered its calls:
   otherwise the results name calls that are no longer there, and every wire
   rejects the request (the usual path: Ctrl-C during a batch, then resume).
3. **Foreign thinking.** From another model, signed thinking becomes plain
   text, redacted thinking (opaque to anyone else) is dropped, and no
   signature is sent.
4. **Unsigned thinking** (no signature, or an empty one) becomes text: no wire
   accepts a thinking block it cannot verify. Empty ones are dropped.
5. **Foreign tool-call ids** are rewritten to the target wire's alphabet and
   length, the same way in the call and in its result, deterministically (the
   same id gives the same rewrite on every turn, which keeps the prompt cache
   warm). Ids of the same model are never rewritten: the model made them.
6. **Every call is answered exactly once**, right after the message that made
   it: a missing result gets a synthetic error result (``No result
   provided``), an orphan or duplicate result is dropped.
7. **Images** become a short text note when the target model takes no image
   input; so do **documents** and **recordings** of a user message, for a
   model without document (audio) input.

Messages the repair leaves alone are passed through as the same objects, so a
codec that caches its encoding by identity keeps doing so.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Sequence
from typing import Any

from agentkit.plugin_api import (
    DEFAULT_TOOL_CALL_ID_RULE,
    AssistantMessage,
    AudioBlock,
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    Message,
    ModelInfo,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolUseBlock,
    UserMessage,
    provider_member,
)
from agentkit.plugin_api.codec import Transcript

__all__ = [
    "DEFAULT_TOOL_CALL_ID_RULE",
    "IMAGE_OMITTED",
    "MISSING_RESULT",
    "ToolCallIdRule",
    "TranscriptRepair",
    "common_prefix",
    "id_matches",
    "repair",
    "rewrite_tool_call_id",
    "tool_call_id_rule",
]

#: ``(character class, maximum length)`` a wire accepts for a tool-call id.
ToolCallIdRule = tuple[str, int]

MISSING_RESULT = "No result provided"
IMAGE_OMITTED = "(image omitted: model does not support images)"
#: What a document or a recording becomes for a model that takes none (``{}``: the block's type).
FILE_OMITTED = "({} omitted: model does not support {} input)"

# Digest characters appended to a rewritten id: enough that two different
# foreign ids do not meet, short enough to leave room for a readable prefix.
_DIGEST = 12


# Here rather than in a module of its own (the prompt estimate of ``_token_limits`` uses it too): every run
# loads this module, and one module fewer to find and load is 0.33 M instructions of a first use
# (``bench/_first_use.py`` under callgrind).
def common_prefix(seen: list[Any], current: Sequence[Any], start: int = 0) -> int:
    """How many leading items of ``current`` are the items of ``seen``.

    The usual case, a transcript that grew, is one list comparison done in C
    (identical items compare equal without calling ``__eq__``).

    :param start: how many leading items the caller knows to be the same
        (a :class:`~agentkit.plugin_api.codec.Transcript` line's promise): only
        the items after them are compared.
    """
    if len(seen) <= len(current):
        head = current[start : len(seen)]  # a list when ``current`` is one: no second copy
        if (head if isinstance(head, list) else list(head)) == (seen[start:] if start else seen):
            return len(seen)
    same = start
    for old, new in zip(seen[start:], current[start:], strict=False):
        if old is not new:
            break
        same += 1
    return same


def tool_call_id_rule(provider: Any) -> ToolCallIdRule:
    """The id rule of ``provider``'s wire: its ``tool_call_id_rule``, else the protocol's default
    (:data:`~agentkit.plugin_api.DEFAULT_TOOL_CALL_ID_RULE`)."""
    charclass, length = provider_member(provider, "tool_call_id_rule")
    return str(charclass), int(length)


def id_matches(value: str, rule: ToolCallIdRule) -> bool:
    """Whether ``value`` is a tool-call id the wire of ``rule`` accepts."""
    charclass, length = rule
    return len(value) <= length and re.fullmatch(f"{charclass}+", value) is not None  # "+": not empty


def rewrite_tool_call_id(value: str, rule: ToolCallIdRule) -> str:
    """``value`` made acceptable to ``rule``; an acceptable id comes back unchanged.

    Anything else keeps the characters the wire allows (others become ``_``),
    cut to leave room for ``_`` and a digest of the original id, so that two
    ids that only differed in dropped characters stay different.
    """
    if id_matches(value, rule):
        return value
    charclass, length = rule
    allowed = re.compile(charclass)
    kept = "".join(char if allowed.fullmatch(char) else "_" for char in value)
    digest = hashlib.sha256(value.encode(errors="surrogatepass")).hexdigest()
    digest = "".join(char for char in digest if allowed.fullmatch(char))[:_DIGEST]
    room = max(0, length - len(digest) - 1)
    candidate = f"{kept[:room]}_{digest}" if room else digest[:length]
    if not id_matches(candidate, rule):  # an alphabet without the separator or hex digits
        raise ValueError(
            f"cannot write tool-call ids for the rule {rule!r}: it must allow hex digits; "
            "fix the provider's tool_call_id_rule"
        )
    return candidate


def _same_model(message: AssistantMessage, target: ModelInfo) -> bool:
    return (message.provider, message.api, message.model) == (target.vendor, target.api, target.id)


def _images_to_text(blocks: Sequence[Any]) -> list[Any]:
    return [TextBlock(IMAGE_OMITTED) if isinstance(block, ImageBlock) else block for block in blocks]


def _assistant_content(
    message: AssistantMessage, same: bool, rule: ToolCallIdRule, images: bool
) -> list[ContentBlock]:
    content: list[ContentBlock] = []
    for block in message.content:
        if isinstance(block, ThinkingBlock):
            if block.redacted:
                if same:
                    content.append(block)
                continue  # opaque to any other model
            if same and block.signature:
                content.append(block)
            elif block.thinking.strip():
                content.append(TextBlock(block.thinking))
        elif isinstance(block, ToolUseBlock) and not same:
            # An id that already fits gives an equal block, and the message stays the same object.
            content.append(dataclasses.replace(block, id=rewrite_tool_call_id(block.id, rule)))
        elif isinstance(block, ImageBlock) and not images:
            content.append(TextBlock(IMAGE_OMITTED))
        else:
            content.append(block)
    return content


def _missing(call: ToolUseBlock, timestamp: float) -> ToolResultMessage:
    # Stamped with the time of the call, not of the repair: the same history
    # must give the same bytes on every turn.
    return ToolResultMessage(call.id, call.name, [TextBlock(MISSING_RESULT)], is_error=True, timestamp=timestamp)


_NONE_OPEN: dict[str, tuple[ToolUseBlock, ToolResultMessage | None]] = {}


class _Repair:
    def __init__(self, target: ModelInfo, rule: ToolCallIdRule) -> None:
        self.target = target
        self.rule = rule
        self.images = target.image_input
        # The kinds of file the target takes no input of, which a user message switched to it loses.
        self.unsendable = tuple(kind for kind, able in ((DocumentBlock, target.document_input),
                                                         (AudioBlock, target.audio_input)) if not able)
        self.out: list[Message] = []
        # The calls of the last kept assistant message, by their original id:
        # (the call as sent, its result as sent or None).
        self.open: dict[str, tuple[ToolUseBlock, ToolResultMessage | None]] = {}
        self.opened_at = 0.0

    def close(self) -> None:
        """Answer every open call, in call order, right after the message that made it."""
        for call, result in self.open.values():
            self.out.append(result if result is not None else _missing(call, self.opened_at))
        self.open = {}

    def assistant(self, message: AssistantMessage) -> None:
        self.close()
        if message.stop_reason in (StopReason.ERROR, StopReason.ABORTED):
            return  # its results, if any, now answer nothing and are dropped as orphans
        content = _assistant_content(message, _same_model(message, self.target), self.rule, self.images)
        if not content:
            return  # nothing left to say; no wire accepts an empty assistant turn
        # A block the repair adapts is never equal to the original (another type, or another id).
        same = content == message.content  # nearly always: the blocks as they are, the same objects
        self.out.append(message if same else dataclasses.replace(message, content=content))
        self.opened_at = message.timestamp
        calls = message.tool_calls
        for original, sent in zip(
            calls, calls if same else [block for block in content if isinstance(block, ToolUseBlock)], strict=True
        ):
            self.open.setdefault(original.id, (sent, None))

    def result(self, message: ToolResultMessage) -> None:
        entry = self.open.get(message.tool_use_id)
        if entry is None or entry[1] is not None:
            return  # an orphan, or a second answer to one call
        call, _ = entry
        changed = call.id != message.tool_use_id
        content = message.content
        if not self.images and any(isinstance(block, ImageBlock) for block in content):
            content, changed = _images_to_text(content), True
        kept = dataclasses.replace(message, tool_use_id=call.id, content=content) if changed else message
        self.open[message.tool_use_id] = (call, kept)

    def user(self, message: UserMessage) -> None:
        self.close()
        if not self.images and any(isinstance(block, ImageBlock) for block in message.content):
            message = dataclasses.replace(message, content=_images_to_text(message.content))
        if self.unsendable and any(isinstance(block, self.unsendable) for block in message.content):
            message = dataclasses.replace(message, content=[
                TextBlock(FILE_OMITTED.format(block.type, block.type)) if isinstance(block, self.unsendable) else block
                for block in message.content])
        self.out.append(message)


class TranscriptRepair:
    """:func:`repair` for a transcript that grows: each call repairs only what is new.

    The repair's state after each message is kept (the repaired output so
    far, and the calls still waiting for results), and reused while the
    history starts with the same message objects (identity, as the codecs'
    caches compare). A turn at depth 200 then costs about what a turn at
    depth 20 does, and repaired messages stay the same objects from turn to
    turn, which keeps the codecs' own caches warm.
    """

    def __init__(self, target: ModelInfo, provider: Any = None) -> None:
        self.rule = tool_call_id_rule(provider)
        self._work = _Repair(target, self.rule)
        # Names the repaired sequence while it only grows; a new one when a message of it goes.
        self._line = object()
        self._inputs: list[Message] = []
        # After message i: (len(out), the open calls, when they were made).
        self._states: list[tuple[int, dict[str, tuple[ToolUseBlock, ToolResultMessage | None]], float]] = []

    def __call__(self, history: Sequence[Message]) -> Transcript:
        """The transcript to send for ``history``; see :func:`repair`.

        It is a :class:`~agentkit.plugin_api.codec.Transcript`: the repaired
        messages so far are its stable part, the calls still open its rest.
        """
        same = common_prefix(self._inputs, history)
        work = self._work
        kept, work.open, work.opened_at = self._states[same - 1] if same else (0, {}, 0.0)
        work.open = dict(work.open)
        if kept < len(work.out):
            self._line = object()  # repaired messages go: what was sent before is no prefix any more
        del work.out[kept:], self._inputs[same:], self._states[same:]
        for message in history[same:]:
            if isinstance(message, AssistantMessage):
                work.assistant(message)
            elif isinstance(message, ToolResultMessage):
                work.result(message)
            else:
                work.user(message)
            self._inputs.append(message)
            self._states.append((len(work.out), dict(work.open) if work.open else _NONE_OPEN, work.opened_at))
        # Calls still open at the end are answered in the view only: their
        # results may yet arrive in the history.
        tail = [result if result is not None else _missing(call, work.opened_at) for call, result in work.open.values()]
        return Transcript([*work.out, *tail] if tail else work.out, line=self._line, stable=len(work.out))


def repair(history: Sequence[Message], *, target: ModelInfo, provider: Any = None) -> Transcript:
    """The transcript to send to ``target`` for ``history``; ``history`` is not changed.

    :param history: the canonical transcript, as recorded.
    :param target: the catalog row of the model the request goes to.
    :param provider: the target's provider; its ``tool_call_id_rule`` (if any)
        decides how foreign tool-call ids are rewritten.
    :returns: a new list; messages that needed no repair are the same objects.
    """
    return TranscriptRepair(target, provider)(history)
