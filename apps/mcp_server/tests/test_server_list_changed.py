"""listChanged is advertised and honoured: a tool an embedder adds or removes, plugins reloaded, and a
plugin installed while `agentkit mcp serve` runs, reach modern clients on their listen stream and legacy
clients that finished the handshake."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from agentkit_mcp_server import MCPToolServer, ToolServer
from mcp import Client, StdioServerParameters

from agentkit.host import PluginHost
from agentkit.plugin_api import Tool, hookimpl

SCHEMA = {"type": "object", "properties": {}}
#: Generous: a loaded CI box is slow, and a notification that never comes fails the test rather than hangs it.
PATIENCE = 60


def tool(name: str) -> Tool:
    return Tool(name=name, description=f"The {name} tool.", input_schema=SCHEMA, handler=lambda arguments, context: name)


class Plugin:
    def __init__(self, *names: str) -> None:
        self.names = names

    @hookimpl
    def agentkit_register_tools(self, register):
        for name in self.names:
            register(tool(name))


def host_with(*names: str) -> PluginHost:
    host = PluginHost()
    host.register(Plugin(*names), name="tools")
    return host


async def changes_seen(client: Client, mode: str, change: Any, received: list[object]) -> list[str]:
    """Make ``change`` while ``client`` listens in its era; the tools listed once it was told."""
    if mode == "legacy":
        await anyio.to_thread.run_sync(change)  # from another thread, as a plugin watcher does
        with anyio.fail_after(PATIENCE):
            while not received:
                await anyio.sleep(0.01)
    else:
        async with client.listen(tools_list_changed=True) as subscription:
            await anyio.to_thread.run_sync(change)
            with anyio.fail_after(PATIENCE):
                async for event in subscription:
                    received.append(event)
                    break
    return [listed.name for listed in (await client.list_tools()).tools]


def run_change(mode: str, tools: ToolServer, change: Any) -> tuple[list[str], int, bool]:
    server = MCPToolServer(tools)
    received: list[object] = []

    async def on_message(message: object) -> None:
        # a legacy client is told here; a modern one on its listen stream (counted by changes_seen)
        if mode == "legacy" and getattr(message, "method", None) == "notifications/tools/list_changed":
            received.append(message)

    async def main() -> tuple[list[str], int, bool]:
        server.bind()
        async with Client(server.server, mode=mode, message_handler=on_message) as client:
            advertised = bool(client.server_capabilities.tools and client.server_capabilities.tools.list_changed)
            await client.list_tools()
            names = await changes_seen(client, mode, change, received)
            return names, len(received), advertised
    return anyio.run(main)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_tool_the_embedder_adds_is_announced(mode):
    tools = ToolServer(host_with("first"))

    names, notified, advertised = run_change(mode, tools, lambda: tools.add_tool(tool("second")))

    assert (names, notified, advertised) == (["first", "second"], 1, True)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_tool_the_embedder_removes_is_announced(mode):
    tools = ToolServer(host_with("first"))
    tools.add_tool(tool("second"))

    names, notified, _ = run_change(mode, tools, lambda: tools.remove_tool("second"))

    assert (names, notified) == (["first"], 1)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_plugins_reloaded_with_one_disabled_are_announced(mode):
    host = PluginHost()
    host.register(Plugin("kept"), name="kept")
    host.register(Plugin("dropped"), name="dropped")
    tools = ToolServer(host)

    names, notified, _ = run_change(mode, tools, lambda: tools.reload(host_with("kept")))

    assert (names, notified) == (["kept"], 1)


def test_a_reload_that_changes_nothing_tells_nobody():
    tools = ToolServer(host_with("same"))
    told: list[None] = []
    tools.on_change(lambda: told.append(None))

    assert tools.reload(host_with("same")) is False
    assert told == []


PLUGIN = '''
from agentkit.plugin_api import Tool, hookimpl


@hookimpl
def agentkit_register_tools(register):
    register(Tool(name="{name}", description="Installed later.", input_schema={{"type": "object"}},
                  handler=lambda arguments, context: "{name}"))
'''


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_plugin_installed_while_the_command_serves_is_announced(agentkit, site_dir, mode):
    site_dir("first-tools", entry_points={"agentkit.tools": {"first_tools": "first_tools"}},
             files={"first_tools.py": PLUGIN.format(name="first")})
    env = {"AGENTKIT_LOAD_PLUGINS": "first_tools,later_tools,agentkit-tools-mcp"}  # later_tools: once installed
    params = StdioServerParameters(command=agentkit.path(), args=["mcp", "serve", "--watch", "0.2"],
                                   env=agentkit.environment(env, site_dir.site))
    received: list[object] = []

    async def on_message(message: object) -> None:
        if mode == "legacy" and getattr(message, "method", None) == "notifications/tools/list_changed":
            received.append(message)

    def install() -> None:
        site_dir("later-tools", entry_points={"agentkit.tools": {"later_tools": "later_tools"}},
                 files={"later_tools.py": PLUGIN.format(name="later")})

    async def main() -> list[str]:
        async with Client(params, mode=mode, message_handler=on_message) as client:
            before = [listed.name for listed in (await client.list_tools()).tools]
            assert "first" in before and "later" not in before
            return await changes_seen(client, mode, install, received)

    names = anyio.run(main)

    assert "later" in names and "first" in names


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_change_reaches_clients_over_http_in_both_eras(mode, http_client):
    tools = ToolServer(host_with("first"))
    server = MCPToolServer(tools)
    received: list[object] = []

    async def on_message(message: object) -> None:
        if mode == "legacy" and getattr(message, "method", None) == "notifications/tools/list_changed":
            received.append(message)

    async def main() -> list[str]:
        async with http_client(server, mode=mode, message_handler=on_message) as client:
            await client.list_tools()
            if mode == "legacy":
                return await legacy_http_changes(client, tools, received)
            return await changes_seen(client, mode, lambda: tools.add_tool(tool("added0")), received)

    names = anyio.run(main)

    assert "added0" in names and "first" in names


async def legacy_http_changes(client: Client, tools: ToolServer, received: list[object]) -> list[str]:
    """Add tools until the legacy client is told: its stream of server messages (an HTTP GET the
    client opens on its own schedule) may not be open yet for the first change, which is then lost,
    as the 2025-11-25 transport allows."""
    with anyio.fail_after(PATIENCE):
        index = 0
        while not received:
            await anyio.to_thread.run_sync(tools.add_tool, tool(f"added{index}"))
            index += 1
            with anyio.move_on_after(0.5):
                while not received:
                    await anyio.sleep(0.01)
    return [listed.name for listed in (await client.list_tools()).tools]


def test_a_tool_added_after_the_server_stopped_serving_is_kept_without_an_error():
    tools = ToolServer(host_with("first"))
    server = MCPToolServer(tools)

    async def serve_and_stop() -> None:
        server.bind()

    anyio.run(serve_and_stop)
    tools.add_tool(tool("late"))

    assert list(tools.tools) == ["first", "late"]
