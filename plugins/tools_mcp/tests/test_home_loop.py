"""A run from sync code calls an MCP server on the loop its connection lives on: no hand-off between threads.

Every MCP tool names the connection pool's loop as its ``home_loop``, and
``Agent.run_sync`` runs such a run on that loop. The hand-offs counted are
the callbacks other threads put on the pool's loop (``call_soon_threadsafe``):
a run on its home loop starts with one and makes none per call, where a run
on a loop of its own (an embedder's) hands each call over. Counts, not
times: they cannot flake. What the connection guaranteed before still holds
on its home loop: an abort cancels the call there, and a stateful server
keeps its state from one run to the next.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call

from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.plugin_api import Tool, ToolResultMessage, hookimpl

from .conftest import configure, v2_stdio_entry

LONG_ENOUGH = 60  # seconds a test's own wait may take before it fails instead of hanging


def echo_agent(host: PluginHost, calls: int, tools: tuple[str, ...] = ("calc__echo",)) -> Agent:
    script = Script([Turn([tool_call("calc__echo", {"text": f"call {n}"})]) for n in range(calls)]
                    + [Turn([text("done")])])
    return Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=list(tools),
                             connection=Connection(transport=script)), host=host)


def answers(result: Any) -> list[Any]:
    return [json.loads(message.text)["data"] for message in result.messages if isinstance(message, ToolResultMessage)]


def hand_offs(monkeypatch: pytest.MonkeyPatch, run: Any) -> int:
    """Callbacks put on an event loop from a thread other than its own while ``run()`` runs."""
    counted = [0]
    original = asyncio.BaseEventLoop.call_soon_threadsafe

    def counting(loop: asyncio.BaseEventLoop, *args: Any, **kwargs: Any) -> Any:
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if here is not loop:  # not the loop's own thread (an async generator's finalizer is)
            counted[0] += 1
        return original(loop, *args, **kwargs)

    monkeypatch.setattr(asyncio.BaseEventLoop, "call_soon_threadsafe", counting)
    try:
        run()
    finally:
        monkeypatch.setattr(asyncio.BaseEventLoop, "call_soon_threadsafe", original)
    return counted[0]


def test_a_sync_run_calls_the_server_with_no_hand_off_and_a_run_on_another_loop_hands_each_call_over(
        config_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    configure(v2_stdio_entry("calc"))
    host = PluginHost.discover()
    home = host.tools["calc__echo"].home_loop
    assert home is not None and home.is_running()

    def sync_run(calls: int) -> Any:
        def run() -> None:
            result = echo_agent(host, calls).run_sync("echo")
            assert answers(result) == [{"structured": {"result": f"call {n}"}} for n in range(calls)]
        return run

    def async_run(calls: int) -> Any:
        def run() -> None:
            result = asyncio.run(echo_agent(host, calls).run("echo"))
            assert len(answers(result)) == calls
        return run

    # The host hands work to threads of its own in both runs alike (what it guards); only the difference
    # between four more calls in each kind of run is the MCP client's.
    sync_one, sync_five = (hand_offs(monkeypatch, sync_run(calls)) for calls in (1, 5))
    hopping_one, hopping_five = (hand_offs(monkeypatch, async_run(calls)) for calls in (1, 5))
    # A run on its own loop hands each call to the pool's loop and its answer back (a re-list, two more);
    # a run from sync code runs on the pool's loop and hands over none.
    assert (hopping_five - hopping_one) - (sync_five - sync_one) >= 2 * 4


def test_a_stateful_server_keeps_its_state_from_one_sync_run_to_the_next(config_home: Path) -> None:
    configure(v2_stdio_entry("calc"))
    host = PluginHost.discover()
    first = Script([Turn([tool_call("calc__grow", {})]), Turn([text("grown")])])
    Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["calc__grow"],
                      connection=Connection(transport=first)), host=host).run_sync("grow")
    # 'late' exists only in the server process 'grow' ran in: a new process would not have it.
    second = Script([Turn([tool_call("calc__late", {})]), Turn([text("done")])])
    result = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["calc__late"],
                               connection=Connection(transport=second)), host=PluginHost.discover()).run_sync("late")
    assert result.outcome == "completed" and answers(result) == [{"structured": {"result": "late tool"}}]
    [calc] = host.tools["mcp_servers"].handler({}, None)  # type: ignore[arg-type]
    assert (calc["calls"], calc["reconnects"]) == (2, 0)


def test_an_abort_of_a_sync_run_cancels_its_call_on_the_server_and_keeps_the_connection(config_home: Path) -> None:
    configure(v2_stdio_entry("calc", timeout_s=600))
    host = PluginHost.discover()
    script = Script([Turn([tool_call("calc__wait", {})]), Turn([text("never")])])
    agent = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["calc__wait"],
                              connection=Connection(transport=script)), host=host)
    status = host.tools["mcp_servers"].handler

    def abort_once_the_call_is_made() -> None:
        for _ in range(LONG_ENOUGH * 100):
            if status({}, None)[0]["calls"] == 1:  # type: ignore[arg-type]
                agent.abort()
                return
            threading.Event().wait(0.01)

    threading.Thread(target=abort_once_the_call_is_made, daemon=True).start()
    assert agent.run_sync("wait").outcome == "aborted"  # the entry's timeout_s is 600: only the abort ends it
    # The server saw its call cancelled (it runs in the same process: the connection was kept).
    def cancellations() -> int:
        ask = Script([Turn([tool_call("calc__cancelled", {})]), Turn([text("counted")])])
        result = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["calc__cancelled"],
                                   connection=Connection(transport=ask)), host=host).run_sync("how many?")
        return int(answers(result)[0]["structured"]["result"])

    seen = 0
    for _ in range(LONG_ENOUGH * 10):  # the server learns of the cancel a moment after the run ended
        seen = cancellations()
        if seen:
            break
        threading.Event().wait(0.1)
    assert seen == 1
    [calc] = status({}, None)  # type: ignore[arg-type]
    assert calc["reconnects"] == 0


def test_a_host_built_inside_a_sync_run_fails_the_mcp_plugin_with_the_way_out_instead_of_hanging(
        config_home: Path) -> None:
    configure(v2_stdio_entry("calc"))
    built: list[PluginHost] = []

    class Builder:
        @hookimpl
        def agentkit_register_tools(self, register: Any) -> None:
            async def build_host(arguments: dict[str, Any], context: Any) -> str:
                built.append(PluginHost.discover())  # on the connections' loop: it cannot wait for them there
                return "built"

            register(Tool(name="build_host", description="Builds a plugin host.", input_schema={"type": "object"},
                          handler=build_host))

    host = PluginHost()
    host.register(Builder(), name="builder", category="tools")
    host.load_entry_points()
    script = Script([Turn([tool_call("calc__echo", {"text": "x"}), tool_call("build_host", {})]),
                     Turn([text("done")])])
    result = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["calc__echo", "build_host"],
                               connection=Connection(transport=script)), host=host).run_sync("build")
    assert result.outcome == "completed"
    [inner] = built
    assert inner.records["mcp"].status == "failed"
    assert "build the PluginHost before the run and reuse it" in (inner.records["mcp"].reason or "")
