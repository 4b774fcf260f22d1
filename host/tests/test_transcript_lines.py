"""A session's transcript as the codecs see it: cheap to check at any depth, and never stale.

The host hands each request's messages to the codec as a
:class:`~agentkit.plugin_api.codec.Transcript` whose stable part the codec's
:class:`~agentkit.plugin_api.codec.TranscriptEncoder` does not compare again.
Whatever the embedder does to the history between runs, the bytes sent are
those of the history as it now stands.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from agentkit_provider_openai import OpenAICompletions
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.host._repair import TranscriptRepair, repair
from agentkit.host._token_limits import PromptEstimator
from agentkit.plugin_api import (
    AssistantMessage,
    Message,
    StopReason,
    TextBlock,
    ToolResultMessage,
    ToolUseBlock,
    UserMessage,
    hookimpl,
)
from agentkit.plugin_api.codec import Transcript, TranscriptEncoder

MODEL = "gpt-4.1"


class _OpenAI:
    @hookimpl
    def agentkit_register_providers(self, register: Any) -> None:
        register(OpenAICompletions())


class Server:
    """Answers every request with ``reply N``; keeps each request's messages as sent."""

    def __init__(self) -> None:
        self.sent: list[list[dict[str, Any]]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(json.loads(request.content)["messages"])
        body = {"id": "c", "object": "chat.completion", "model": MODEL, "usage": {"prompt_tokens": 1, "completion_tokens": 1},
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": f"reply {len(self.sent)}"}}]}
        return httpx.Response(200, json=body)


def openai_agent(server: Server) -> Agent:
    host = PluginHost()
    host.register(_OpenAI(), name="openai")
    return Agent(AgentConfig(model=f"openai/{MODEL}",
                             connection=Connection(transport=httpx.MockTransport(server))), host=host)


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")


def said(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(message["role"], message["content"]) for message in messages]


def test_an_earlier_message_replaced_between_runs_is_what_the_next_request_sends():
    server = Server()
    agent = openai_agent(server)
    for prompt in ("one", "two", "three"):
        agent.run_sync(prompt)
    agent.history[2] = UserMessage.text("two, edited")  # "two": replaced, deep in the history
    agent.history[3] = AssistantMessage([TextBlock("reply 2, edited")], StopReason.STOP, provider="openai",
                                        api="openai-completions", model=MODEL)
    agent.run_sync("four")
    assert said(server.sent[-1]) == [
        ("user", "one"), ("assistant", "reply 1"), ("user", "two, edited"), ("assistant", "reply 2, edited"),
        ("user", "three"), ("assistant", "reply 3"), ("user", "four"),
    ]
    del agent.history[:2]  # and the start of it
    agent.run_sync("five")
    assert said(server.sent[-1])[:3] == [("user", "two, edited"), ("assistant", "reply 2, edited"), ("user", "three")]
    assert len(server.sent[-1]) == 7


def test_a_history_assigned_anew_is_what_the_next_request_sends():
    server = Server()
    agent = openai_agent(server)
    agent.run_sync("one")
    agent.run_sync("two")
    agent.history = [agent.history[0], agent.history[1], UserMessage.text("other")]
    agent.run_sync("three")
    assert said(server.sent[-1]) == [("user", "one"), ("assistant", "reply 1"), ("user", "other"), ("user", "three")]


# -- the repair's lines, against every edit an embedder can make -------------------------


def _assistant(index: int, calls: int) -> AssistantMessage:
    blocks = [ToolUseBlock(f"call_{index}_{i}", "read", "{}") for i in range(calls)]
    return AssistantMessage([TextBlock(f"a{index}"), *blocks], StopReason.TOOL_USE if calls else StopReason.STOP,
                            provider="openai", api="openai-completions", model=MODEL)


def _results(message: AssistantMessage) -> list[Message]:
    return [ToolResultMessage(call.id, call.name, [TextBlock(f"r{call.id}")]) for call in message.tool_calls]


_EDITS = st.lists(
    st.one_of(
        st.tuples(st.just("turn"), st.integers(0, 2), st.booleans()),  # calls, answered or still open
        st.tuples(st.just("replace"), st.integers(0, 40), st.booleans()),
        st.tuples(st.just("delete"), st.integers(0, 40), st.booleans()),
        st.tuples(st.just("user"), st.integers(0, 0), st.booleans()),
    ),
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(_EDITS)
def test_the_repaired_transcript_always_encodes_as_from_scratch(edits):
    """Whatever the history goes through, the kept encoding and the prompt estimate are those of the
    history as it stands."""
    provider = OpenAICompletions()
    target = next(row for row in provider.catalog() if row.id == MODEL)

    def extend(done: tuple[str, ...] | None, new: Any) -> tuple[str, ...]:
        return (*(done or ()), *(json.dumps(message.to_dict(), sort_keys=True) for message in new))

    incremental, encoder, estimator = TranscriptRepair(target, provider), TranscriptEncoder(extend), PromptEstimator()
    history: list[Message] = [UserMessage.text("go")]
    for made, (action, amount, flag) in enumerate(edits, 1):
        if action == "turn":
            message = _assistant(made, amount)
            history += [message, *(_results(message) if flag else ())]
        elif action == "user":
            history.append(UserMessage.text(f"u{made}"))
        elif action == "replace":
            history[amount % len(history)] = UserMessage.text(f"e{made}") if flag else _assistant(made, 0)
        elif len(history) > 1:
            del history[amount % len(history)]
        view = incremental(history)
        assert isinstance(view, Transcript)
        assert encoder.encode(view) == extend(None, repair(history, target=target, provider=provider))
        assert estimator.tokens(view, None, ()) == PromptEstimator().tokens(list(view), None, ())
