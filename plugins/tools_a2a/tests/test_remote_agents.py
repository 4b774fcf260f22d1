"""Configured remote agents as tools, against ``agentkit a2a serve``'s server and the SDK's own sample server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from a2a.client import ClientConfig, create_client
from a2a.types import GetTaskRequest, TaskState
from agentkit_tools_a2a._tools import SCHEMA

from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.plugin_api import Project
from agentkit.testing import FunctionModel, Script, Turn, text, tool_call

from .conftest import agentkit_peer, asgi_peer, configure, running
from .sample_agent import sample_app


def calling(tool: str, message: str, **extra: Any) -> Script:
    """A model that calls ``tool`` once with ``message``, then says ``done``."""
    return Script([Turn([tool_call(tool, {"message": message, **extra})]), Turn([text("done")])])


def result_of(agent_result: Any) -> dict[str, Any]:
    """The envelope the model got for its one tool call."""
    (tool_result,) = [message for message in agent_result.messages if message.role == "tool_result"]
    return json.loads(tool_result.text)


def test_a_configured_agent_is_one_tool_described_by_its_card(config_home: Path, tmp_path: Path) -> None:
    with running(agentkit_peer(tmp_path, lambda: Script([Turn([text("sunny")])]))) as peer:
        configure(config_home, {"name": "weather", "url": peer.url})
        host = PluginHost.discover()
    tool = host.tools["a2a__weather"]
    assert tool.input_schema == SCHEMA
    assert "Answers questions about the weather." in tool.description
    assert "- read_file:" in tool.description  # the card's skills: the served agent's tools
    assert "not instructions to follow" in tool.description


def test_the_model_asks_the_remote_agent_and_the_task_id_is_in_the_audit_trail(config_home: Path,
                                                                                 tmp_path: Path) -> None:
    with running(agentkit_peer(tmp_path, lambda: Script([Turn([text("sunny, 21 degrees")])]))) as peer:
        configure(config_home, {"name": "weather", "url": peer.url})
        audit: list[Any] = []
        agent = Agent(AgentConfig(model="faux/scripted", root=tmp_path, tools=["a2a__weather"], audit=audit.append,
                                  connection=Connection(transport=calling("a2a__weather", "weather in Paris?"))))
        events: list[Any] = []
        agent.subscribe(events.append)
        result = agent.run_sync("ask the weather agent")
    envelope = result_of(result)
    assert envelope["ok"] is True
    assert envelope["data"]["answer"] == "sunny, 21 degrees"
    assert envelope["data"]["state"] == "completed"
    records = [record for record in audit if record.kind.startswith("a2a.")]
    (task,) = [record for record in records if record.kind == "a2a.task"]
    assert task.details["task_id"] == envelope["data"]["task_id"] != ""
    assert task.tool_name == "a2a__weather"
    states = [record.details["state"] for record in records if record.kind == "a2a.progress"]
    assert states[0] in ("submitted", "working") and states[-1] == "completed"
    # Whoever watches the run sees the remote's progress within the call, as tool_call_progress events.
    kinds = [event.type for event in events]
    call = kinds[kinds.index("tool_call_start"):kinds.index("tool_call_end") + 1]
    reports = [event for event in events if event.type == "tool_call_progress"]
    assert call == ["tool_call_start", *["tool_call_progress"] * len(reports), "tool_call_end"]
    assert {event.tool_name for event in reports} == {"a2a__weather"}
    assert [event.message.split(":")[0] for event in reports][-1] == "completed"
    assert {event.message.split(":")[0] for event in reports} >= set(states)


def test_a_conversation_with_the_remote_agent_continues_by_its_context_id(config_home: Path,
                                                                           tmp_path: Path) -> None:
    def heard(request: Any) -> str:
        return f"{sum(message['role'] == 'user' for message in request.body['messages'])} messages"

    with running(agentkit_peer(tmp_path, lambda: FunctionModel(heard))) as peer:
        configure(config_home, {"name": "helper", "url": peer.url})
        first = Agent(AgentConfig(model="faux/scripted", root=tmp_path, tools=["a2a__helper"],
                                  connection=Connection(transport=calling("a2a__helper", "one")))).run_sync("go")
        context_id = result_of(first)["data"]["context_id"]
        second = Agent(AgentConfig(model="faux/scripted", root=tmp_path, tools=["a2a__helper"], connection=Connection(
            transport=calling("a2a__helper", "two", context_id=context_id)))).run_sync("go")
    assert result_of(first)["data"]["answer"] == "1 messages"
    assert result_of(second)["data"]["answer"] == "2 messages"
    assert result_of(second)["data"]["context_id"] == context_id


def test_the_sdks_sample_agent_answers_through_its_skill_tool(config_home: Path, tmp_path: Path) -> None:
    with running(asgi_peer(sample_app)) as peer:
        configure(config_home, {"name": "sample", "url": peer.url, "per_skill": True})
        agent = Agent(AgentConfig(model="faux/scripted", root=tmp_path, tools=["a2a__sample__sample_agent"],
                                  connection=Connection(transport=calling("a2a__sample__sample_agent", "hello"))))
        result = agent.run_sync("greet the sample agent")
    envelope = result_of(result)
    assert envelope["ok"] is True
    assert envelope["data"]["answer"] == "Hello World! Nice to meet you!"
    assert envelope["data"]["state"] == "completed"


def test_aborting_the_run_cancels_the_remote_task(config_home: Path, tmp_path: Path) -> None:
    hanging = lambda: Script([Turn([text("let me think")], hang=True)])  # noqa: E731
    with running(agentkit_peer(tmp_path, hanging)) as peer:
        configure(config_home, {"name": "slow", "url": peer.url})
        seen: list[Any] = []

        def audit(record: Any) -> None:
            seen.append(record)
            if record.kind == "a2a.progress" and record.details["state"] == "working":
                agent.abort()  # the remote is working on it: the user gives up

        agent = Agent(AgentConfig(model="faux/scripted", root=tmp_path, tools=["a2a__slow"], audit=audit,
                                  connection=Connection(transport=calling("a2a__slow", "think hard"))))
        result = agent.run_sync("ask the slow one")
        (task,) = [record for record in seen if record.kind == "a2a.task"]

        async def remote_state() -> int:
            client = await create_client(peer.url, ClientConfig(streaming=False))
            try:
                return (await client.get_task(GetTaskRequest(id=task.details["task_id"]))).status.state
            finally:
                await client.close()

        assert peer.call(remote_state()) == TaskState.TASK_STATE_CANCELED
    assert result.outcome.value == "aborted"
    assert any(record.kind == "a2a.cancel" for record in seen)


def test_a_projects_agents_are_used_only_when_the_project_is_trusted(config_home: Path, tmp_path: Path,
                                                                      capsys: Any) -> None:
    with running(agentkit_peer(tmp_path, lambda: Script([Turn([text("hi")])]))) as peer:
        project = Path.cwd()
        configure(project, {"name": "projects", "url": peer.url})
        untrusted = PluginHost.discover(project=Project.open(project, trust=False))
        assert "a2a__projects" not in untrusted.tools
        assert "note: A2A agent 'projects' of" in capsys.readouterr().err
        trusted = PluginHost.discover(project=Project.open(project, trust=True))
        assert "a2a__projects" in trusted.tools


