"""The HTTP gate: the API key on every request before anything else (401), the Origin (403), and the
body bounded before it is parsed (413, and 400 with -32600 for deep nesting). Also what the command
refuses at start: no key, and --no-auth off loopback."""

from __future__ import annotations

import asyncio
import json
import secrets

import httpx
import pytest
from agentkit_mcp_server import MCPToolServer, ToolServer, http_app
from agentkit_mcp_server._http import Gate
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.host import PluginHost

KEY = secrets.token_hex(16)
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class Downstream:
    """Stands in for the SDK's app: records whether any request got past the gate."""

    def __init__(self) -> None:
        self.reached = 0

    async def __call__(self, scope, receive, send):
        self.reached += 1
        message = await receive()
        body = json.dumps({"echo": len(message.get("body", b""))}).encode()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})


def gated(max_body_bytes: int = 4096, **options):
    downstream = Downstream()
    return Gate(downstream, api_key=KEY, max_body_bytes=max_body_bytes, **options), downstream


def post(app, body: bytes | dict, headers: dict[str, str]) -> httpx.Response:
    async def main() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:9") as client:
            content = body if isinstance(body, bytes) else json.dumps(body).encode()
            return await client.post("/mcp", content=content, headers={**HEADERS, **headers})
    return asyncio.run(main())


@pytest.mark.parametrize("headers", [
    {},
    {"Authorization": "Bearer wrong"},
    {"Authorization": f"Basic {KEY}"},
    {"Authorization": f"Bearer {KEY}x"},
    {"X-API-Key": KEY[:-1]},
])
def test_a_request_without_the_key_is_refused_with_401_before_anything_else(headers):
    app, downstream = gated()

    # an over-large, malformed body from a hostile origin: the key is still what is checked first
    response = post(app, b"[" * 10_000, {**headers, "Origin": "http://evil.example"})

    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert downstream.reached == 0


@pytest.mark.parametrize("headers", [{"Authorization": f"Bearer {KEY}"}, {"X-API-Key": KEY}])
def test_the_key_is_accepted_as_a_bearer_token_or_an_api_key_header(headers):
    app, downstream = gated()

    assert post(app, INITIALIZE, headers).status_code == 200
    assert downstream.reached == 1


@pytest.mark.parametrize("origin", [
    "http://evil.example",
    "http://localhost.evil.example",
    "http://localhost:1234.evil.example",
    "http://127.0.0.1@evil.example",
    "null",
    "file://",
])
def test_a_foreign_origin_is_refused_with_403(origin):
    app, downstream = gated()

    response = post(app, INITIALIZE, {"Authorization": f"Bearer {KEY}", "Origin": origin})

    assert response.status_code == 403
    assert downstream.reached == 0


@pytest.mark.parametrize("origin", ["http://127.0.0.1:5173", "http://localhost:3000", "http://[::1]:8080",
                                    "https://tools.example.com"])
def test_loopback_origins_and_the_allowed_ones_pass(origin):
    app, _ = gated(allowed_origins=["https://tools.example.com"])

    assert post(app, INITIALIZE, {"Authorization": f"Bearer {KEY}", "Origin": origin}).status_code == 200


def test_an_allowed_origin_with_a_port_wildcard_allows_any_port_of_that_host_only():
    app, _ = gated(allowed_origins=["https://tools.example.com:*"])
    auth = {"Authorization": f"Bearer {KEY}"}

    assert post(app, INITIALIZE, {**auth, "Origin": "https://tools.example.com:8443"}).status_code == 200
    assert post(app, INITIALIZE, {**auth, "Origin": "https://tools.example.com.evil:8443"}).status_code == 403
    assert post(app, INITIALIZE, {**auth, "Origin": "http://tools.example.com:8443"}).status_code == 403


def test_a_body_over_the_limit_is_refused_with_413_and_never_reaches_the_server():
    app, downstream = gated(max_body_bytes=1024)

    response = post(app, b" " * 1025, {"Authorization": f"Bearer {KEY}"})

    assert response.status_code == 413
    assert downstream.reached == 0


def test_a_body_nested_too_deep_is_refused_with_400_and_invalid_request():
    app, downstream = gated(max_depth=64)

    response = post(app, b"[" * 65 + b"]" * 65, {"Authorization": f"Bearer {KEY}"})

    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600
    assert downstream.reached == 0


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300), st.dictionaries(st.sampled_from(["Authorization", "X-API-Key", "Origin"]),
                                                st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126),
                                                        max_size=60)))
def test_hostile_requests_without_the_key_never_get_past_the_gate(body, headers):
    # the key is 32 random hex characters: a generated header can only hold it by containing it whole
    headers = {name: value for name, value in headers.items() if KEY not in value}
    app, downstream = gated()

    response = post(app, body, headers)

    assert response.status_code == 401
    assert downstream.reached == 0


def test_the_app_will_not_serve_a_public_address_without_a_key():
    server = MCPToolServer(ToolServer(PluginHost()))

    with pytest.raises(ValueError, match="loopback"):
        http_app(server, api_key=None, host="0.0.0.0")


def test_the_command_refuses_http_without_an_api_key_and_names_the_fix(agentkit):
    result = agentkit("mcp", "serve", "--http", "--port", "0", env={"AGENTKIT_MCP_API_KEY": ""})

    assert result.returncode == 2
    assert "AGENTKIT_MCP_API_KEY" in result.stderr and "--no-auth" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_command_refuses_no_auth_off_loopback(agentkit):
    result = agentkit("mcp", "serve", "--http", "--no-auth", "--host", "0.0.0.0", "--port", "0")

    assert result.returncode == 2
    assert "loopback" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_command_names_a_policy_it_cannot_import(agentkit):
    result = agentkit("mcp", "serve", "--policy", "no_such_policy_module:decide")

    assert result.returncode == 2
    assert "--policy 'no_such_policy_module:decide': cannot import" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_command_will_not_serve_a_shell_tool_named_without_a_policy(agentkit):
    result = agentkit("mcp", "serve", "--tool", "run_command")

    assert result.returncode == 2
    assert "--policy" in result.stderr
    assert "Traceback" not in result.stderr
