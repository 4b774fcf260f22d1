"""A batch's decisions, each observed through the public Agent API on the scripted provider."""

from __future__ import annotations

import json

from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent

from agentkit.plugin_api import Tool, ToolResultMessage


def results_of(messages) -> list[ToolResultMessage]:
    return [message for message in messages if isinstance(message, ToolResultMessage)]


def errors_of(messages) -> list[str | None]:
    return [json.loads(answer.text).get("error") for answer in results_of(messages)]


def test_an_abort_during_the_last_authorization_starts_no_handler():
    """The batch decides once, after every call was authorized: an abort by then runs nothing.

    The first call was allowed before the abort; it must not run either.
    """
    started = []

    async def act(n: int) -> int:
        """Record that this call started."""
        started.append(n)
        return n

    holder = []

    def abort_on_the_last_call(call, arguments):
        if call.id.endswith("_2"):
            holder[0].abort()
        return None

    agent, script = make_agent(
        [Turn([tool_call("act", {"n": 1}), tool_call("act", {"n": 2})]), Turn([text("never sent")])],
        ToolsPlugin(Tool.from_function(act)),
        before_tool_call=abort_on_the_last_call,
    )
    holder.append(agent)
    result = agent.run_sync("go")
    assert started == []
    assert errors_of(result.messages) == ["aborted", "aborted"]
    assert result.stop_reason == "aborted" and len(script.requests) == 1
