"""One test per hook specification, named after it: the contract of docs/plugins.md."""

from __future__ import annotations

from agentkit_provider_faux import FauxProvider, Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent, make_host

from agentkit.plugin_api import Block, ModelInfo, Skill, Tool, hookimpl

TOOL = Tool("act", "Act.", {"type": "object"}, lambda arguments, context: "acted")


def test_hook_agentkit_register_tools():
    host = make_host(ToolsPlugin(TOOL))
    assert host.tools["act"] is TOOL and host.plugin_of("tool", "act") == "plugin0"


def test_hook_agentkit_register_providers():
    class Other(FauxProvider):
        api = "other-wire"

        def catalog(self):
            return (ModelInfo("other", "m1", "other-wire", "http://x.invalid", 1000, 100, default=True),)

    class Plugin:
        @hookimpl
        def agentkit_register_providers(self, register):
            register(Other())

    host = make_host(Plugin())
    assert host.providers["other-wire"].api == "other-wire"
    assert host.resolve_model("other/m1").api == "other-wire"


def test_hook_agentkit_register_skills():
    class Plugin:
        @hookimpl
        def agentkit_register_skills(self, register):
            register(Skill("review", "Review a diff.", "Read the diff, then comment."))

    host = make_host(Plugin())
    assert host.skills["review"].instructions.startswith("Read the diff")
    duplicate = host.register(Plugin(), name="again")
    assert "skill 'review' is also registered by plugin 'plugin0'" in duplicate.collisions[0]
    assert "review" not in host.skills


class Hooks:
    def __init__(self):
        self.calls = []

    @hookimpl
    def agentkit_before_tool_call(self, call, arguments, session):
        self.calls.append(("before", call.name, arguments, session.model))
        return Block("hooked") if arguments.get("stop") else None

    @hookimpl
    def agentkit_after_tool_call(self, call, result, session):
        self.calls.append(("after", call.id, result.is_error))

    @hookimpl
    def agentkit_session_start(self, session):
        self.calls.append(("start", session.model))

    @hookimpl
    def agentkit_session_end(self, session, outcome, error):
        self.calls.append(("end", outcome, error))


def run_with_hooks():
    hooks = Hooks()
    agent, _ = make_agent(
        [Turn([tool_call("act", {"stop": True}), tool_call("act", {})]), Turn([text("ok")])],
        ToolsPlugin(TOOL), hooks,
    )
    return agent.run_sync("go"), hooks.calls


def test_hook_agentkit_before_tool_call():
    result, calls = run_with_hooks()
    before = [call for call in calls if call[0] == "before"]
    assert before == [("before", "act", {"stop": True}, "faux/scripted"), ("before", "act", {}, "faux/scripted")]
    assert "hooked" in result.messages[2].text and not result.messages[3].is_error


def test_hook_agentkit_after_tool_call():
    _, calls = run_with_hooks()
    assert [call for call in calls if call[0] == "after"] == [("after", "call_1_1", True), ("after", "call_1_2", False)]


def test_hook_agentkit_session_start():
    _, calls = run_with_hooks()
    assert calls[0] == ("start", "faux/scripted")


def test_hook_agentkit_session_end():
    _, calls = run_with_hooks()
    assert calls[-1] == ("end", "completed", None)


def test_hook_agentkit_mcp_servers():
    asked = []

    class Servers:
        @hookimpl
        def agentkit_mcp_servers(self, tools):
            asked.append(tools)
            return [{"name": "wiki", "transport": "http"},
                    {"name": "calc", "transport": "stdio", "era": "modern", "protocol_version": "2026-07-28"}]

    class Broken:
        @hookimpl
        def agentkit_mcp_servers(self, tools):
            return [{"name": "odd", "transport": ["not", "a", "scalar"]}]

    class Raising:
        @hookimpl
        def agentkit_mcp_servers(self, tools):
            raise RuntimeError("no idea")

    seen = []
    agent, _ = make_agent([Turn([text("ok")])], ToolsPlugin(TOOL), Servers(), Broken(), Raising(), audit=seen.append)
    result = agent.run_sync("go")

    assert result.outcome == "completed" and asked == [["act"]]
    assert seen[0].mcp_servers == ({"name": "calc", "transport": "stdio", "era": "modern",
                                    "protocol_version": "2026-07-28"}, {"name": "wiki", "transport": "http"})
    assert seen[0].to_dict()["mcp_servers"][0]["name"] == "calc"
    assert len(result.problems) == 2 and all("left out of the audit" in problem for problem in result.problems)
    quiet, _ = make_agent([Turn([text("ok")])], ToolsPlugin(TOOL), Servers())
    quiet.run_sync("go")
    assert asked == [["act"]]  # no trail kept: the plugins are not asked
