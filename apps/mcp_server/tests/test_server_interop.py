"""`agentkit mcp serve` against the official SDK's client (mcp 2.x): auto mode and pinned legacy mode,
over stdio and streamable HTTP. The server is the real command in its own process, serving a tool
plugin installed for it."""

from __future__ import annotations

import contextlib
import queue
import secrets
import subprocess
import threading
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

PLUGIN = '''
import time
from pathlib import Path

from agentkit.plugin_api import Tool, hookimpl


def echo(arguments, context):
    return arguments["text"]


def wait(arguments, context):
    Path(arguments["marker"] + ".started").write_text("started")
    while not context.cancel.wait(0.05):
        pass
    Path(arguments["marker"]).write_text("cancelled")
    return "stopped"


@hookimpl
def agentkit_register_tools(register):
    register(Tool(name="echo", description="Echo the text back.", handler=echo,
                  input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
    register(Tool(name="wait", description="Wait until cancelled.", handler=wait, default_enabled=False,
                  input_schema={"type": "object", "properties": {"marker": {"type": "string"}}}))
'''


@pytest.fixture
def served(site_dir):
    """The environment under which the command serves only the test's ``echo`` plugin."""
    site_dir("served-echo", entry_points={"agentkit.tools": {"served_echo": "served_echo"}},
             files={"served_echo.py": PLUGIN})
    return {"AGENTKIT_LOAD_PLUGINS": "served_echo,agentkit-tools-mcp"}, site_dir.site


def stdio_server(agentkit, env, site) -> StdioServerParameters:
    return StdioServerParameters(command=agentkit.path(), args=["mcp", "serve", "--watch", "0"],
                                 env=agentkit.environment(env, site))


async def exercise(client: Client) -> tuple[str, list[str], str, bool]:
    async with client:
        tools = await client.list_tools()
        result = await client.call_tool("echo", {"text": "héllo, both eras"})
        return client.protocol_version, [tool.name for tool in tools.tools], result.content[0].text, result.is_error


@pytest.mark.parametrize(("mode", "era"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_the_sdk_client_calls_a_tool_over_stdio(agentkit, served, mode, era):
    env, site = served
    client = Client(stdio_server(agentkit, env, site), mode=mode)

    version, names, text, is_error = anyio.run(exercise, client)

    assert (version, names, text, is_error) == (era, ["echo"], "héllo, both eras", False)


class HttpServer:
    """``agentkit mcp serve --http --port 0`` in its own process, and the URL it printed."""

    def __init__(self, agentkit, *args: str, env: dict[str, str], site: Path) -> None:
        self.process = subprocess.Popen([agentkit.path(), "mcp", "serve", "--http", "--port", "0", "--watch", "0", *args],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        text=True, env=agentkit.environment(env, site))
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.url = self._wait_for_url()

    def _read(self) -> None:
        for line in self.process.stderr:
            self.lines.put(line)
        self.lines.put(None)

    def _wait_for_url(self) -> str:
        seen = []
        while True:
            line = self.lines.get(timeout=120)  # generous: the box is loaded; a hung server fails the test
            if line is None:
                raise AssertionError(f"the server exited before listening: {''.join(seen)}")
            seen.append(line)
            if "listening on " in line:
                return line.split("listening on ", 1)[1].strip()

    def stop(self) -> str:
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        rest = []
        while (line := self.lines.get(timeout=60)) is not None:
            rest.append(line)
        return "".join(rest)


@pytest.fixture
def http_server(agentkit, served):
    env, site = served
    key = secrets.token_hex(16)
    server = HttpServer(agentkit, env={**env, "AGENTKIT_MCP_API_KEY": key}, site=site)
    server.key = key
    yield server
    server.stop()


@pytest.mark.parametrize(("mode", "era"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_the_sdk_client_calls_a_tool_over_http(http_server, mode, era):
    async def main():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {http_server.key}"}) as http:
            return await exercise(Client(streamable_http_client(http_server.url, http_client=http), mode=mode))

    version, names, text, is_error = anyio.run(main)

    assert (version, names, text, is_error) == (era, ["echo"], "héllo, both eras", False)


def test_the_http_server_refuses_a_client_without_the_key(http_server):
    response = httpx2.post(http_server.url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
                           headers={"Authorization": "Bearer not-the-key"})

    assert response.status_code == 401


def test_stopping_the_http_server_cancels_the_calls_in_flight_first(agentkit, served, tmp_path):
    env, site = served
    key = secrets.token_hex(16)
    server = HttpServer(agentkit, "--tool", "wait", env={**env, "AGENTKIT_MCP_API_KEY": key}, site=site)
    marker = tmp_path / "cancelled"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                 "io.modelcontextprotocol/clientCapabilities": {}},
                       "name": "wait", "arguments": {"marker": str(marker)}}}
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "wait"}

    def call() -> None:
        with contextlib.suppress(httpx2.HTTPError):  # the server goes away: what this test does to it
            httpx2.post(server.url, json=body, headers=headers, timeout=120)

    caller = threading.Thread(target=call, daemon=True)
    caller.start()
    started = tmp_path / "cancelled.started"
    for _ in range(6000):  # up to 120 s on a loaded box
        if started.exists():
            break
        threading.Event().wait(0.02)
    assert started.exists(), "the call never started"

    stderr = server.stop()

    assert marker.read_text() == "cancelled"
    assert server.process.returncode is not None
    assert "Traceback" not in stderr
