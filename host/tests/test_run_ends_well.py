"""Every run ends well: hostile tools, hooks, policies and providers, each pinned by the run's invariants.

Whatever a plugin does, when the run returns every tool call has exactly one
result, ``agent_end`` and the session hooks fired once, and the outcome says
what happened; a healthy sibling call always gets its real result.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from loop_faults import (
    KINDS_OF_RAISE,
    UNSERIALIZABLE,
    HostileProvider,
    RaisingHooks,
    StuckHooks,
    assert_well_formed,
    echo,
    mutating_tool,
    raising_tool,
    recorded_agent,
    returning_tool,
    tools,
)

from agentkit.host import Block, Timeouts, Trust
from agentkit.plugin_api import ImageBlock, ToolResult, ToolResultMessage, hookimpl


def results(agent) -> list[ToolResultMessage]:
    return [message for message in agent.history if isinstance(message, ToolResultMessage)]


def envelope(result: ToolResultMessage) -> dict:
    return json.loads(result.text)


def batch_with_sibling(name: str, arguments="{}") -> Script:
    """One batch: the hostile call between two healthy siblings, then a final answer."""
    return Script([
        Turn([tool_call("echo", {"value": "before"}), tool_call(name, arguments), tool_call("echo", {"value": "after"})]),
        Turn([text("done")]),
    ])


def assert_only_the_hostile_call_failed(agent, error: str | None = None) -> dict:
    first, hostile, last = results(agent)
    assert envelope(first) == {"ok": True, "data": "before"}
    assert envelope(last) == {"ok": True, "data": "after"}
    assert hostile.is_error
    body = envelope(hostile)
    if error is not None:
        assert body["error"] == error, body
    return body


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("kind", list(KINDS_OF_RAISE))
def test_a_tool_raising_any_base_exception_fails_only_its_own_call(kind, is_async):
    agent, recorder = recorded_agent(batch_with_sibling("hostile"), tools(echo(), raising_tool("hostile", KINDS_OF_RAISE[kind], is_async=is_async)))
    result = agent.run_sync("go")
    assert_well_formed(agent, recorder, "completed")
    body = assert_only_the_hostile_call_failed(agent, "tool_failed")
    assert KINDS_OF_RAISE[kind].__name__ in body["detail"]
    assert result.text == "done"


@pytest.mark.parametrize("value", list(UNSERIALIZABLE))
def test_a_result_that_cannot_be_json_is_an_error_result_for_that_call(value):
    agent, recorder = recorded_agent(batch_with_sibling("bad"), tools(echo(), returning_tool("bad", UNSERIALIZABLE[value])))
    agent.run_sync("go")
    assert_well_formed(agent, recorder, "completed")
    assert_only_the_hostile_call_failed(agent, "invalid_result")


def test_an_async_tool_returning_unserializable_data_fails_only_its_call():
    async def bad(arguments, context):
        return UNSERIALIZABLE["circular_list"]()

    from agentkit.plugin_api import Tool

    agent, recorder = recorded_agent(batch_with_sibling("bad"), tools(echo(), Tool("bad", "d", {"type": "object"}, bad)))
    agent.run_sync("go")
    assert_well_formed(agent, recorder, "completed")
    assert_only_the_hostile_call_failed(agent, "invalid_result")


BAD_IMAGES = {
    "not_an_image_block": lambda: ["not an image"],
    "circular_data": lambda: [ImageBlock(UNSERIALIZABLE["circular_list"](), "image/png")],
    "bytes_data": lambda: [ImageBlock(b"\x89PNG", "image/png")],
    "not_a_list": lambda: 42,
}


@pytest.mark.parametrize("images", list(BAD_IMAGES))
def test_images_that_are_not_image_blocks_are_an_error_result_for_that_call(images):
    # Attached as they were, they would enter the history and fail every later request.
    value = lambda: ToolResult(True, data="an image", images=BAD_IMAGES[images]())  # noqa: E731
    agent, recorder = recorded_agent(batch_with_sibling("bad"), tools(echo(), returning_tool("bad", value)))
    result = agent.run_sync("go")
    assert_well_formed(agent, recorder, "completed")
    assert result.text == "done", result.error
    assert_only_the_hostile_call_failed(agent, "invalid_result")
    assert [block.type for block in results(agent)[1].content] == ["text"]


def test_a_valid_image_is_attached_to_the_result():
    image = ImageBlock("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "image/png")  # a real 1x1 PNG: images are decoded at the boundary
    value = lambda: ToolResult(True, data="an image", images=[image])  # noqa: E731
    agent, recorder = recorded_agent(batch_with_sibling("good"), tools(echo(), returning_tool("good", value)))
    agent.run_sync("go")
    assert_well_formed(agent, recorder, "completed")
    assert results(agent)[1].content[1:] == [image]


def test_a_tool_mutating_its_arguments_changes_nothing_the_loop_keeps():
    agent, recorder = recorded_agent(batch_with_sibling("mutate", {"keep": 1}), tools(echo(), mutating_tool("mutate")))
    agent.run_sync("go")
    assert_well_formed(agent, recorder, "completed")
    assert agent.history[1].tool_calls[1].arguments == '{"keep":1}'


@pytest.mark.parametrize("arguments", [
    '{"value": NaN}',
    '{"value": Infinity}',
    '{"value": -Infinity}',
    '{"value": 1, "value": 2}',
    "[" * 50_000 + "]" * 50_000,
    '{"a":' * 50_000 + "1" + "}" * 50_000,
    '{"value": 1e999}',
])
def test_arguments_the_strict_decoder_refuses_are_an_error_result_for_that_call(arguments):
    agent, recorder = recorded_agent(batch_with_sibling("echo", arguments), tools(echo()))
    agent.run_sync("go")
    assert_well_formed(agent, recorder, "completed")
    [_, hostile, _] = results(agent)
    assert hostile.is_error and envelope(hostile)["error"] == "invalid_arguments"


def test_a_provider_handing_arguments_as_a_dict_fails_the_calls_not_the_run():
    agent, recorder = recorded_agent(
        Script([Turn([tool_call("echo", {"value": "x"})]), Turn([text("done")])]),
        tools(echo()), provider=HostileProvider("dict_arguments"),
    )
    agent.run_sync("go")
    assert_well_formed(agent, recorder)
    [answer] = results(agent)
    assert answer.is_error and envelope(answer)["error"] == "invalid_arguments"


@pytest.mark.parametrize("kind", list(KINDS_OF_RAISE))
def test_a_provider_decoder_raising_any_base_exception_ends_the_run_as_an_error(kind):
    agent, recorder = recorded_agent(Script([Turn([text("hi")])]), provider=HostileProvider(f"raise:{kind}"))
    result = agent.run_sync("go")
    assert_well_formed(agent, recorder)
    assert result.outcome in ("error", "cancelled") and result.outcome != "completed"


@pytest.mark.parametrize("kind", list(KINDS_OF_RAISE))
def test_hooks_raising_any_base_exception_block_or_are_reported(kind):
    agent, recorder = recorded_agent(
        Script([Turn([tool_call("echo", {"value": "x"})]), Turn([text("done")])]),
        tools(echo()), RaisingHooks(KINDS_OF_RAISE[kind]),
    )
    result = agent.run_sync("go")
    assert_well_formed(agent, recorder, "completed")
    [answer] = results(agent)
    assert answer.is_error and envelope(answer)["error"] == "blocked", "a failing check fails closed"
    assert len(result.problems) >= 3  # session start, before and after the call, session end
    assert any("before_tool_call" in problem for problem in result.problems)


@pytest.mark.parametrize("kind", list(KINDS_OF_RAISE))
def test_an_embedder_policy_raising_any_base_exception_blocks_the_call(kind):
    def policy(call, arguments):
        if call.name == "echo" and arguments.get("value") == "x":
            raise KINDS_OF_RAISE[kind]("hostile policy")
        return None

    agent, recorder = recorded_agent(
        Script([Turn([tool_call("echo", {"value": "x"}), tool_call("echo", {"value": "y"})]), Turn([text("done")])]),
        tools(echo()), trust=Trust(before_tool_call=policy),
    )
    agent.run_sync("go")
    assert_well_formed(agent, recorder, "completed")
    blocked, allowed = results(agent)
    assert envelope(blocked)["error"] == "blocked"
    assert envelope(allowed) == {"ok": True, "data": "y"}


@pytest.mark.parametrize("kind", list(KINDS_OF_RAISE))
def test_a_stop_policy_raising_any_base_exception_ends_the_run_as_an_error(kind):
    def policy(context):
        raise KINDS_OF_RAISE[kind]("hostile stop policy")

    agent, recorder = recorded_agent(
        Script([Turn([tool_call("echo")]), Turn([text("done")])]), tools(echo()), stop_policy=policy,
    )
    result = agent.run_sync("go")
    assert_well_formed(agent, recorder, "error")
    assert "stop policy" in result.error


@pytest.mark.parametrize("kind", list(KINDS_OF_RAISE))
def test_a_listener_raising_any_base_exception_is_reported_and_still_sees_agent_end(kind):
    seen = []

    def listener(event):
        seen.append(event.type)
        raise KINDS_OF_RAISE[kind]("hostile listener")

    agent, recorder = recorded_agent(Script([Turn([tool_call("echo")]), Turn([text("done")])]), tools(echo()))
    agent.subscribe(listener)
    result = agent.run_sync("go")
    assert_well_formed(agent, recorder, "completed")
    assert seen[-1] == "agent_end"
    assert any("hostile listener" in problem for problem in result.problems)


def test_subscribers_see_every_event_agent_end_included():
    agent, recorder = recorded_agent(Script([Turn([tool_call("echo")]), Turn([text("done")])]), tools(echo()))
    seen, streamed = [], []
    agent.subscribe(lambda event: seen.append(event.type))

    async def consume():
        async for event in agent.stream("go"):
            streamed.append(event.type)

    asyncio.run(consume())
    assert seen == streamed and seen[-1] == "agent_end"
    assert_well_formed(agent, recorder, "completed")


def test_a_sync_hook_that_blocks_never_freezes_the_other_agents_on_the_loop():
    """The hook waits for the other agent to finish: only possible if it runs off the event loop."""
    hooks = StuckHooks()
    slow, slow_recorder = recorded_agent(
        Script([Turn([tool_call("echo")]), Turn([text("slow done")])]), tools(echo()), hooks,
        timeouts=Timeouts(hook=10),
    )
    fast, fast_recorder = recorded_agent(Script([Turn([text("fast done")])]))
    fast.subscribe(lambda event: hooks.release.set() if event.type == "agent_end" else None)

    async def both():
        return await asyncio.gather(slow.run("go"), fast.run("go"))

    slow_result, fast_result = asyncio.run(both())
    assert (slow_result.text, fast_result.text) == ("slow done", "fast done")
    assert slow_result.problems == [], "no hook ran into its deadline"
    assert_well_formed(slow, slow_recorder, "completed")
    assert_well_formed(fast, fast_recorder, "completed")


def test_run_sync_from_inside_a_running_loop_is_a_clear_error():
    agent, _ = recorded_agent(Script([Turn([text("hi")])]))

    async def inside():
        agent.run_sync("go")

    with pytest.raises(RuntimeError, match="await run"):
        asyncio.run(inside())


def test_an_exception_inside_a_listener_thread_does_not_matter_to_block_decisions():
    """An embedder policy running off the loop sees a copy of the arguments, and its Block is honoured."""
    seen_threads = []

    def policy(call, arguments):
        seen_threads.append(threading.current_thread() is threading.main_thread())
        arguments.clear()
        return Block("no")

    agent, recorder = recorded_agent(Script([Turn([tool_call("echo", {"value": "x"})]), Turn([text("done")])]),
                                     tools(echo()), trust=Trust(before_tool_call=policy))
    agent.run_sync("go")
    assert_well_formed(agent, recorder, "completed")
    assert seen_threads == [False], "the sync policy ran off the event loop's thread"
    assert envelope(results(agent)[0])["error"] == "blocked"


def test_cancelling_every_task_mid_run_still_reports_the_session_end_before_agent_end():
    """What ``asyncio.run`` does when the application's main fails: every task is cancelled, the run's own too."""
    order: list[str] = []

    class SlowSessionEnd:
        @hookimpl
        def agentkit_session_end(self, session, outcome, error) -> None:
            time.sleep(0.05)  # long enough for a run that did not wait for it to be gone
            order.append(f"session_end:{outcome}")

    agent, recorder = recorded_agent(Script([Turn([tool_call("echo")]), Turn([text("done")])]), tools(echo()),
                                     SlowSessionEnd())
    driver: list = []

    def on_event(event) -> None:
        if event.type == "tool_call_start":
            # Aborted first, the batch runs no handler: the run reaches its end without
            # waiting on anything, and the cancellation lands on the session-end hook.
            agent.abort()
            for task in asyncio.all_tasks():
                if task is not driver[0]:
                    task.cancel()
        if event.type == "agent_end":
            order.append(f"agent_end:{event.outcome}")

    agent.subscribe(on_event)

    async def scenario():
        driver.append(asyncio.current_task())
        with pytest.raises(asyncio.CancelledError):
            await asyncio.ensure_future(agent.run("go"))

    asyncio.run(scenario())
    assert order == ["session_end:aborted", "agent_end:aborted"]
    assert_well_formed(agent, recorder, "aborted")


def test_a_call_the_cancelled_run_never_reached_is_still_announced_and_answered():
    """Every task cancelled (as ``asyncio.run`` does when the application's main fails) while the policy
    weighs the first call: the second call was never started, yet a subscriber sees it start and end."""
    weighing = None

    async def policy(call, arguments):
        weighing.set()
        await asyncio.Event().wait()  # never answers: the cancellation ends it

    agent, recorder = recorded_agent(
        Script([Turn([tool_call("echo", {"value": "a"}), tool_call("echo", {"value": "b"})]), Turn([text("done")])]),
        tools(echo()), trust=Trust(before_tool_call=policy),
    )
    seen = []
    agent.subscribe(lambda event: seen.append(event) if event.type in ("tool_call_start", "tool_call_end") else None)

    async def scenario():
        nonlocal weighing
        weighing = asyncio.Event()
        driver = asyncio.current_task()
        run = asyncio.ensure_future(agent.run("go"))
        await weighing.wait()
        for task in asyncio.all_tasks():
            if task is not driver:
                task.cancel()  # the run's own task among them
        with pytest.raises(asyncio.CancelledError):
            await run

    asyncio.run(scenario())
    assert_well_formed(agent, recorder, "cancelled")
    first, second = next(message.tool_calls for message in agent.history if getattr(message, "tool_calls", None))
    assert [(event.type, event.call.id if event.type == "tool_call_start" else event.result.tool_use_id)
            for event in seen] == [
        ("tool_call_start", first.id),
        ("tool_call_end", first.id),
        ("tool_call_start", second.id),
        ("tool_call_end", second.id),
    ]
    answers = [envelope(message) for message in results(agent)]
    assert [answer["error"] for answer in answers] == ["cancelled", "cancelled"], answers
    assert agent.last_result.problems == []
