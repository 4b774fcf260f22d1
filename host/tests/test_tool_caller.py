"""One tool call outside a run, through the public ``ToolCaller``: governed as an agent governs a model's call.

The embedder's ``before_tool_call`` decides first and a call it blocks reaches
no plugin; hook plugins only narrow (and fail closed); the handler runs under
its deadline; the result is capped; a cancelled call stops its handler and is
still answered.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from host_helpers import make_host
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.host import ConfigError, PendingCall, ToolCaller, allow_all
from agentkit.plugin_api import Block, SessionInfo, Tool, ToolUseBlock, hookimpl

#: Seconds a test waits for something that happens at once on a healthy machine: a hang fails, load does not.
PATIENCE = 60
ECHO_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


class Recorder:
    """A tools-and-hooks plugin: an echo tool, and hooks that note what they were shown and block on demand."""

    def __init__(self, answer: Any = None) -> None:
        self.answer = answer
        self.ran: list[str] = []
        self.asked: list[str] = []
        self.after: list[tuple[str, bool]] = []
        self.sessions: list[SessionInfo] = []

    def echo(self, arguments: dict[str, Any], context: Any) -> str:
        self.ran.append(arguments["text"])
        return arguments["text"]

    @hookimpl
    def agentkit_register_tools(self, register: Any) -> None:
        register(Tool(name="echo", description="Echo.", input_schema=ECHO_SCHEMA, handler=self.echo))

    @hookimpl
    def agentkit_before_tool_call(self, call: Any, arguments: Any, session: SessionInfo) -> Any:
        self.asked.append(call.name)
        self.sessions.append(session)
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer

    @hookimpl
    def agentkit_after_tool_call(self, call: Any, result: Any, session: Any) -> None:
        self.after.append((call.name, result.is_error))


def use(name: str, arguments: Any, call_id: str = "call-1") -> ToolUseBlock:
    return ToolUseBlock(id=call_id, name=name, arguments=arguments if isinstance(arguments, str) else json.dumps(arguments))


def envelope(result: Any) -> dict[str, Any]:
    return json.loads(result.content[0].text)  # type: ignore[no-any-return]


def call_once(caller: ToolCaller, call: ToolUseBlock) -> Any:
    async def main() -> Any:
        return await asyncio.wait_for(caller.call(call), PATIENCE)
    return asyncio.run(main())


def test_an_allowed_call_runs_its_handler_and_the_hooks_see_it_before_and_after():
    plugin = Recorder()
    session = SessionInfo("served-1", "mcp/client", Path.cwd())
    caller = ToolCaller(make_host(plugin), session=session)

    result = call_once(caller, use("echo", {"text": "hello"}))

    assert not result.is_error and envelope(result) == {"ok": True, "data": "hello"}
    assert result.tool_use_id == "call-1" and result.tool_name == "echo"
    assert plugin.ran == ["hello"] and plugin.asked == ["echo"] and plugin.after == [("echo", False)]
    assert plugin.sessions[0].session_id == "served-1"


def test_a_call_the_embedder_blocks_reaches_no_plugin_and_no_handler():
    plugin = Recorder()
    shown: list[tuple[str, dict[str, Any]]] = []

    def refuse(call: ToolUseBlock, arguments: dict[str, Any]) -> Block:
        shown.append((call.name, arguments))
        return Block("not on a Sunday")

    caller = ToolCaller(make_host(plugin), before_tool_call=refuse)
    result = call_once(caller, use("echo", {"text": "hello"}))

    assert result.is_error and envelope(result) == {"ok": False, "error": "blocked", "detail": "not on a Sunday"}
    assert shown == [("echo", {"text": "hello"})]  # the parsed, validated arguments
    assert plugin.ran == [] and plugin.asked == []


@pytest.mark.parametrize("answer", [Block("plugin says no"), RuntimeError("hook broke")])
def test_a_hook_plugin_narrows_what_the_embedder_allowed_and_a_failing_one_blocks(answer):
    plugin = Recorder(answer)
    caller = ToolCaller(make_host(plugin), before_tool_call=allow_all)

    result = call_once(caller, use("echo", {"text": "hello"}))

    assert result.is_error and envelope(result)["error"] == "blocked"
    assert plugin.ran == [] and plugin.asked == ["echo"]


@pytest.mark.parametrize(("call", "error"), [
    (use("echo", {"words": 1}), "invalid_arguments"),
    (use("echo", "{not json"), "invalid_arguments"),
    (use("missing", {}), "unknown_tool"),
])
def test_a_bad_call_is_answered_with_an_error_and_runs_nothing(call, error):
    plugin = Recorder()
    result = call_once(ToolCaller(make_host(plugin)), call)

    assert result.is_error and envelope(result)["error"] == error
    assert plugin.ran == []


def test_a_call_past_its_deadline_is_answered_with_a_timeout():
    release = threading.Event()

    def stuck(arguments: dict[str, Any], context: Any) -> str:
        release.wait(PATIENCE)
        return "late"

    tool = Tool(name="stuck", description="Never done in time.", input_schema={"type": "object"}, handler=stuck)
    caller = ToolCaller(make_host(), {"stuck": tool}, tool_timeout=0.05)
    try:
        result = call_once(caller, use("stuck", {}))
    finally:
        release.set()  # the abandoned thread ends now, not at the test run's end

    assert result.is_error and envelope(result)["error"] == "timeout"


def test_a_long_result_is_cut_to_the_limit_with_a_note():
    tool = Tool(name="big", description="Much text.", input_schema={"type": "object"},
                handler=lambda arguments, context: "x" * 10_000)
    result = call_once(ToolCaller(make_host(), {"big": tool}, max_result_chars=500), use("big", {}))

    text = result.content[0].text
    assert len(text) < 10_000 and "x" * 200 in json.loads(text)["head"]
    assert json.loads(text)["tail"].endswith('x"}') and "could not be kept" in json.loads(text)["note"]


def test_a_tool_that_runs_commands_needs_a_policy():
    tool = Tool(name="sh", description="Run a command.", input_schema={"type": "object"},
                handler=lambda arguments, context: "ran", requires_authorization=True)
    with pytest.raises(ConfigError, match="before_tool_call"):
        ToolCaller(make_host(), {"sh": tool})
    caller = ToolCaller(make_host(), {}, before_tool_call=allow_all)
    caller.tools = {"sh": tool}  # with a policy it may be added later
    assert call_once(caller, use("sh", {})).is_error is False


def test_the_tools_default_to_the_hosts_tools_enabled_by_default():
    hidden = Tool(name="hidden", description="Off unless asked.", input_schema={"type": "object"},
                  handler=lambda arguments, context: "", default_enabled=False)

    class Hidden:
        @hookimpl
        def agentkit_register_tools(self, register: Any) -> None:
            register(hidden)

    assert sorted(ToolCaller(make_host(Recorder(), Hidden())).tools) == ["echo"]


def holding_tool(started: dict[str, asyncio.Event], seen: dict[str, str]) -> Tool:
    async def hold(arguments: dict[str, Any], context: Any) -> str:
        key = arguments["key"]
        started[key].set()
        while not context.cancel.cancelled:
            await asyncio.sleep(0.005)
        seen[key] = "cancelled"
        return "stopped"
    return Tool(name="hold", description="Hold until cancelled.", handler=hold,
                input_schema={"type": "object", "properties": {"key": {"type": "string"}}})


def test_cancelling_the_awaiting_task_stops_the_handler_and_the_call_still_settles():
    async def main() -> None:
        started = {"a": asyncio.Event()}
        seen: dict[str, str] = {}
        caller = ToolCaller(make_host(), {"hold": holding_tool(started, seen)}, tool_timeout=None)
        task = asyncio.ensure_future(caller.call(use("hold", {"key": "a"})))
        await asyncio.wait_for(started["a"].wait(), PATIENCE)

        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, PATIENCE)

        assert seen == {"a": "cancelled"}  # the handler was told, and settled before the cancellation propagated
        assert caller.cancel_all() == 0  # nothing left in flight

    asyncio.run(main())


@settings(max_examples=10, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=8))
def test_cancelling_some_started_calls_answers_every_call_and_stops_exactly_those(plan):
    async def main() -> None:
        keys = [str(index) for index in range(len(plan))]
        started = {key: asyncio.Event() for key in keys}
        seen: dict[str, str] = {}
        caller = ToolCaller(make_host(), {"hold": holding_tool(started, seen)}, tool_timeout=None)
        pending = [caller.start(use("hold", {"key": key}, call_id=key)) for key in keys]
        assert all(isinstance(each, PendingCall) for each in pending)
        await asyncio.wait_for(asyncio.gather(*(event.wait() for event in started.values())), PATIENCE)

        for each, cancel in zip(pending, plan, strict=True):
            if cancel:
                each.cancel("not wanted")
        stopped = [each for each, cancel in zip(pending, plan, strict=True) if cancel]
        await asyncio.wait_for(asyncio.gather(*stopped), PATIENCE)  # answered, while the others still hold
        assert set(seen) == {each.call.id for each in stopped}
        assert caller.cancel_all("the rest") == len(keys) - len(stopped)
        results = await asyncio.wait_for(asyncio.gather(*pending), PATIENCE)

        assert [result.tool_use_id for result in results] == keys  # each answered, its own
        assert set(seen) == set(keys) and all(each.done() for each in pending)
        assert caller.cancel_all() == 0

    asyncio.run(main())
