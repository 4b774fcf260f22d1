"""Mistakes a type checker must catch: ``test_typed_output.py`` has mypy check this file.

Never run, only checked: each line marked ``# E: <code>`` must raise that mypy error, and no other
line may raise one.
"""

from __future__ import annotations

import dataclasses

from agentkit.host import Agent, AgentConfig


@dataclasses.dataclass
class Invoice:
    number: str
    total: float


def count_words(words: int) -> None:
    """Something that wants another type than the run's output."""


def pay(invoice: Invoice) -> None:
    """Something that wants the run's output, and never ``None``."""


async def output_used_as_another_type(agent: Agent) -> None:
    result = await agent.run("Read the invoice.", output_type=Invoice)
    if result.output is not None:
        count_words(result.output)  # E: arg-type
        count_words(result.output.words)  # E: attr-defined


async def output_used_without_checking_the_run_gave_one(agent: Agent) -> float:
    result = await agent.run("Read the invoice.", output_type=Invoice)
    pay(result.output)  # E: arg-type
    return result.output.total  # E: union-attr


async def output_of_a_run_without_output_type(agent: Agent) -> None:
    pay((await agent.run("Hello")).output)  # E: arg-type
    pay(agent.run_sync("Hello").output)  # E: arg-type
    pay((await agent.continue_()).output)  # E: arg-type
    pay(agent.continue_sync().output)  # E: arg-type


def output_type_that_is_no_type(agent: Agent) -> None:
    agent.run_sync("Hello", output_type=42)  # E: call-overload
    agent.stream("Hello", output_type="an invoice")  # E: arg-type


def output_of_an_agent_with_an_output_type_used_wrongly(config: AgentConfig) -> None:
    agent = Agent(config, output_type=Invoice)
    result = agent.run_sync("Read the invoice.")
    if result.output is not None:
        count_words(result.output)  # E: arg-type
    pay(result.output)  # E: arg-type
    pay(agent.run_sync("Count.", output_type=dict).output)  # E: arg-type


def wants_invoices(agent: Agent[Invoice]) -> None:
    """Something that runs an agent for its invoices."""


def an_agent_of_another_output_type(config: AgentConfig) -> None:
    wants_invoices(Agent(config))  # E: arg-type
    plain: Agent = Agent(config, output_type=Invoice)  # E: arg-type
    plain.run_sync("Hello")
    wants_a_plain_agent(Agent(config, output_type=Invoice))  # E: arg-type


def wants_a_plain_agent(agent: Agent) -> None:
    """A bare ``Agent`` is an ``Agent[None]``: an agent of another output type is not one."""


def agent_output_type_that_is_no_type(config: AgentConfig) -> None:
    Agent(config, output_type=42)  # E: call-overload
