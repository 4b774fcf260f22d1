"""Concurrent served calls, some cancelled at random: each cancelled one cancels its own handler
and no other, every other call gets its result, and nothing is left in flight."""

from __future__ import annotations

import asyncio

from agentkit_mcp_server import ToolServer
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.host import PluginHost
from agentkit.plugin_api import Tool

PATIENCE = 60


def server_with_gate() -> tuple[ToolServer, dict[str, str], asyncio.Event]:
    outcomes: dict[str, str] = {}
    release = asyncio.Event()

    async def hold(arguments, context):
        key = arguments["key"]
        outcomes[key] = "started"
        while not release.is_set():
            if context.cancel.cancelled:
                outcomes[key] = "cancelled"
                return "cancelled"
            await asyncio.sleep(0.005)
        outcomes[key] = "finished"
        return key

    tools = ToolServer(PluginHost(), tool_timeout=None)
    tools.add_tool(Tool(name="hold", description="Hold until released.", handler=hold,
                        input_schema={"type": "object", "properties": {"key": {"type": "string"}}}))
    return tools, outcomes, release


@settings(max_examples=15, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=20))
def test_cancelling_some_concurrent_calls_cancels_exactly_their_handlers(cancel_plan):
    async def main() -> None:
        tools, outcomes, release = server_with_gate()
        tasks = [asyncio.ensure_future(tools.call("hold", {"key": str(index)})) for index in range(len(cancel_plan))]
        async with asyncio.timeout(PATIENCE):
            while len(outcomes) < len(tasks):  # every handler is running
                await asyncio.sleep(0.005)
        cancelled = [task for task, cancel in zip(tasks, cancel_plan, strict=True) if cancel]
        for task in cancelled:
            task.cancel()
        # A cancelled call ends once its handler saw the token, or once the host's grace is over and
        # it was given up on: a loop starved that long on a loaded machine is slow, not wrong.
        if cancelled:
            async with asyncio.timeout(PATIENCE):
                await asyncio.wait(cancelled)
        release.set()
        results = await asyncio.gather(*tasks, return_exceptions=True)

        for index, (cancel, result) in enumerate(zip(cancel_plan, results, strict=True)):
            if cancel:
                assert isinstance(result, asyncio.CancelledError)
                assert outcomes[str(index)] in ("cancelled", "started")  # saw the token, or was given up on
            else:
                assert not result.is_error and result.content[0].text == f'{{"ok": true, "data": "{index}"}}'
                assert outcomes[str(index)] == "finished"
        assert tools.cancel_all() == 0  # nothing left in flight

    asyncio.run(main())


def test_cancel_all_stops_every_call_in_flight():
    async def main() -> None:
        tools, outcomes, _release = server_with_gate()
        tasks = [asyncio.ensure_future(tools.call("hold", {"key": str(index)})) for index in range(5)]
        async with asyncio.timeout(PATIENCE):
            while len(outcomes) < len(tasks):
                await asyncio.sleep(0.005)

        assert tools.cancel_all() == 5
        results = await asyncio.wait_for(asyncio.gather(*tasks), PATIENCE)

        assert set(outcomes.values()) == {"cancelled"}
        # each answered, not hung: with what its handler returned once it saw the cancel token
        assert [result.content[0].text for result in results] == ['{"ok": true, "data": "cancelled"}'] * 5

    asyncio.run(main())
