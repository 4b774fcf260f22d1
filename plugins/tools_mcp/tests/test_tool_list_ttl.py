"""A server's tool list is read again once its ``ttlMs`` ran out, against a real server process.

The test server changes its tools without notifying (``swap`` adds ``quiet``
and removes ``doomed``) and says how long its lists hold through
``AGENTKIT_TEST_TOOLS_TTL_MS``. Time is a clock the test moves: nothing sleeps.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from agentkit_tools_mcp._config import ServerConfig
from agentkit_tools_mcp.client._connection import ServerConnection, ServerUnavailable
from agentkit_tools_mcp.client._listing import MIN_RELIST_INTERVAL_S
from agentkit_tools_mcp.client._pool import ServerPool
from agentkit_tools_mcp.client._tools import agent_tools

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust
from agentkit.plugin_api import hookimpl

from .conftest import V2_SERVER

BOUND_S = 60  # no test waits longer than this on anything


class Clock:
    """A monotonic clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def server(ttl_ms: int | None, era: str = "auto", **fields: Any) -> ServerConfig:
    env = {} if ttl_ms is None else {"AGENTKIT_TEST_TOOLS_TTL_MS": str(ttl_ms)}
    return ServerConfig(name="calc", command=sys.executable, args=(str(V2_SERVER),), env=env, era=era,
                        connect_timeout_s=BOUND_S / 2, **fields)


def run(test: Callable[[], Awaitable[Any]]) -> Any:
    async def bounded() -> Any:
        async with asyncio.timeout(BOUND_S):
            return await test()

    return asyncio.run(bounded())


def names(tools: list[Any] | None) -> set[str]:
    return set() if tools is None else {tool.name for tool in tools}


def test_an_expired_ttl_makes_the_next_relist_read_the_tools_the_server_changed_silently() -> None:
    clock = Clock()

    async def test() -> None:
        connection = ServerConnection(server(ttl_ms=5_000), clock=clock)
        try:
            assert "doomed" in names(await connection.list_tools())
            await connection.call_tool("swap", {}, "calc__swap")
            clock.advance(4.9)
            assert await connection.relist() is None  # still fresh: the server is not asked
            assert connection.listing.lists("doomed") and connection.listing.listings == 1
            clock.advance(0.1)
            relisted = names(await connection.relist())
            assert "quiet" in relisted and "doomed" not in relisted
            assert not connection.listing.lists("doomed") and connection.listing.lists("quiet")
            assert connection.listing.listings == 2
            assert await connection.relist() is None  # fresh again for another 5 s
        finally:
            await connection.close()

    run(test)


def test_a_zero_ttl_re_lists_at_most_once_per_interval_however_many_calls() -> None:
    clock = Clock()

    async def test() -> None:
        connection = ServerConnection(server(ttl_ms=0), clock=clock)
        try:
            await connection.list_tools()
            step = MIN_RELIST_INTERVAL_S / 32  # a power of two: the sums below are exact
            for _ in range(20):  # a hot loop of calls inside one interval: no list at all
                assert await connection.relist() is None
                await connection.call_tool("echo", {"text": "x"}, "calc__echo")
                clock.advance(step)
            assert connection.listing.listings == 1
            clock.advance(MIN_RELIST_INTERVAL_S - 20 * step)
            assert await connection.relist() is not None
            assert await connection.relist() is None
            assert connection.listing.listings == 2
        finally:
            await connection.close()

    run(test)


def test_calls_racing_on_an_expired_list_share_one_tools_list() -> None:
    clock = Clock()

    async def test() -> None:
        connection = ServerConnection(server(ttl_ms=1_000), clock=clock)
        try:
            await connection.list_tools()
            clock.advance(60)
            outcomes = await asyncio.gather(*(connection.relist() for _ in range(8)))
            assert [outcome is not None for outcome in outcomes].count(True) == 1
            assert connection.listing.listings == 2
        finally:
            await connection.close()

    run(test)


def test_a_legacy_connection_ignores_ttl_hints_and_keeps_its_list_until_list_changed() -> None:
    clock = Clock()

    async def test() -> None:
        connection = ServerConnection(server(ttl_ms=1_000, era="legacy"), clock=clock)
        try:
            await connection.list_tools()
            assert connection.era == "legacy"
            await connection.call_tool("swap", {}, "calc__swap")
            clock.advance(10**6)
            assert await connection.relist() is None
            assert connection.listing.lists("doomed") and connection.listing.listings == 1
        finally:
            await connection.close()

    run(test)


def test_a_failed_re_list_keeps_the_last_list_and_waits_before_trying_again() -> None:
    clock = Clock()

    async def test() -> None:
        connection = ServerConnection(server(ttl_ms=1_000, reconnect_limit=0), clock=clock)
        try:
            await connection.list_tools()
            with pytest.raises(ServerUnavailable):
                await connection.call_tool("crash", {}, "calc__crash")
            clock.advance(5)
            with pytest.raises(ServerUnavailable, match="reconnect_limit"):
                await connection.relist()
            assert connection.listing.lists("add") and not connection.listing_is_stale()
            clock.advance(MIN_RELIST_INTERVAL_S)
            assert connection.listing_is_stale()
        finally:
            await connection.close()

    run(test)


def test_an_agent_sees_a_silently_added_tool_as_deferred_and_a_removed_one_as_a_clear_error(
        config_home: Path) -> None:
    clock = Clock()
    pool = ServerPool([server(ttl_ms=5_000)], clock=clock)
    try:
        made = agent_tools(pool, pool.list_all())

        class Served:
            @hookimpl
            def agentkit_register_tools(self, register: Any) -> None:
                for tool in made:
                    register(tool)

        host = PluginHost()
        host.register(Served(), name="served", category="tools")
        host.load_entry_points()  # the scripted provider; the MCP plugin itself finds no servers configured

        def before_tool_call(call: Any, *rest: Any) -> None:
            if call.name != "calc__swap":
                clock.advance(6)  # the list has expired by the model's next turn

        script = Script([Turn([tool_call("calc__swap", {})]), Turn([tool_call("calc__doomed", {})]),
                         Turn([tool_call("calc__quiet", {})]), Turn([text("Done.")])])
        agent = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["calc__swap", "calc__doomed"],
                                  trust=Trust(before_tool_call=before_tool_call),
                                  connection=Connection(transport=script)), host=host)
        result = agent.run_sync("Swap, then use both tools.")
    finally:
        pool.close()

    results = {message.tool_name: json.loads(message.text) for message in result.messages
               if getattr(message, "tool_name", None)}
    assert results["calc__doomed"]["ok"] is False and results["calc__doomed"]["error"] == "mcp_tool_removed"
    assert "no longer lists the tool 'doomed'" in results["calc__doomed"]["detail"]
    assert results["calc__quiet"]["data"]["structured"]["result"] == "quiet tool"
    specs = {spec.name: spec for spec in agent.tool_specs()}
    assert specs["calc__quiet"].deferred is True and specs["calc__swap"].deferred is False
    assert pool.connections["calc"].calls == 2  # swap and quiet: the removed tool was never sent to the server
