"""Transcript assertions: what a run added to the history, compared with what a test expected.

Expected messages are built with :func:`user`, :func:`assistant` and
:func:`tool_result`; the actual messages are shown the same way, so a failure
is a diff of two lists written as a test would write them::

    - assistant(tool_call('read_file', {'path': 'a.txt'}))
    + assistant(tool_call('read_file', {'path': 'b.txt'}))

Only what the expectation states is compared: tool-call ids, timestamps and
usage never are; a tool result's name, an assistant's stop reason and a
result's ``is_error`` only when given. :data:`ANY` matches any one value.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from unittest.mock import ANY

from agentkit.plugin_api import (
    AssistantMessage,
    AudioBlock,
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolUseBlock,
    UserMessage,
)

__all__ = ["ANY", "ExpectedMessage", "assert_transcript", "assistant", "tool_result", "user"]

#: A block as compared: ``("text", value)``, ``("tool_call", name, arguments)``, ``("thinking", value)``, ``("image",)``,
#: ``("document",)``, ``("audio",)``.
Shape = tuple[Any, ...]


@dataclass(frozen=True)
class ExpectedMessage:
    """One message of an expected transcript; build it with :func:`user`, :func:`assistant` or :func:`tool_result`.

    :param role: ``user``, ``assistant`` or ``tool_result``.
    :param blocks: the content, as compared (see :data:`Shape`).
    :param fields: further fields to compare (``name``, ``is_error``, ``stop_reason``); ``None`` values are not compared.
    """

    role: str
    blocks: tuple[Shape, ...]
    fields: tuple[tuple[str, Any], ...] = ()

    def matches(self, actual: ExpectedMessage) -> bool:
        """Whether ``actual`` (a message as :func:`shape` sees it) is what this expects."""
        wanted = {key: value for key, value in self.fields if value is not None}
        have = dict(actual.fields)
        return (self.role == actual.role and self.blocks == actual.blocks
                and all(have.get(key) == value for key, value in wanted.items()))

    def render(self, fields: Sequence[str] | None = None) -> str:
        """This message as a test would write it; ``fields``: which fields to show (default: those set)."""
        shown = [(key, value) for key, value in self.fields
                 if (value is not None if fields is None else key in fields)]
        if self.role == "tool_result":
            parts = [repr(_text_of(self.blocks))]
        else:
            parts = [_render_block(block) for block in self.blocks]
        parts.extend(f"{key}={value!r}" for key, value in shown)
        return f"{self.role}({', '.join(parts)})"

    def __repr__(self) -> str:
        return self.render()


def user(*content: str) -> ExpectedMessage:
    """A user message of these texts."""
    return ExpectedMessage("user", tuple(("text", value) for value in content))


def assistant(*content: str | ContentBlock | Any, stop_reason: str | None = None) -> ExpectedMessage:
    """An assistant message of these blocks, in order: a string is a text block; ``tool_call(...)`` a call
    (its arguments compared as JSON values, its id never); ``thinking(...)`` a thinking block.

    :param stop_reason: compared only when given (``"stop"``, ``"error"``, ...).
    """
    blocks = tuple(("text", item) if isinstance(item, str) or item is ANY else _block_shape(item) for item in content)
    return ExpectedMessage("assistant", blocks, (("stop_reason", stop_reason),))


def tool_result(content: str, *, name: str | None = None, is_error: bool | None = None) -> ExpectedMessage:
    """The result of one tool call: its text (several text blocks joined by newlines).

    :param name: the tool's name, compared only when given.
    :param is_error: compared only when given.
    """
    return ExpectedMessage("tool_result", (("text", content),), (("name", name), ("is_error", is_error)))


def shape(message: Message) -> ExpectedMessage:
    """``message`` as an :class:`ExpectedMessage`, every field set."""
    if isinstance(message, UserMessage):
        return ExpectedMessage("user", tuple(_block_shape(block) for block in message.content))
    if isinstance(message, AssistantMessage):
        return ExpectedMessage("assistant", tuple(_block_shape(block) for block in message.content),
                               (("stop_reason", message.stop_reason.value),))
    if isinstance(message, ToolResultMessage):
        text = "\n".join(block.text if isinstance(block, TextBlock) else "[image]" for block in message.content)
        return ExpectedMessage("tool_result", (("text", text),),
                               (("name", message.tool_name), ("is_error", message.is_error)))
    raise TypeError(f"not a message: {message!r}")


def assert_transcript(messages: Sequence[Message], expected: Sequence[ExpectedMessage]) -> None:
    """Assert that ``messages`` (e.g. ``result.messages``) are ``expected``, message by message.

    :raises AssertionError: with a diff, ``-`` for what was expected and ``+`` for what the run did.
    """
    actual = [shape(message) for message in messages]
    if len(actual) == len(expected) and all(want.matches(have) for want, have in zip(expected, actual, strict=True)):
        return
    wanted = [want.render() for want in expected]
    # Each actual message shows the fields its counterpart states, so the diff shows only what differs.
    have = [message.render([key for key, value in expected[index].fields if value is not None]
                           if index < len(expected) else [])
            for index, message in enumerate(actual)]
    for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if want.matches(got):
            have[index] = wanted[index]  # ANY matched: show the expectation, not a false difference
    diff = difflib.ndiff(wanted, have)
    raise AssertionError("the transcript differs (- expected, + actual):\n" + "\n".join(
        line for line in diff if not line.startswith("?")))


def _block_shape(block: ContentBlock) -> Shape:
    if isinstance(block, TextBlock):
        return ("text", block.text)
    if isinstance(block, ToolUseBlock):
        try:
            arguments: Any = json.loads(block.arguments) if block.arguments else {}
        except ValueError:
            arguments = block.arguments  # what the model sent, verbatim
        return ("tool_call", block.name, arguments)
    if isinstance(block, ThinkingBlock):
        return ("thinking", block.thinking)
    if isinstance(block, ImageBlock):
        return ("image",)
    if isinstance(block, DocumentBlock | AudioBlock):
        return (block.type,)
    raise TypeError(f"not a content block: {block!r}")


def _render_block(block: Shape) -> str:
    kind, *values = block
    if kind == "text":
        return repr(values[0])
    return f"{kind}({', '.join(repr(value) for value in values)})"


def _text_of(blocks: tuple[Shape, ...]) -> Any:
    return blocks[0][1] if blocks else ""
