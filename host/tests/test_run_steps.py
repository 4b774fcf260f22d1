"""``Agent.run_steps``: every model request, tool batch and authorization of a run goes through it, and a
step may answer from an earlier execution without doing the work; every call's context has an idempotency key."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent

from agentkit.host import Agent, RunSteps, ToolStep, Trust
from agentkit.plugin_api import (
    AssistantMessage,
    Block,
    Outcome,
    Tool,
    ToolContext,
    ToolResult,
    ToolUseBlock,
)


class Recorder(RunSteps):
    """Does every step, and remembers what went through it; answers from ``saved`` where it has an answer."""

    def __init__(self, run_id: str = "run-7") -> None:
        self.run_id = run_id
        self.seen: list[str] = []
        self.saved_messages: list[AssistantMessage] = []
        self.replay: list[AssistantMessage] = []

    def begin(self, run: Any) -> None:
        self.seen.append(f"begin {run.run_id}")

    async def model_request(self, send: Callable[[], Awaitable[AssistantMessage]]) -> AssistantMessage:
        self.seen.append("request")
        if self.replay:
            return self.replay.pop(0)
        message = await send()
        self.saved_messages.append(message)
        return message

    async def tool_batch(self, steps: Sequence[ToolStep], sequential: bool) -> list[ToolResult]:
        self.seen.append("batch " + ",".join(step.call.name for step in steps))
        return [await step.execute() for step in steps]

    async def authorize(self, call: ToolUseBlock,
                        decide: Callable[[], Awaitable[tuple[Block | None, str | None]]]
                        ) -> tuple[Block | None, str | None]:
        self.seen.append(f"authorize {call.name}")
        return await decide()


def keyed_tool(keys: list[str]) -> Tool:
    def note(arguments: dict[str, Any], context: ToolContext) -> str:
        keys.append(context.idempotency_key)
        return "noted"

    return Tool("note", "Take a note.", {"type": "object", "properties": {}}, note)


def test_every_request_batch_and_authorization_goes_through_the_steps() -> None:
    keys: list[str] = []
    agent, _ = make_agent([Turn([tool_call("note"), tool_call("note")]), Turn([text("done")])],
                          ToolsPlugin(keyed_tool(keys)), tools=["note"],
                          trust=Trust(before_tool_call=lambda call, arguments: None))
    steps = Recorder()
    agent.run_steps = steps

    result = agent.run_sync("go")

    assert result.outcome is Outcome.COMPLETED
    assert steps.seen == ["begin run-7", "request", "authorize note", "authorize note", "batch note,note", "request"]
    assert keys == ["run-7:call_1_1", "run-7:call_1_2"]  # the steps' run id


def test_a_step_that_answers_from_its_checkpoint_sends_nothing() -> None:
    keys: list[str] = []
    turns = [Turn([tool_call("note")]), Turn([text("done")])]
    first, script = make_agent(turns, ToolsPlugin(keyed_tool(keys)), tools=["note"])
    first.run_steps = steps = Recorder()
    first.run_sync("go")
    assert script.request_count == 2

    again, script = make_agent(turns, ToolsPlugin(keyed_tool(keys)), tools=["note"])
    again.run_steps = replaying = Recorder()
    replaying.replay = list(steps.saved_messages)
    result = again.run_sync("go")

    assert script.request_count == 0  # both responses came from the first execution
    assert result.text == "done"
    assert without_times(result.messages) == without_times(first.last_result.messages)  # type: ignore[union-attr]


def without_times(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """The messages as data, less their timestamps (the wall clock's)."""
    return [{key: value for key, value in message.to_dict().items() if key != "timestamp"} for message in messages]


def test_without_steps_each_run_has_its_own_id_in_every_key() -> None:
    keys: list[str] = []
    agent, _ = make_agent([Turn([tool_call("note")]), Turn([text("one")]), Turn([tool_call("note")]),
                           Turn([text("two")])], ToolsPlugin(keyed_tool(keys)), tools=["note"])
    assert isinstance(agent, Agent) and agent.run_steps is None

    asyncio.run(agent.run("first"))
    asyncio.run(agent.run("second"))

    (first_run, first_call), (second_run, second_call) = (key.split(":") for key in keys)
    assert first_call == "call_1_1" and second_call == "call_3_1"
    assert len(first_run) == 32 and first_run != second_run  # a fresh id per run
