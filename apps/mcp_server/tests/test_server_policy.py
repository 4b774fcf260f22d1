"""Every served tools/call is authorized as in an agent: the embedder's before_tool_call first, then the
hook plugins (narrow only, fail closed); shell tools are served only under a policy. Driven through the
SDK's own client, in both eras, against a server running in this process."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from agentkit_mcp_server import MCPToolServer, ToolServer, ToolServerError
from mcp import Client

from agentkit.host import PluginHost
from agentkit.plugin_api import Block, Tool, hookimpl

ERAS = ["auto", "legacy"]
ECHO_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


class Tools:
    """A tools plugin whose handlers count their calls."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def _handler(self, name: str) -> Any:
        def handler(arguments: dict[str, Any], context: Any) -> str:
            self.ran.append(name)
            return f"{name} ran with {arguments.get('text')}"
        return handler

    @hookimpl
    def agentkit_register_tools(self, register):
        register(Tool(name="echo", description="Echo.", input_schema=ECHO_SCHEMA, handler=self._handler("echo")))
        register(Tool(name="shell", description="Run a command.", input_schema=ECHO_SCHEMA,
                      handler=self._handler("shell"), requires_authorization=True))


class Hook:
    """A hooks plugin: blocks what ``answer`` says, and notes what it was shown."""

    def __init__(self, answer: Any = None) -> None:
        self.answer = answer
        self.asked: list[str] = []
        self.after: list[tuple[str, bool]] = []

    @hookimpl
    def agentkit_before_tool_call(self, call, arguments, session):
        self.asked.append(call.name)
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer

    @hookimpl
    def agentkit_after_tool_call(self, call, result, session):
        self.after.append((call.name, result.is_error))


def host_with(*plugins: object) -> PluginHost:
    host = PluginHost()
    for index, plugin in enumerate(plugins):
        record = host.register(plugin, name=f"plugin{index}")
        assert record.status == "loaded", record.reason
    return host


def call(server: ToolServer, mode: str, name: str, text: str = "hi") -> tuple[bool, str]:
    async def main() -> tuple[bool, str]:
        async with Client(MCPToolServer(server).server, mode=mode) as client:
            result = await client.call_tool(name, {"text": text})
            return bool(result.is_error), result.content[0].text
    return anyio.run(main)


def listed(server: ToolServer, mode: str) -> list[str]:
    async def main() -> list[str]:
        async with Client(MCPToolServer(server).server, mode=mode) as client:
            return [tool.name for tool in (await client.list_tools()).tools]
    return anyio.run(main)


@pytest.mark.parametrize("mode", ERAS)
def test_the_embedders_block_stops_the_call_before_any_plugin_sees_it(mode):
    tools, hook = Tools(), Hook()
    server = ToolServer(host_with(tools, hook), before_tool_call=lambda call, arguments: Block("not over MCP"))

    is_error, text = call(server, mode, "echo")

    assert (is_error, tools.ran, hook.asked) == (True, [], [])
    assert "not over MCP" in text


@pytest.mark.parametrize("mode", ERAS)
def test_a_hook_plugin_blocks_what_the_embedder_allowed(mode):
    tools, hook = Tools(), Hook(Block("the hook says no"))
    server = ToolServer(host_with(tools, hook), before_tool_call=lambda call, arguments: None)

    is_error, text = call(server, mode, "echo")

    assert (is_error, tools.ran, hook.asked) == (True, [], ["echo"])
    assert "the hook says no" in text


@pytest.mark.parametrize("mode", ERAS)
def test_a_hook_that_raises_blocks_the_call(mode):
    tools = Tools()
    server = ToolServer(host_with(tools, Hook(RuntimeError("broken hook"))))

    is_error, _text = call(server, mode, "echo")

    assert (is_error, tools.ran) == (True, [])


@pytest.mark.parametrize("mode", ERAS)
def test_an_allowed_call_runs_and_the_after_hook_sees_its_result(mode):
    tools, hook = Tools(), Hook()
    server = ToolServer(host_with(tools, hook))

    is_error, text = call(server, mode, "echo", "there")

    assert (is_error, text, tools.ran, hook.after) == (False, "echo ran with there", ["echo"], [("echo", False)])


@pytest.mark.parametrize("mode", ERAS)
def test_arguments_that_do_not_match_the_schema_are_an_error_result_and_nothing_runs(mode):
    tools = Tools()
    server = ToolServer(host_with(tools))

    async def main() -> tuple[bool, str]:
        async with Client(MCPToolServer(server).server, mode=mode) as client:
            result = await client.call_tool("echo", {"text": 42})
            return bool(result.is_error), result.content[0].text

    is_error, text = anyio.run(main)

    assert (is_error, tools.ran) == (True, [])
    assert "schema" in text


@pytest.mark.parametrize("mode", ERAS)
def test_shell_tools_are_not_served_without_a_policy(mode):
    tools = Tools()
    server = ToolServer(host_with(tools))

    assert listed(server, mode) == ["echo"]
    is_error, text = call(server, mode, "shell")
    assert (is_error, tools.ran) == (True, [])
    assert "No tool named 'shell'" in text


@pytest.mark.parametrize("mode", ERAS)
def test_shell_tools_are_served_under_a_policy_and_the_policy_decides(mode):
    tools = Tools()
    seen: list[str] = []

    def policy(call, arguments):
        seen.append(arguments["text"])
        return None if arguments["text"] == "ls" else Block("only ls")

    server = ToolServer(host_with(tools), before_tool_call=policy)

    assert listed(server, mode) == ["echo", "shell"]
    assert call(server, mode, "shell", "rm -rf /")[0] is True
    assert call(server, mode, "shell", "ls") == (False, "shell ran with ls")
    assert (tools.ran, seen) == (["shell"], ["rm -rf /", "ls"])


def test_asking_for_a_shell_tool_by_name_without_a_policy_is_refused_with_the_fix():
    with pytest.raises(ToolServerError, match="--policy"):
        ToolServer(host_with(Tools()), tools=["shell"])


def test_a_tool_added_in_code_is_served_and_governed_like_an_installed_one():
    hook = Hook(Block("hooks see code tools too"))
    server = ToolServer(host_with(Tools(), hook))
    ran: list[str] = []
    server.add_tool(Tool(name="greet", description="Greet.", input_schema=ECHO_SCHEMA,
                         handler=lambda arguments, context: ran.append("greet")))

    assert listed(server, "auto") == ["echo", "greet"]
    assert call(server, "auto", "greet") == (True, "blocked: hooks see code tools too")
    assert (ran, hook.asked) == ([], ["greet"])


def test_a_tool_added_in_code_may_not_take_an_installed_tools_name():
    server = ToolServer(host_with(Tools()))

    with pytest.raises(ToolServerError, match="already served"):
        server.add_tool(Tool(name="echo", description="Another echo.", input_schema=ECHO_SCHEMA,
                             handler=lambda arguments, context: None))
