"""``agentkit mcp serve --http`` against clients that hold connections without finishing their requests: the
half-sent ones cannot starve a client with the key, a request's headers and body each have a deadline, the
number of connections is capped (503 past it), too few file descriptors is survived with a bounded log, and a
key too short to resist guessing is refused at start. The server is the real command in its own process."""

from __future__ import annotations

import contextlib
import resource
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

KEY = "k" * 32
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
#: Generous: a loaded 2-core box may be slow; a test that waits longer has hung, not lost a race.
PATIENCE = 60.0
#: The start of a request that never ends: no blank line closes its headers.
HALF_SENT = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


class Served:
    """The command serving HTTP on a free loopback port, its stderr collected as it comes."""

    def __init__(self, agentkit: Any, *args: str, key: str = KEY, open_files: int | None = None) -> None:
        def limit() -> None:
            if open_files is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

        self.process = subprocess.Popen(
            [agentkit.path(), "mcp", "serve", "--http", "--port", "0", "--watch", "0", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env=agentkit.environment({"AGENTKIT_MCP_API_KEY": key}), preexec_fn=limit)
        self.stderr = bytearray()
        self._listening = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self._listening.wait(PATIENCE):
            self.stop()
            raise AssertionError(f"the server did not start: {bytes(self.stderr)!r}")
        first = bytes(self.stderr).split(b"listening on ", 1)[1].split(b"\n", 1)[0]
        self.url = first.decode().strip()
        self.port = int(self.url.rsplit(":", 1)[1].split("/", 1)[0])

    def _read(self) -> None:
        assert self.process.stderr is not None
        while chunk := self.process.stderr.read1(65536):
            self.stderr += chunk
            if b"listening on " in self.stderr:
                self._listening.set()
        self._listening.set()

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=PATIENCE)

    def initialize(self, *, retrying: bool = False) -> httpx.Response:
        """A client with the key, asking what every session starts with; ``retrying`` a 503 a few times, as
        its Retry-After invites (connections the test just closed may not be gone from the server yet)."""
        for _ in range(50 if retrying else 1):
            response = httpx.post(self.url, json=INITIALIZE, timeout=PATIENCE, headers={
                "Authorization": f"Bearer {KEY}", "Accept": "application/json, text/event-stream"})
            if response.status_code != 503:
                break
            time.sleep(0.1)
        return response

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def served(agentkit: Any) -> Iterator[Any]:
    started: list[Served] = []

    def start(*args: str, **options: Any) -> Served:
        started.append(Served(agentkit, *args, **options))
        return started[-1]

    yield start
    for server in started:
        server.stop()


def answer_of(connection: socket.socket) -> bytes:
    """What the server sends before it closes the connection (``b""``: it closed without a word)."""
    received = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := connection.recv(65536):
            received += chunk
    return received


def test_a_flood_of_half_sent_requests_with_few_file_descriptors_starves_no_one_and_logs_little(served):
    # 128 open files; 300 connections that never finish their headers, as fast as the client can open them
    server = served(open_files=128)
    flood = []
    try:
        for _ in range(300):
            connection = server.connect()
            with contextlib.suppress(OSError):  # the server may already have closed an old one to make room
                connection.sendall(HALF_SENT)
            flood.append(connection)

        during = server.initialize()
        logged = len(server.stderr)
    finally:
        for connection in flood:
            connection.close()
    after = server.initialize()

    assert during.status_code == 200, during.text
    assert after.status_code == 200, after.text
    assert server.process.poll() is None
    assert logged < 10_000, bytes(server.stderr[:2000])
    assert b"Traceback" not in server.stderr


def test_a_request_whose_headers_never_end_is_closed_at_the_header_timeout(served):
    server = served("--header-timeout", "1")
    connection = server.connect()
    connection.sendall(HALF_SENT)

    answer = answer_of(connection)  # returns once the server closes the connection

    assert answer == b"" or answer.startswith(b"HTTP/1.1 408")
    assert server.initialize().status_code == 200


def test_a_keyed_request_whose_body_stops_coming_is_answered_408_at_the_body_timeout(served):
    server = served("--body-timeout", "1")
    connection = server.connect()
    connection.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                       b"Accept: application/json, text/event-stream\r\n"
                       + f"Authorization: Bearer {KEY}\r\nContent-Length: 100\r\n\r\n".encode() + b'{"jsonrpc"')

    answer = answer_of(connection)

    assert answer.startswith(b"HTTP/1.1 408"), answer
    assert b"--body-timeout" in answer


def test_past_the_connection_cap_a_connection_gets_503_while_every_other_is_being_served(served):
    server = served("--max-connections", "2")
    busy = []
    for _ in range(2):  # requests past their headers, still sending their bodies: being served
        connection = server.connect()
        connection.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                           b"Expect: 100-continue\r\n"
                           + f"Authorization: Bearer {KEY}\r\nContent-Length: 100\r\n\r\n".encode())
        # the server asks for the body once its headers passed the gate: from then on it is being served
        assert connection.recv(1024).startswith(b"HTTP/1.1 100")
        busy.append(connection)
    try:
        third = server.connect()
        third.sendall(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        refused = answer_of(third)
    finally:
        for connection in busy:
            connection.close()

    assert refused.startswith(b"HTTP/1.1 503"), refused
    assert b"retry-after" in refused.lower()
    assert server.initialize(retrying=True).status_code == 200  # the slots came back with the connections


@pytest.mark.parametrize("key", ["short-key", "x" * 15])
def test_the_command_refuses_an_api_key_shorter_than_16_characters(agentkit, key):
    result = agentkit("mcp", "serve", "--http", "--port", "0", "--watch", "0", env={"AGENTKIT_MCP_API_KEY": key},
                      timeout=PATIENCE)

    assert result.returncode == 2
    assert "16" in result.stderr and "AGENTKIT_MCP_API_KEY" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert key not in result.stderr


def test_accept_failing_for_want_of_descriptors_is_logged_once_an_interval_and_counted(caplog):
    import asyncio
    import errno
    import logging

    from agentkit_mcp_server._connections import RateLimitFilter, quiet_accept_errors

    now = [0.0]
    logger = logging.getLogger("agentkit_mcp_server")
    rate_limit = RateLimitFilter(interval=10.0, clock=lambda: now[0])
    logger.addFilter(rate_limit)
    loop = asyncio.new_event_loop()
    handle = quiet_accept_errors(None)
    emfile = {"message": "socket.accept() out of system resource", "exception": OSError(errno.EMFILE, "Too many open files")}
    try:
        with caplog.at_level(logging.WARNING, logger="agentkit_mcp_server"):
            for _ in range(2048):  # asyncio reports it once per connection in the backlog, each second
                handle(loop, emfile)
            now[0] = 10.0
            handle(loop, emfile)
    finally:
        logger.removeFilter(rate_limit)
        loop.close()

    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 2
    assert "Too many open files" in lines[0] and "ulimit -n" in lines[0]
    assert "2047 more like it" in lines[1]
    assert not any(record.exc_info for record in caplog.records)
