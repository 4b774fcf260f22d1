"""What a type checker reads from a run's result: ``test_typed_output.py`` has mypy check this file.

Never run, only checked: every ``assert_type`` must hold, and the file must raise no error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any, TypedDict, assert_type

from agentkit.host import Agent, AgentConfig, RunResult
from agentkit.plugin_api import Event


@dataclasses.dataclass
class Invoice:
    number: str
    total: float


class Count(TypedDict):
    words: int


SCHEMA: dict[str, Any] = {"type": "object", "properties": {"words": {"type": "integer"}}}


async def run_without_output_type(agent: Agent) -> None:
    result = await agent.run("Hello")
    assert_type(result, RunResult[None])
    assert_type(result.output, None)
    assert_type(result.text, str)


async def run_with_a_dataclass(agent: Agent) -> None:
    result = await agent.run("Read the invoice.", output_type=Invoice)
    assert_type(result, RunResult[Invoice])
    assert_type(result.output, Invoice | None)  # None when the run ended before a fitting answer
    if result.output is not None:
        assert_type(result.output.total, float)


async def run_with_a_typeddict_and_settings(agent: Agent) -> None:
    result = await agent.run("Count.", settings={"temperature": 0}, output_type=Count)
    assert_type(result, RunResult[Count])
    if result.output is not None:
        assert_type(result.output["words"], int)


async def run_with_a_json_schema(agent: Agent) -> None:
    assert_type(await agent.run("Count.", output_type=SCHEMA), RunResult[Any])


async def run_with_an_output_type_chosen_at_run_time(agent: Agent, kind: type[Invoice] | None) -> None:
    # Either overload could apply: the checker cannot tell which, and says so with ``Any``.
    assert_type(await agent.run("Maybe an invoice.", output_type=kind), RunResult[Any])


def run_sync(agent: Agent) -> None:
    assert_type(agent.run_sync("Hello"), RunResult[None])
    assert_type(agent.run_sync("Read the invoice.", output_type=Invoice), RunResult[Invoice])
    assert_type(agent.run_sync("Count.", output_type=Count).output, Count | None)
    assert_type(agent.run_sync("Count.", output_type=SCHEMA), RunResult[Any])


async def continue_a_run(agent: Agent) -> None:
    # continue_ asks for no output type: its result has no output.
    assert_type(await agent.continue_(), RunResult[None])
    assert_type(agent.continue_sync(), RunResult[None])


async def stream_then_read_the_result(agent: Agent) -> None:
    events = agent.stream("Read the invoice.", output_type=Invoice)
    assert_type(events, AsyncIterator[Event])
    async for _event in events:
        pass
    # The agent keeps the last result of whatever run ended last: any output type.
    assert_type(agent.last_result, RunResult[Any] | None)


async def annotated_without_a_parameter(agent: Agent) -> RunResult:
    # A bare ``RunResult`` (as written before it was generic) is ``RunResult[Any]``, and takes any run's.
    result: RunResult = await agent.run("Read the invoice.", output_type=Invoice)
    assert_type(result.output, Any | None)
    return result


async def an_agent_with_an_output_type(config: AgentConfig) -> None:
    agent = Agent(config, output_type=Invoice)
    assert_type(agent, Agent[Invoice])
    assert_type(await agent.run("Read the invoice."), RunResult[Invoice])
    assert_type(agent.run_sync("Read the invoice.").output, Invoice | None)
    # A call's own output type wins over the agent's.
    assert_type(await agent.run("Count.", output_type=Count), RunResult[Count])
    assert_type(agent.run_sync("Count.", output_type=SCHEMA), RunResult[Any])
    # continue_ runs with the agent's output type.
    assert_type(await agent.continue_(), RunResult[Invoice])
    assert_type(agent.continue_sync(), RunResult[Invoice])
    assert_type(agent.last_result, RunResult[Any] | None)


def an_agent_without_an_output_type(config: AgentConfig) -> None:
    assert_type(Agent(config), Agent[None])
    assert_type(Agent(config, None, session=None), Agent[None])
    assert_type(Agent(config).run_sync("Hello"), RunResult[None])


def an_agent_with_a_json_schema_or_a_type_chosen_at_run_time(config: AgentConfig,
                                                             kind: type[Invoice] | None) -> None:
    assert_type(Agent(config, output_type=SCHEMA), Agent[Any])
    assert_type(Agent(config, output_type=SCHEMA).run_sync("Count."), RunResult[Any])
    # Either overload could apply: the agent is one or the other.
    assert_type(Agent(config, output_type=kind), Agent[Invoice] | Agent[None])


def agents_annotated(invoices: Agent[Invoice], plain: Agent) -> None:
    # A bare ``Agent`` is ``Agent[None]``, what ``Agent(config)`` makes (as before it was generic).
    assert_type(plain, Agent[None])
    assert_type(invoices.run_sync("Read the invoice."), RunResult[Invoice])
