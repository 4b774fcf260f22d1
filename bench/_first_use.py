"""A user's first use, as one process: import the host and a provider plugin, build an agent, run one request.

The agent has one tool of a plain schema (a function of typed parameters) and
talks to the ``openai-completions`` provider over an ``httpx.MockTransport``
that answers the first request with a final text, so the process does
everything a first real call does up to the network and nothing after it.
``bench_startup.py`` times this process beside ``python -c "import httpx"``.
"""

from __future__ import annotations

import os

import httpx
from agentkit_provider_openai import OpenAICompletions

from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.plugin_api import Tool, hookimpl

REPLY = (b'{"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4.1", "choices": [{"index": 0, '
         b'"message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}], '
         b'"usage": {"prompt_tokens": 9, "completion_tokens": 1}}')


def count(n: int, label: str = "") -> int:
    """Return n."""
    return n


class _Plugin:
    @hookimpl
    def agentkit_register_tools(self, register: object) -> None:
        register(Tool.from_function(count))  # type: ignore[operator]

    @hookimpl
    def agentkit_register_providers(self, register: object) -> None:
        register(OpenAICompletions())  # type: ignore[operator]


def main() -> None:
    os.environ["OPENAI_API_KEY"] = "sk-bench-not-a-real-key"
    transport = httpx.MockTransport(lambda request: httpx.Response(
        200, headers={"content-type": "application/json"}, content=REPLY))
    host = PluginHost()
    host.register(_Plugin(), name="first-use")
    agent = Agent(AgentConfig(model="openai/gpt-4.1", tools=["count"], connection=Connection(transport=transport)),
                  host=host)
    result = agent.run_sync("go")
    assert result.outcome == "completed", result.error


if __name__ == "__main__":
    main()
