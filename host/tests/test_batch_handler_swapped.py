"""A tool is a plain object: a handler swapped during a run is called the way the new one needs."""

from __future__ import annotations

import json

from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent

from agentkit.plugin_api import Tool, ToolResultMessage


def test_a_handler_swapped_between_turns_is_called_the_way_the_new_one_needs():
    async def awaited(arguments, context):
        tool.handler = called
        return "awaited"

    def called(arguments, context):
        tool.handler = awaited
        return "called"

    tool = Tool("act", "Act.", {"type": "object"}, awaited)
    turns = [Turn([tool_call("act", {})]) for _ in range(3)] + [Turn([text("done")])]
    agent, _ = make_agent(turns, ToolsPlugin(tool))
    result = agent.run_sync("go")
    answers = [json.loads(message.text) for message in result.messages if isinstance(message, ToolResultMessage)]
    assert answers == [{"ok": True, "data": "awaited"}, {"ok": True, "data": "called"}, {"ok": True, "data": "awaited"}]
