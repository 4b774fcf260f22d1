"""Canonical transcript -> the ``messages`` array of an Anthropic request.

The wire rules:

* Tool results: the canonical transcript holds one message per call; this
  wire wants every result of a batch in ONE user message, ``tool_result``
  blocks first, then any other user content that follows them.
* Tool-call arguments: the wire carries ``tool_use.input`` as a JSON object,
  not as text, so the exact argument text cannot travel byte for byte. It is
  parsed with its key order preserved, and the host re-serializes it in that
  order. Text that is empty, not JSON, or not an object (a call cut off by
  the token limit) is sent as ``{}``: the wire has no way to carry it.
* Empty text blocks are rejected by the API, so they are dropped; a message
  left with no content is dropped too (the API joins consecutive turns of one
  role, so nothing is lost).
* Thinking: signed thinking is replayed with its signature, redacted thinking
  as ``redacted_thinking`` with its opaque data. Unsigned thinking (which the
  host's repair pass normally turns into text first) is sent as text, since
  the API rejects thinking without a signature.

Cost per turn stays nearly flat with depth. The host sends the same
transcript again each turn with new messages appended, so the grouping state
after the last request, with each closed wire message already serialized, is
kept per conversation (keyed by its first message); only the appended tail is
encoded and serialized. A transcript that is not an extension of the kept one
is encoded from the start, reusing each message's wire blocks (built once per
message object). Messages are treated as immutable once encoded: the host
appends to a transcript, it does not edit one in place.
"""

from __future__ import annotations

import functools
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agentkit.plugin_api import (
    AssistantMessage,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolUseBlock,
    UserMessage,
)

Wire = dict[str, Any]


class IdentityCache:
    """A bounded LRU map from an object (by identity) to what was built from it.

    Each entry holds the object itself, so its id cannot be reused while the
    entry lives, and a ``stamp`` (a cheap fingerprint such as a block count)
    that must match for a hit.
    """

    def __init__(self, max_entries: int) -> None:
        self._entries: OrderedDict[int, tuple[object, object, Any]] = OrderedDict()
        self._max = max_entries
        self._lock = threading.Lock()

    def lookup(self, obj: object, stamp: object = None) -> Any:
        """What was kept for ``obj`` with this stamp, or ``None``."""
        key = id(obj)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] is not obj or entry[1] != stamp:
                return None
            self._entries.move_to_end(key)
            return entry[2]

    def put(self, obj: object, stamp: object, value: Any) -> None:
        key = id(obj)
        with self._lock:
            self._entries[key] = (obj, stamp, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)

    def get(self, obj: object, stamp: object, build: Callable[[], Any]) -> Any:
        """The kept value, or a fresh one from ``build()`` (kept for next time)."""
        value = self.lookup(obj, stamp)
        if value is None:
            value = build()
            self.put(obj, stamp, value)
        return value


@dataclass(frozen=True, slots=True)
class _State:
    """Where grouping stood after a transcript: closed wire messages, the open user turn."""

    messages: list[Message]
    wire: list[Wire]
    fragments: list[bytes]  # each closed wire message, serialized
    results: list[Wire]
    extra: list[Wire]


def dumps(value: Any) -> bytes:
    """JSON bytes the way the host would serialize them: compact, UTF-8, key order kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


class TranscriptEncoder:
    """Builds ``messages`` arrays; shared by every request of one provider object."""

    def __init__(self, *, max_messages: int = 8192, max_conversations: int = 64) -> None:
        self._blocks = IdentityCache(max_messages)
        self._states = IdentityCache(max_conversations)

    def encode(self, messages: Sequence[Message], cache_control: Wire | None) -> list[bytes]:
        """The serialized ``messages`` array, in pieces for the caller to join once.

        The last user block carries the rolling breakpoint when ``cache_control`` is set.
        """
        current = list(messages)
        if not current:
            return [b"[]"]
        kept: _State | None = self._states.lookup(current[0])
        done = len(kept.messages) if kept else 0
        # List equality tests identity first, so an unchanged prefix costs a C loop.
        if kept and len(current) >= done and current[:done] == kept.messages:
            wire, fragments = list(kept.wire), list(kept.fragments)
            results, extra = list(kept.results), list(kept.extra)
        else:
            wire, fragments, results, extra, done = [], [], [], [], 0
        self._group(current[done:], wire, results, extra)
        fragments.extend(dumps(message) for message in wire[len(fragments) :])
        # The kept state is never edited: the next request copies it before extending.
        self._states.put(current[0], None, _State(current, wire, fragments, results, extra))
        out = list(fragments)
        last_user = next(
            (i for i in range(len(wire) - 1, -1, -1) if wire[i]["role"] == "user"), None
        )
        if results or extra:
            out.append(dumps(_stamped(results + extra, cache_control)))
        elif last_user is not None and cache_control:
            out[last_user] = dumps(_stamped(wire[last_user]["content"], cache_control))
        if not out:
            return [b"[]"]
        # Fragments with commas between them: the body is copied once, by the final join.
        pieces: list[bytes] = [b","] * (2 * len(out) + 1)
        pieces[1::2] = out
        pieces[0], pieces[-1] = b"[", b"]"
        return pieces

    def _group(
        self,
        messages: list[Message],
        wire: list[Wire],
        results: list[Wire],
        extra: list[Wire],
    ) -> None:
        for message in messages:
            blocks = self._blocks.get(message, len(message.content), functools.partial(_blocks, message))
            if isinstance(message, AssistantMessage):
                if not blocks:  # nothing the wire accepts: the user turns around it join
                    continue
                if results or extra:
                    wire.append({"role": "user", "content": results + extra})
                    results.clear()
                    extra.clear()
                wire.append({"role": "assistant", "content": blocks})
            elif isinstance(message, ToolResultMessage):
                if extra:  # results after user content start a new user turn
                    wire.append({"role": "user", "content": results + extra})
                    results.clear()
                    extra.clear()
                results.extend(blocks)
            else:
                extra.extend(blocks)


def _stamped(content: list[Wire], cache_control: Wire | None) -> Wire:
    """A user message whose last block carries the breakpoint; shared parts are copied, not edited."""
    if cache_control:
        content = [*content[:-1], {**content[-1], "cache_control": cache_control}]
    return {"role": "user", "content": content}


def _blocks(message: Message) -> list[Wire]:
    """The wire blocks of one canonical message (a tool result is one block)."""
    if isinstance(message, ToolResultMessage):
        block: Wire = {"type": "tool_result", "tool_use_id": message.tool_use_id}
        content = [_content(part) for part in message.content if _keep(part)]
        if content:
            block["content"] = content
        if message.is_error:
            block["is_error"] = True
        return [block]
    if isinstance(message, UserMessage):
        return [_content(part) for part in message.content if _keep(part)]
    out: list[Wire] = []
    for part in message.content:
        if isinstance(part, ToolUseBlock):
            out.append(
                {
                    "type": "tool_use",
                    "id": part.id,
                    "name": part.name,
                    "input": part.arguments_object(),
                }
            )
        elif isinstance(part, ThinkingBlock):
            if part.redacted:
                out.append({"type": "redacted_thinking", "data": part.signature or ""})
            elif part.signature:
                out.append(
                    {"type": "thinking", "thinking": part.thinking, "signature": part.signature}
                )
            elif part.thinking:
                out.append({"type": "text", "text": part.thinking})
        elif _keep(part):
            out.append(_content(part))
    return out


def _keep(part: object) -> bool:
    return not (isinstance(part, TextBlock) and not part.text)


def _content(part: object) -> Wire:
    if isinstance(part, TextBlock):
        return {"type": "text", "text": part.text}
    if isinstance(part, ImageBlock):
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": part.mime_type, "data": part.data},
        }
    raise TypeError(f"{type(part).__name__} cannot appear in a user message or a tool result")

