"""A remote that is dead, lies about its card, sends too much or never answers: each a clear, bounded failure."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from a2a.client import ClientConfig, create_client
from a2a.types import GetTaskRequest, TaskState
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.testing import Script, Turn, text, tool_call

from .conftest import agentkit_peer, asgi_peer, configure, running


def ask(tool: str, root: Path, audit: Any = None, host: PluginHost | None = None) -> dict[str, Any]:
    """Run an agent whose model calls ``tool`` once; the envelope the model got."""
    script = Script([Turn([tool_call(tool, {"message": "hello?"})]), Turn([text("done")])])
    agent = Agent(AgentConfig(model="faux/scripted", root=root, tools=[tool], audit=audit,
                              connection=Connection(transport=script)), host=host)
    result = agent.run_sync("go")
    (tool_result,) = [message for message in result.messages if message.role == "tool_result"]
    return json.loads(tool_result.text)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def card_server(body: bytes) -> Any:
    """A server whose well-known card path answers ``body``."""
    async def card(request: Any) -> Response:
        return Response(body, media_type="application/json")

    return asgi_peer(lambda host, port: Starlette(routes=[Route("/.well-known/agent-card.json", card)]))


def test_a_dead_remote_contributes_no_tool_and_says_so(config_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configure(config_home, {"name": "gone", "url": f"http://127.0.0.1:{free_port()}", "connect_timeout_s": 5})
    host = PluginHost.discover()
    assert not any(name.startswith("a2a__") for name in host.tools)
    (line,) = [line for line in capsys.readouterr().err.splitlines() if "A2A" in line]
    assert line.startswith("warning: A2A agent 'gone' contributes no tool: cannot reach http://127.0.0.1:")
    assert "is the agent running?" in line


@pytest.mark.parametrize(("body", "says"), [
    (b"<html>not json</html>", "is not an Agent Card (JSONDecodeError"),
    (b"[1, 2, 3]", "is not an Agent Card"),
    (json.dumps({"name": "x", "supportedInterfaces": [{"url": "grpc://h", "protocolBinding": "GRPC"}]}).encode(),
     "offers GRPC; this client speaks JSONRPC or HTTP+JSON"),
    (json.dumps({"description": "no name"}).encode(), "has no name"),
    # A card may not send the entry's headers (its key) to another server.
    (json.dumps({"name": "x", "supportedInterfaces": [{"url": "http://127.0.0.2:9/", "protocolBinding": "JSONRPC",
                                                      "protocolVersion": "1.0"}]}).encode(),
     "sends calls to http://127.0.0.2:9/, not to"),
    (b" " * (1024 * 1024 + 10) + b"{}", "is over 1048576 bytes"),
])
def test_a_malformed_card_contributes_no_tool_and_says_why(config_home: Path, capsys: pytest.CaptureFixture[str],
                                                           body: bytes, says: str) -> None:
    with running(card_server(body)) as peer:
        configure(config_home, {"name": "odd", "url": peer.url})
        host = PluginHost.discover()
    assert "a2a__odd" not in host.tools
    (line,) = [line for line in capsys.readouterr().err.splitlines() if "A2A" in line]
    assert line.startswith("warning: A2A agent 'odd' contributes no tool: ") and says in line, line


def test_a_remote_that_died_after_its_card_was_read_is_an_error_result(config_home: Path, tmp_path: Path) -> None:
    with running(agentkit_peer(tmp_path, lambda: Script([Turn([text("hi")])]))) as peer:
        configure(config_home, {"name": "brief", "url": peer.url})
        host = PluginHost.discover()  # the card is read...
    envelope = ask("a2a__brief", tmp_path, host=host)  # ...and the agent is gone when it is called
    assert envelope["ok"] is False and envelope["error"] == "a2a_unavailable"
    assert envelope["detail"].startswith("A2A agent 'brief': ")


def test_a_huge_answer_is_cut_off_at_the_entrys_bound(config_home: Path, tmp_path: Path) -> None:
    huge = "x" * 200_000
    with running(agentkit_peer(tmp_path, lambda: Script([Turn([text(huge)])]))) as peer:
        configure(config_home, {"name": "chatty", "url": peer.url, "max_response_bytes": 20_000})
        envelope = ask("a2a__chatty", tmp_path)
    assert envelope["ok"] is False and envelope["error"] == "a2a_response_too_large"
    assert "sent more than 20000 bytes (max_response_bytes)" in envelope["detail"]


def test_a_remote_that_never_answers_times_out_and_its_task_is_cancelled(config_home: Path, tmp_path: Path) -> None:
    hanging = lambda: Script([Turn([text("hmm")], hang=True)])  # noqa: E731
    with running(agentkit_peer(tmp_path, hanging)) as peer:
        configure(config_home, {"name": "mute", "url": peer.url, "timeout_s": 1})
        seen: list[Any] = []
        envelope = ask("a2a__mute", tmp_path, audit=seen.append)
        (task,) = [record for record in seen if record.kind == "a2a.task"]

        async def remote_state() -> int:
            client = await create_client(peer.url, ClientConfig(streaming=False))
            try:
                return (await client.get_task(GetTaskRequest(id=task.details["task_id"]))).status.state
            finally:
                await client.close()

        assert peer.call(remote_state()) == TaskState.TASK_STATE_CANCELED
    assert envelope["ok"] is False and envelope["error"] == "a2a_timeout"
    assert envelope["detail"] == "A2A agent 'mute' did not answer within 1 s (timeout_s); its task was cancelled"


def test_a2a_agents_says_which_agent_has_which_tool_and_why_one_has_none(config_home: Path, tmp_path: Path) -> None:
    with running(agentkit_peer(tmp_path, lambda: Script([Turn([text("hi")])]))) as peer:
        configure(config_home, {"name": "up", "url": peer.url},
                  {"name": "down", "url": f"http://127.0.0.1:{free_port()}", "connect_timeout_s": 5})
        host = PluginHost.discover()
    status = host.tools["a2a_agents"]
    assert not status.default_enabled
    listing = status.handler({}, None)
    assert [(item["agent"], item["tools"]) for item in listing] == [("down", []), ("up", ["a2a__up"])]
    assert listing[0]["problem"].startswith("cannot reach http://127.0.0.1:")
    assert listing[1]["card_name"] == "helper"
