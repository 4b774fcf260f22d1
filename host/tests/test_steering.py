"""Steering, follow-ups and continuing: messages given to a running agent arrive at the defined points."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from host_helpers import ToolsPlugin, make_host

from agentkit.host import (
    Agent,
    AgentBusy,
    AgentConfig,
    Connection,
    NothingToContinue,
    Trust,
    allow_all,
)
from agentkit.plugin_api import AgentEnd, AgentStart, Event, MessageEnd, Outcome, Tool, UserMessage

AGENT: list[Agent] = []


def shout(word: str) -> str:
    """Say a word louder; a word starting with 'steer:' also steers the agent running it."""
    if word.startswith("steer:"):
        AGENT[0].steer(word.removeprefix("steer:"))
    return word.upper()


def make_agent(*turns: Turn) -> tuple[Agent, Script]:
    script = Script(list(turns), keep_requests=None)
    agent = Agent(AgentConfig(model="faux/scripted", tools=["shout"], trust=Trust(before_tool_call=allow_all),
                              connection=Connection(transport=script)),
                  host=make_host(ToolsPlugin(Tool.from_function(shout))))
    AGENT[:] = [agent]
    return agent, script


def roles_and_texts(messages: list[Any]) -> list[str]:
    return [message.role if message.role != "user" else f"user:{message.content[0].text}" for message in messages]


def test_steering_from_a_tool_arrives_after_the_whole_batch_and_before_the_next_request() -> None:
    agent, script = make_agent(
        Turn([tool_call("shout", {"word": "steer:go left"}), tool_call("shout", {"word": "b"})]),
        Turn([text("Going left.")]),
    )
    result = agent.run_sync("Go.")
    assert result.outcome is Outcome.COMPLETED
    assert roles_and_texts(agent.history) == [
        "user:Go.", "assistant", "tool_result", "tool_result", "user:go left", "assistant"]
    assert roles_and_texts(script.requests[1].messages)[-1] == "user:go left"


def test_pending_steering_keeps_the_run_going_after_an_answer_without_tool_calls() -> None:
    agent, script = make_agent(Turn([text("Done, I think.")]), Turn([text("Redone.")]))
    steered: list[bool] = []

    def on_event(event: Event) -> None:
        if isinstance(event, MessageEnd) and not steered:
            steered.append(True)
            agent.steer("Also do this.")

    agent.subscribe(on_event)
    result = agent.run_sync("Do it.")
    assert result.outcome is Outcome.COMPLETED and result.text == "Redone."
    assert roles_and_texts(agent.history) == ["user:Do it.", "assistant", "user:Also do this.", "assistant"]
    assert script.request_count == 2


def test_follow_ups_wait_for_the_inner_loop_to_end_and_run_within_the_same_run() -> None:
    agent, script = make_agent(
        Turn([tool_call("shout", {"word": "a"})]), Turn([text("First.")]),
        Turn([text("Second.")]), Turn([text("Third.")]),
    )
    events: list[Event] = []
    agent.subscribe(events.append)
    agent.follow_up("Then this.")
    agent.follow_up(UserMessage.text("And this."))
    result = agent.run_sync("Start.")
    assert result.outcome is Outcome.COMPLETED and result.text == "Third."
    # the tool turn's follow-up request carries no follow-up: they wait for the answer without calls
    assert roles_and_texts(script.requests[1].messages)[-1] == "tool_result"
    assert roles_and_texts(script.requests[2].messages)[-1] == "user:Then this."
    assert roles_and_texts(script.requests[3].messages)[-1] == "user:And this."
    assert sum(isinstance(event, AgentStart) for event in events) == 1
    assert sum(isinstance(event, AgentEnd) for event in events) == 1
    assert roles_and_texts(result.messages) == [
        "user:Start.", "assistant", "tool_result", "assistant", "user:Then this.", "assistant",
        "user:And this.", "assistant"]
    assert not agent.has_queued_messages


def test_queues_can_be_cleared() -> None:
    agent, script = make_agent(Turn([text("Only this.")]))
    agent.steer("dropped")
    agent.follow_up("dropped too")
    assert agent.has_queued_messages
    assert [message.content[0].text for message in agent.clear_queues()] == ["dropped", "dropped too"]
    agent.run_sync("Hi.")
    assert script.request_count == 1


def test_continue_resumes_without_a_new_user_message() -> None:
    agent, script = make_agent(Turn([text("Answered.")]))
    agent.history = [UserMessage.text("A question left unanswered.")]
    result = agent.continue_sync()
    assert result.outcome is Outcome.COMPLETED and result.text == "Answered."
    assert roles_and_texts(script.requests[0].messages) == ["user:A question left unanswered."]
    assert roles_and_texts(agent.history) == ["user:A question left unanswered.", "assistant"]


def test_continue_after_an_aborted_answer_asks_again() -> None:
    agent, script = make_agent(Turn(status=500, error="down"), Turn([text("Back.")]))
    assert agent.run_sync("Hello?").outcome is Outcome.ERROR
    result = agent.continue_sync()
    assert result.outcome is Outcome.COMPLETED and result.text == "Back."
    assert roles_and_texts(script.requests[1].messages) == ["user:Hello?"]  # the failed answer left out


def test_continue_after_a_complete_answer_takes_a_queued_message_or_says_what_to_do() -> None:
    agent, script = make_agent(Turn([text("One.")]), Turn([text("Two.")]))
    agent.run_sync("Hi.")
    with pytest.raises(NothingToContinue, match="run"):
        agent.continue_sync()
    agent.follow_up("More.")
    assert agent.continue_sync().text == "Two."
    assert roles_and_texts(script.requests[1].messages)[-1] == "user:More."


def test_continue_with_an_empty_history_says_what_to_do() -> None:
    agent, _ = make_agent()
    with pytest.raises(NothingToContinue):
        agent.continue_sync()


def test_continuing_or_running_while_a_run_is_in_progress_fails_at_once_and_keeps_the_queue() -> None:
    agent, _ = make_agent(Turn([text("Thinking forever...")], hang=True))

    async def scenario() -> tuple[list[str], bool]:
        refused = []
        async for event in agent.stream("Think."):
            if event.type == "message_start":
                agent.follow_up("Later.")
                for attempt in (agent.continue_, lambda: agent.run("Again.")):
                    try:
                        await attempt()
                    except AgentBusy:
                        refused.append("busy")
                agent.abort()
        return refused, agent.has_queued_messages

    refused, queued = asyncio.run(scenario())
    assert refused == ["busy", "busy"]
    assert queued
