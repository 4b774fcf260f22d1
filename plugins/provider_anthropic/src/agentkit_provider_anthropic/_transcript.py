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

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from agentkit.plugin_api import (
    AssistantMessage,
    AudioBlock,
    DocumentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolUseBlock,
    UserMessage,
)
from agentkit.plugin_api.codec import (
    PLAIN_TEXT,
    IdentityCache,
    TranscriptEncoder,
    array,
    dumps,
    inline_file,
    inline_image,
    unsendable,
)
from agentkit.plugin_api.errors import ProviderError

Wire = dict[str, Any]


@dataclass(frozen=True, slots=True)
class _State:
    """Where grouping stood after a transcript: closed wire messages, the open user turn."""

    wire: tuple[Wire, ...] = ()
    fragments: tuple[bytes, ...] = ()  # each closed wire message, serialized
    results: tuple[Wire, ...] = ()
    extra: tuple[Wire, ...] = ()


class Transcript:
    """Builds ``messages`` arrays; shared by every request of one provider object."""

    def __init__(self, *, max_messages: int = 8192, max_conversations: int = 64) -> None:
        self._blocks: IdentityCache[list[Wire]] = IdentityCache(max_messages)
        self._states: TranscriptEncoder[_State] = TranscriptEncoder(self._extend, max_sessions=max_conversations)

    def encode(self, messages: Sequence[Message], cache_control: Wire | None) -> list[bytes]:
        """The serialized ``messages`` array, in pieces for the caller to join once.

        The last user block carries the rolling breakpoint when ``cache_control`` is set.
        """
        state = self._states.encode(messages)
        wire, out = state.wire, list(state.fragments)
        open_turn = [*state.results, *state.extra]
        if open_turn:
            out.append(dumps(_stamped(open_turn, cache_control)))
        elif cache_control:
            last_user = next((i for i in range(len(wire) - 1, -1, -1) if wire[i]["role"] == "user"), None)
            if last_user is not None:
                out[last_user] = dumps(_stamped(wire[last_user]["content"], cache_control))
        return array(out)

    def _extend(self, done: _State | None, new: Sequence[Message]) -> _State:
        kept = done or _State()
        wire, results, extra = list(kept.wire), list(kept.results), list(kept.extra)
        closed = len(wire)
        for message in new:
            blocks = self._blocks.get(message, partial(_blocks, message), len(message.content))
            if isinstance(message, AssistantMessage):
                if not blocks:  # nothing the wire accepts: the user turns around it join
                    continue
                if results or extra:
                    wire.append({"role": "user", "content": results + extra})
                    results, extra = [], []
                wire.append({"role": "assistant", "content": blocks})
            elif isinstance(message, ToolResultMessage):
                if extra:  # results after user content start a new user turn
                    wire.append({"role": "user", "content": results + extra})
                    results, extra = [], []
                results.extend(blocks)
            else:
                extra.extend(blocks)
        fragments = (*kept.fragments, *(dumps(message) for message in wire[closed:]))
        return _State(tuple(wire), fragments, tuple(results), tuple(extra))


def _stamped(content: Sequence[Wire], cache_control: Wire | None) -> Wire:
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
        if part.url:  # the Messages API downloads a URL image itself
            return {"type": "image", "source": {"type": "url", "url": part.url}}
        part = inline_image(part, "anthropic-messages")
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": part.mime_type, "data": part.data},
        }
    if isinstance(part, DocumentBlock):
        return {"type": "document", "source": _document_source(part)}
    if isinstance(part, AudioBlock):
        raise unsendable(part, "anthropic-messages")
    raise TypeError(f"{type(part).__name__} cannot appear in a user message or a tool result")


def _document_source(block: DocumentBlock) -> Wire:
    if block.url and not block.path:  # the Messages API downloads a URL PDF itself
        if block.mime_type == PLAIN_TEXT:
            raise ProviderError(f"anthropic-messages downloads only PDFs by URL, not the text at {block.url}; "
                                "pass the text's bytes or path")
        return {"type": "url", "url": block.url}
    inline_file(block, "anthropic-messages")
    if block.mime_type == PLAIN_TEXT:
        return {"type": "text", "media_type": PLAIN_TEXT, "data": base64.b64decode(block.data).decode("utf-8")}
    return {"type": "base64", "media_type": block.mime_type, "data": block.data}

