"""What the host keeps stable from request to request, so providers' caches hold."""

from __future__ import annotations

import json

from agentkit_provider_anthropic import AnthropicMessages
from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent

from agentkit.plugin_api import ModelInfo, ProviderRequest, Tool, ToolSpec, UserMessage


def named(name: str) -> Tool:
    return Tool(name, f"The {name} tool.", {"type": "object"}, lambda arguments, context: name)


def sent_tools(request) -> list[tuple[str, bool]]:
    return [(tool["name"], tool.get("deferred", False)) for tool in request.tools]


def test_a_tool_added_mid_session_is_declared_after_the_prefix_and_stays_deferred():
    agent, script = make_agent(
        [Turn([text("first")]), Turn([tool_call("late")]), Turn([text("used it")]), Turn([text("again")])],
        ToolsPlugin(named("alpha"), named("beta")),
    )
    agent.run_sync("one")
    specs_before = agent.tool_specs()
    agent.add_tools(named("late"))
    agent.run_sync("two")
    agent.run_sync("three")
    assert sent_tools(script.requests[0]) == [("alpha", False), ("beta", False)]
    for request in script.requests[1:]:
        assert sent_tools(request) == [("alpha", False), ("beta", False), ("late", True)]
    assert agent.tool_specs()[:2] == specs_before and agent.tool_specs()[0] is specs_before[0]
    assert agent.stats.tool_specs_built == 3, "the first two schemas were never rebuilt"


def test_a_tool_enabled_by_a_handler_during_a_run_is_deferred_on_the_next_request():
    holder = []

    def enable_more() -> str:
        """Connect a new tool source."""
        holder[0].add_tools(named("discovered"))
        return "connected"

    agent, script = make_agent(
        [Turn([tool_call("enable_more")]), Turn([tool_call("discovered")]), Turn([text("done")])],
        ToolsPlugin(Tool.from_function(enable_more)),
    )
    holder.append(agent)
    result = agent.run_sync("go")
    assert json.loads(result.messages[4].text) == {"ok": True, "data": "discovered"}
    assert sent_tools(script.requests[1]) == [("enable_more", False), ("discovered", True)]


def test_a_plugin_handler_enables_tools_through_its_context_and_they_arrive_deferred():
    async def connect(arguments, context):
        context.add_tools(named("from_plugin"))
        return "connected"

    agent, script = make_agent(
        [Turn([tool_call("connect")]), Turn([tool_call("from_plugin")]), Turn([text("done")])],
        ToolsPlugin(Tool("connect", "Connect a tool source.", {"type": "object"}, connect)),
    )
    result = agent.run_sync("go")
    assert json.loads(result.messages[4].text) == {"ok": True, "data": "from_plugin"}
    assert sent_tools(script.requests[1]) == [("connect", False), ("from_plugin", True)]


def test_anthropic_keeps_deferred_tools_outside_the_tool_breakpoint():
    provider = AnthropicMessages()
    model: ModelInfo = next(row for row in provider.catalog() if row.default)
    specs = [ToolSpec("alpha", "A.", {"type": "object"}), ToolSpec("beta", "B.", {"type": "object"}),
             ToolSpec("late", "L.", {"type": "object"}, deferred=True)]
    body = json.loads(provider.encode(ProviderRequest(model=model, messages=[UserMessage.text("hi")], tools=specs)).body)
    assert [tool["name"] for tool in body["tools"]] == ["alpha", "beta", "late"]
    assert "cache_control" in body["tools"][1] and "cache_control" not in body["tools"][2]
