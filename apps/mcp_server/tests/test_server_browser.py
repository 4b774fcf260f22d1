"""``agentkit mcp serve --http --allow-origin ORIGIN`` serves a browser client: the CORS preflight is answered
for the configured origins (before the key, which a preflight never carries) and their responses carry the
CORS headers; loopback origins without a port are treated as the SDK treats them; and a request whose id is
not a string or an integer is answered ``-32600``, never dropped. The server is the real command, in its own
process, spoken to in raw HTTP."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

KEY = "k" * 32
PATIENCE = 60.0
APP = "https://app.example.com"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
AUTH = {"Authorization": f"Bearer {KEY}", **ACCEPT}


class Served:
    """The command serving HTTP on a free loopback port."""

    def __init__(self, agentkit: Any, *args: str) -> None:
        self.process = subprocess.Popen(
            [agentkit.path(), "mcp", "serve", "--http", "--port", "0", "--watch", "0", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env=agentkit.environment({"AGENTKIT_MCP_API_KEY": KEY}))
        self.stderr = bytearray()
        listening = threading.Event()

        def read() -> None:
            assert self.process.stderr is not None
            while chunk := self.process.stderr.read1(65536):
                self.stderr += chunk
                if b"listening on " in self.stderr:
                    listening.set()
            listening.set()

        threading.Thread(target=read, daemon=True).start()
        if not listening.wait(PATIENCE) or b"listening on " not in self.stderr:
            self.stop()
            raise AssertionError(f"the server did not start: {bytes(self.stderr)!r}")
        self.url = bytes(self.stderr).split(b"listening on ", 1)[1].split(b"\n", 1)[0].decode().strip()

    def request(self, method: str, headers: dict[str, str], body: Any = None) -> httpx.Response:
        content = body if isinstance(body, bytes) else None
        return httpx.request(method, self.url, headers=headers, content=content,
                             json=None if content is not None else body, timeout=PATIENCE)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def server(agentkit: Any) -> Iterator[Served]:
    served = Served(agentkit, "--allow-origin", APP, "--allow-origin", "http://localhost")
    yield served
    served.stop()
    assert b"Traceback" not in served.stderr


def preflight(origin: str, method: str = "POST",
              headers: str = "authorization, content-type, mcp-session-id, mcp-protocol-version") -> dict[str, str]:
    return {"Origin": origin, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": headers}


def words(value: str | None) -> set[str]:
    return {word.strip().lower() for word in (value or "").split(",") if word.strip()}


@pytest.mark.parametrize("origin", [APP, "http://localhost"])
def test_a_preflight_from_an_allowed_origin_is_answered_without_the_key(server, origin):
    response = server.request("OPTIONS", preflight(origin))

    assert response.status_code in (200, 204)
    assert response.headers["access-control-allow-origin"] == origin
    assert {"post", "get", "delete"} <= words(response.headers.get("access-control-allow-methods"))
    assert {"authorization", "content-type", "mcp-session-id", "mcp-protocol-version"} <= words(
        response.headers.get("access-control-allow-headers"))
    assert "origin" in words(response.headers.get("vary"))


@pytest.mark.parametrize("origin", ["https://evil.example", "https://app.example.com.evil.example",
                                    "https://app.example.com:8443", "http://127.0.0.1:5173"])
def test_a_preflight_from_any_other_origin_gets_no_cors_headers(server, origin):
    response = server.request("OPTIONS", preflight(origin))

    assert response.status_code == 403
    assert "access-control-allow-origin" not in response.headers
    assert "--allow-origin" in response.json()["error"]


def test_an_allowed_origin_reads_the_answer_and_the_session_id(server):
    response = server.request("POST", {**AUTH, "Origin": APP}, INITIALIZE)

    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == APP
    assert "mcp-session-id" in words(response.headers.get("access-control-expose-headers"))
    assert response.headers.get("mcp-session-id")


def test_an_allowed_origin_reads_a_refusal_too(server):
    response = server.request("POST", {**ACCEPT, "Origin": APP, "Authorization": "Bearer wrong"}, INITIALIZE)

    assert response.status_code == 401
    assert response.headers["access-control-allow-origin"] == APP


def test_a_request_without_an_origin_gets_no_cors_headers(server):
    response = server.request("POST", AUTH, INITIALIZE)

    assert response.status_code == 200
    assert "access-control-allow-origin" not in response.headers


@pytest.mark.parametrize(("origin", "status"), [
    ("http://localhost", 200),        # allowed as it is written, without a port
    ("http://localhost:3000", 200),   # loopback with a port: allowed by default, as the SDK's localhost:* is
    ("http://127.0.0.1:8080", 200),
    ("http://127.0.0.1", 403),        # loopback without a port matches no localhost:* entry: list it to allow it
    ("https://[::1]", 403),
    ("http://localhost:", 403),       # an empty port is no port
])
def test_loopback_origins_without_a_port_pass_only_when_allowed_as_written(server, origin, status):
    response = server.request("POST", {**AUTH, "Origin": origin}, INITIALIZE)

    assert response.status_code == status
    if status == 403:
        assert "--allow-origin" in response.json()["error"]


@pytest.mark.parametrize("bad", [b"null", b"{}", b"[1]", b"true", b"1.5"])
@pytest.mark.parametrize("method", ["tools/list", "ping"])
def test_a_request_whose_id_is_not_a_string_or_an_integer_is_an_invalid_request(server, bad, method):
    session = server.request("POST", AUTH, INITIALIZE).headers["mcp-session-id"]
    body = b'{"jsonrpc": "2.0", "id": ' + bad + b', "method": "' + method.encode() + b'"}'

    response = server.request("POST", {**AUTH, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}, body)

    assert response.status_code == 400
    assert response.json()["id"] is None and response.json()["error"]["code"] == -32600
