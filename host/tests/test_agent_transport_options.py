"""What an embedder sets on AgentConfig reaches the provider runtime."""

from __future__ import annotations

import dataclasses

import httpx
from agentkit_provider_faux import Script, Turn, text
from host_helpers import make_host

from agentkit.host import Agent, AgentConfig, Connection
from agentkit.host.runtime import RetryPolicy
from agentkit.plugin_api import Credential


class FlakyThenScript(httpx.AsyncBaseTransport):
    """Answers 503 (asking for a 1 ms wait) ``failures`` times, then plays the script."""

    def __init__(self, failures: int, script: Script) -> None:
        self.failures = failures
        self.script = script
        self.seen: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        if self.failures:
            self.failures -= 1
            return httpx.Response(503, headers={"retry-after-ms": "1"}, json={"error": {"message": "busy"}})
        return await self.script.handle_async_request(request)


def run(transport: httpx.AsyncBaseTransport, **config) -> str:
    connection = dataclasses.replace(config.pop("connection", Connection()), transport=transport)
    agent = Agent(AgentConfig(model="faux/scripted", tools=[], connection=connection, **config), host=make_host())
    result = agent.run_sync("hi")
    return result.outcome if result.outcome != "completed" else result.text


def test_retries_are_off_unless_the_embedder_asks():
    transport = FlakyThenScript(1, Script([Turn([text("hello")])]))
    assert run(transport) == "error" and len(transport.seen) == 1


def test_agent_config_retry_reaches_the_runtime():
    transport = FlakyThenScript(2, Script([Turn([text("hello")])]))
    assert run(transport, connection=Connection(retry=RetryPolicy(max_retries=2))) == "hello"
    assert len(transport.seen) == 3


def test_agent_config_credential_store_reaches_the_runtime():
    class Store:
        def __init__(self):
            self.asked = []

        async def get(self, vendor):
            self.asked.append(vendor)
            return Credential("api_key", "from-the-store")

        async def refresh(self, vendor, credential):
            return credential

    store = Store()
    assert run(Script([Turn([text("hello")])]), connection=Connection(credential_store=store)) == "hello"
    assert store.asked == ["faux"]


class CookieThenScript(FlakyThenScript):
    """Answers one 503 that sets a cookie (as a load balancer's affinity would), then plays the script."""

    def __init__(self, script: Script, header: str) -> None:
        super().__init__(1, script)
        self.header = header

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.failures:
            self.seen.append(request)
            self.failures -= 1
            headers = {"retry-after-ms": "1", self.header: "affinity=node-7; Path=/"}
            return httpx.Response(503, headers=headers, json={"error": {"message": "busy"}})
        return await super().handle_async_request(request)


def test_a_cookie_the_server_sets_is_sent_back_on_the_next_attempt():
    transport = CookieThenScript(Script([Turn([text("hello")])]), "set-cookie")
    assert run(transport, connection=Connection(retry=RetryPolicy(max_retries=1))) == "hello"
    assert "cookie" not in transport.seen[0].headers
    assert transport.seen[1].headers["cookie"] == "affinity=node-7"


def test_a_response_without_cookies_adds_none():
    transport = FlakyThenScript(1, Script([Turn([text("hello")])]))
    assert run(transport, connection=Connection(retry=RetryPolicy(max_retries=1))) == "hello"
    assert all("cookie" not in request.headers for request in transport.seen)
