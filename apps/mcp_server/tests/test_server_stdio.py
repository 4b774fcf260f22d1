"""`agentkit mcp serve` on stdio, spoken to in raw JSON-RPC lines: malformed and oversized frames get
the specified error and never a traceback; a cancelled request cancels its handler and gets no answer;
the end of the client's input cancels what is still running."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path

import pytest

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}
PATIENCE = 60  # seconds; generous for a loaded box: a missing answer fails the test instead of hanging it

PLUGIN = '''
import asyncio
from pathlib import Path

from agentkit.plugin_api import Tool, hookimpl


async def wait(arguments, context):
    Path(arguments["marker"] + ".started").write_text("started")
    while not context.cancel.cancelled:
        await asyncio.sleep(0.01)
    Path(arguments["marker"]).write_text("cancelled")
    return "stopped"


def echo(arguments, context):
    return arguments["text"]


@hookimpl
def agentkit_register_tools(register):
    register(Tool(name="wait", description="Wait until cancelled.", handler=wait,
                  input_schema={"type": "object", "properties": {"marker": {"type": "string"}}}))
    register(Tool(name="echo", description="Echo.", handler=echo,
                  input_schema={"type": "object", "properties": {"text": {"type": "string"}}}))
'''


class Served:
    """The command serving stdio, with its stdout read line by line in the background."""

    def __init__(self, agentkit, site: Path, *args: str) -> None:
        env = {"AGENTKIT_LOAD_PLUGINS": "stdio_tools,agentkit-tools-mcp"}
        self.process = subprocess.Popen([agentkit.path(), "mcp", "serve", "--watch", "0", *args],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=agentkit.environment(env, site))
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, frame: bytes | dict) -> None:
        data = frame if isinstance(frame, bytes) else json.dumps(frame).encode()
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def receive(self) -> dict:
        line = self.lines.get(timeout=PATIENCE)
        assert line is not None, "the server closed its output"
        return json.loads(line)

    def answer_to(self, request_id: object) -> tuple[dict, list[dict]]:
        """The response to ``request_id``, and every message that came before it."""
        before = []
        while True:
            message = self.receive()
            if message.get("id") == request_id and ("result" in message or "error" in message):
                return message, before
            before.append(message)

    def close(self) -> str:
        if not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=PATIENCE)
        finally:
            if self.process.poll() is None:
                self.process.kill()
        return self.process.stderr.read().decode("utf-8", "replace")


@pytest.fixture
def site(site_dir):
    site_dir("stdio-tools", entry_points={"agentkit.tools": {"stdio_tools": "stdio_tools"}},
             files={"stdio_tools.py": PLUGIN})
    return site_dir.site


def request(request_id: object, method: str, **params: object) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {"_meta": MODERN_META, **params}}


MALFORMED = [
    (b"this is not json", -32700, None),
    (b'{"jsonrpc": "2.0", "id": 7, "method": ', -32700, None),
    (b"\xff\xfe\x00garbage", -32700, None),
    (b'{"jsonrpc": "2.0", "id": 7, "method": 5}', -32600, 7),
    (b'{"jsonrpc": "1.0", "id": "x", "method": "tools/list"}', -32600, "x"),
    (b'{"id": true, "method": "tools/list"}', -32600, None),
    (b"[]", -32600, None),
    (b"42", -32600, None),
    (b"[" * 100_000 + b"]" * 100_000, -32600, None),
    (b'{"a":' * 5000 + b"1" + b"}" * 5000, -32600, None),
]
#: Requests whose id JSON-RPC 2.0 and MCP do not allow (a string or an integer only): answered, never dropped.
BAD_IDS = [b"null", b"{}", b'{"a": 1}', b"[1]", b"true", b"false", b"1.5", b"2.0"]
MALFORMED += [(b'{"jsonrpc": "2.0", "id": ' + bad + b', "method": "tools/list"}', -32600, None) for bad in BAD_IDS]


def test_malformed_frames_get_the_specified_error_and_the_server_goes_on(agentkit, site):
    served = Served(agentkit, site)
    errors = []
    try:
        for index, (frame, _code, _answered_id) in enumerate(MALFORMED):
            served.send(frame)
            error = served.receive()
            errors.append((error["id"], error["error"]["code"]))
            served.send(request(index, "tools/call", name="echo", arguments={"text": f"still here {index}"}))
            answer, _ = served.answer_to(index)
            assert answer["result"]["content"][0]["text"] == f"still here {index}"
    finally:
        stderr = served.close()

    assert errors == [(answered_id, code) for _frame, code, answered_id in MALFORMED]
    assert "Traceback" not in stderr


def test_a_frame_over_the_size_limit_is_refused_as_it_arrives(agentkit, site):
    served = Served(agentkit, site, "--max-message-bytes", "1024")
    try:
        served.send(request(1, "tools/call", name="echo", arguments={"text": "x" * 5000}))
        error = served.receive()
        served.send(request(2, "tools/call", name="echo", arguments={"text": "y" * 100}))
        answer, _ = served.answer_to(2)
    finally:
        stderr = served.close()

    assert (error["id"], error["error"]["code"]) == (None, -32600)
    assert "1024 bytes" in error["error"]["message"]
    assert answer["result"]["content"][0]["text"] == "y" * 100
    assert "Traceback" not in stderr


def wait_for(path: Path) -> None:
    deadline = time.monotonic() + PATIENCE
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


def test_a_cancelled_request_cancels_its_handler_and_gets_no_answer(agentkit, site, tmp_path):
    marker = tmp_path / "cancelled"
    served = Served(agentkit, site)
    try:
        served.send(request(1, "tools/call", name="wait", arguments={"marker": str(marker)}))
        wait_for(tmp_path / "cancelled.started")
        served.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
        wait_for(marker)
        served.send(request(2, "tools/list"))
        answer, before = served.answer_to(2)
    finally:
        stderr = served.close()

    assert [tool["name"] for tool in answer["result"]["tools"]] == ["echo", "wait"]
    assert [message for message in before if message.get("id") == 1] == []
    assert "Traceback" not in stderr


def test_the_end_of_input_cancels_the_calls_still_running_and_the_server_exits(agentkit, site, tmp_path):
    marker = tmp_path / "cancelled"
    served = Served(agentkit, site)
    served.send(request(1, "tools/call", name="wait", arguments={"marker": str(marker)}))
    wait_for(tmp_path / "cancelled.started")

    stderr = served.close()

    assert marker.read_text() == "cancelled"
    assert served.process.returncode == 0
    assert "Traceback" not in stderr


def test_a_client_that_stops_reading_ends_the_connection_without_a_traceback(agentkit, site):
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody reads the server's output: its first write breaks
    env = {"AGENTKIT_LOAD_PLUGINS": "stdio_tools,agentkit-tools-mcp"}
    process = subprocess.Popen([agentkit.path(), "mcp", "serve", "--watch", "0"], stdin=subprocess.PIPE,
                               stdout=write_end, stderr=subprocess.PIPE, env=agentkit.environment(env, site))
    os.close(write_end)
    try:
        stdout = b"".join(json.dumps(request(index, "tools/list")).encode() + b"\n" for index in range(3))
        _, stderr = process.communicate(stdout, timeout=PATIENCE)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    assert process.returncode == 0, stderr
    assert b"Traceback" not in stderr


def test_the_page_size_option_pages_the_tool_list(agentkit, site):
    served = Served(agentkit, site, "--page-size", "1")
    try:
        served.send(request(1, "tools/list"))
        first, _ = served.answer_to(1)
        served.send(request(2, "tools/list", cursor=first["result"]["nextCursor"]))
        second, _ = served.answer_to(2)
        served.send(request(3, "tools/list", cursor="not a cursor"))
        refused, _ = served.answer_to(3)
    finally:
        stderr = served.close()

    assert [tool["name"] for tool in first["result"]["tools"]] == ["echo"]
    assert [tool["name"] for tool in second["result"]["tools"]] == ["wait"] and "nextCursor" not in second["result"]
    assert refused["error"]["code"] == -32602
    assert "Traceback" not in stderr


def test_a_page_size_below_one_is_a_usage_error(agentkit):
    result = agentkit("mcp", "serve", "--page-size", "0")

    assert result.returncode == 2
    assert "--page-size must be at least 1" in result.stderr and "Traceback" not in result.stderr
