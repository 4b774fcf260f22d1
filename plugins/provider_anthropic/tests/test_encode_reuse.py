"""Reusing earlier work never changes a body: a long-lived provider encodes every
request to the same bytes a fresh one would, whatever the order of requests."""

from __future__ import annotations

import json

from agentkit_provider_anthropic import AnthropicMessages
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.plugin_api import (
    AssistantMessage,
    StopReason,
    TextBlock,
    ToolResultMessage,
    ToolSpec,
    ToolUseBlock,
    UserMessage,
)

_TOOLS = [ToolSpec(f"t{n}", "a tool", {"type": "object"}) for n in range(3)]


def _message(kind: int, n: int):
    if kind == 0:
        return UserMessage.text(f"user {n}")
    if kind == 1:
        return AssistantMessage(
            [TextBlock(f"a{n}"), ToolUseBlock(f"c{n}", "t0", f'{{"n": {n}}}')], StopReason.TOOL_USE
        )
    if kind == 2:
        return ToolResultMessage(f"c{n}", "t0", [TextBlock(f"r{n}")], is_error=n % 2 == 0)
    if kind == 3:  # dropped on the wire: the user turns around it join
        return AssistantMessage([TextBlock("")], StopReason.REFUSAL)
    return UserMessage([TextBlock("")])


_conversation = st.lists(st.integers(0, 4), min_size=1, max_size=12).map(
    lambda kinds: [_message(kind, n) for n, kind in enumerate(kinds)]
)


def _body(provider, kit, messages, tools) -> bytes:
    request = kit.request_for(messages=messages, tools=tools, system="s")
    return provider.encode(request).body


@settings(max_examples=150, deadline=None)
@given(
    conversations=st.lists(_conversation, min_size=1, max_size=3),
    steps=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 12), st.booleans()), max_size=25),
)
def test_a_reused_provider_encodes_like_a_fresh_one(kit, conversations, steps) -> None:
    """Requests jump between conversations, grow, shrink and edit their middle."""
    shared = AnthropicMessages()
    for which, depth, edit in steps:
        messages = list(conversations[which % len(conversations)][: max(depth, 1)])
        if edit and len(messages) > 2:
            messages[1] = _message(0, 99)  # a transcript that is not an extension
        tools = _TOOLS[: 1 + depth % 3]
        assert _body(shared, kit, messages, tools) == _body(
            AnthropicMessages(), kit, messages, tools
        )


def test_the_kept_state_is_not_edited_by_the_rolling_breakpoint(kit) -> None:
    shared = AnthropicMessages()
    first = [UserMessage.text("q"), _message(1, 1), _message(2, 1)]
    _body(shared, kit, first, _TOOLS)
    longer = [*first, _message(1, 2), _message(2, 2)]
    body = json.loads(_body(shared, kit, longer, _TOOLS))
    stamped = [
        (i, j)
        for i, message in enumerate(body["messages"])
        for j, block in enumerate(message["content"])
        if "cache_control" in block
    ]
    assert stamped == [(4, 0)]
