"""A key planted through every source appears in no output channel, not even in part.

Sources: the environment (with a trailing CR, LF, CRLF or space, as a ``.env``
file with Windows line endings leaves it), the application's credential store,
and a credential store whose refresh fails with the key in its message.
Channels: every event of the stream, the final error message, ``prepare``'s dry
run, and every log record at DEBUG (the runtime's, httpx's and httpcore's),
formatted tracebacks included. The server is a real loopback HTTP server that
echoes the key in its error bodies, in full, escaped, and cut at the
500-character mark where error bodies are shortened.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from _loopback import LoopbackServer, response
from _runtime_fakes import FakeProvider, model, request

from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.host.runtime import CredentialMissing, ProviderRuntime, RetryPolicy
from agentkit.host.runtime.credentials import CredentialResolver
from agentkit.plugin_api import Credential, StopReason, event_to_dict, hookimpl

KEY = "kQ7rT2vX9pL4mN8s_W3yZ6bH1cJ5dF0gA-u"
FRAGMENT = 8


def fragments(secret: str) -> set[str]:
    forms = {secret, json.dumps(secret)[1:-1], repr(secret)[1:-1]}
    return {form[i : i + FRAGMENT] for form in forms for i in range(len(form) - FRAGMENT + 1)}


def assert_no_leak(text: str, secret: str = KEY) -> None:
    found = sorted(part for part in fragments(secret) if part in text)
    assert not found, f"fragments of the key leaked: {found[:3]} in {text[:300]!r}"


async def echo_key(req, writer) -> None:
    """A 401 whose plain-text body quotes the key so that the 500-character cut falls inside it."""
    key = req.headers.get("x-api-key") or req.headers.get("authorization", "")
    body = ("e" * 480 + " key=" + key + " escaped=" + json.dumps(key) + " " + "t" * 300).encode()
    writer.write(response(401, body, "text/plain"))


async def echo_key_json(req, writer) -> None:
    key = req.headers.get("x-api-key") or req.headers.get("authorization", "")
    body = json.dumps({"error": {"type": "auth", "message": f"invalid key {key!r} ({json.dumps(key)})"}})
    writer.write(response(401, body.encode()))


class Store:
    def __init__(self, credential: Credential, refresh_error: Exception | None = None) -> None:
        self.credential = credential
        self.refresh_error = refresh_error

    async def get(self, vendor: str) -> Credential | None:
        return self.credential

    async def refresh(self, vendor: str, credential: Credential) -> Credential:
        if self.refresh_error is not None:
            raise self.refresh_error
        return Credential("api_key", KEY)


SOURCES: dict[str, dict[str, Any]] = {
    "env-cr": {"env": {"FAKE_API_KEY": KEY + "\r"}},
    "env-lf": {"env": {"FAKE_API_KEY": KEY + "\n"}},
    "env-crlf": {"env": {"FAKE_API_KEY": KEY + "\r\n"}},
    "env-space": {"env": {"FAKE_API_KEY": KEY + " "}},
    "store": {"credential_store": Store(Credential("api_key", KEY))},
    "store-crlf": {"credential_store": Store(Credential("api_key", KEY + "\r\n"))},
    "store-space": {"credential_store": Store(Credential("api_key", KEY + " "))},
    "refresh-error": {
        "credential_store": Store(
            Credential("api_key", KEY, expires_at=0.0),
            RuntimeError(f"token {KEY!r} was revoked; body={json.dumps({'token': KEY})} cut={KEY[:20]}"),
        )
    },
}


def run(server_url: str, handler_retries: int, **runtime_kwargs: Any):
    async def no_sleep(delay: float) -> None:
        return None

    runtime = ProviderRuntime(retry=RetryPolicy(max_retries=handler_retries), sleep=no_sleep, **runtime_kwargs)
    req = request(model=model(base_url=server_url))

    async def main():
        events = [e async for e in runtime.stream(FakeProvider(), req)]
        prepared = await runtime.prepare(FakeProvider(), req)
        return events, prepared

    return asyncio.run(main())


def all_log_text(caplog: pytest.LogCaptureFixture) -> str:
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    return "\n".join(formatter.format(record) for record in caplog.records)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("handler", [echo_key, echo_key_json])
@pytest.mark.parametrize("source", list(SOURCES))
def test_a_key_from_any_source_leaks_into_no_channel(source, handler, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    with LoopbackServer(handler) as server:
        events, prepared = run(server.url, 1, **SOURCES[source])
    message = events[-1].message
    assert message.stop_reason is StopReason.ERROR
    assert message.error_message
    assert_no_leak(json.dumps([event_to_dict(e) for e in events]))
    assert_no_leak(repr(events))
    assert_no_leak(message.error_message)
    assert_no_leak(repr(prepared))
    assert_no_leak(all_log_text(caplog))
    if source != "refresh-error":
        assert server.requests, "the request reached the server"
        sent = server.requests[0].headers["x-api-key"]
        assert sent == KEY, "the key went out without its line ending or space"


def test_a_stripped_line_ending_is_reported_without_the_key(caplog) -> None:
    caplog.set_level(logging.WARNING)
    resolver = CredentialResolver(env={"FAKE_API_KEY": KEY + "\r\n"})
    credential = asyncio.run(resolver.resolve(FakeProvider(), "fakevendor"))
    assert credential is not None and credential.value == KEY
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("FAKE_API_KEY" in w and "line" in w for w in warnings), warnings
    assert_no_leak("\n".join(warnings))


@pytest.mark.parametrize("bad", ["\x00", "\x1b", "\x7f", "\t", "\u00e9", "\u2028"])
def test_a_key_with_a_control_or_non_ascii_character_is_refused_without_echoing_it(bad: str) -> None:
    secret = KEY[:10] + bad + KEY[10:]
    resolver = CredentialResolver(env={"FAKE_API_KEY": secret})
    with pytest.raises(CredentialMissing) as caught:
        asyncio.run(resolver.resolve(FakeProvider(), "fakevendor"))
    text = str(caught.value)
    assert "FAKE_API_KEY" in text and "character" in text
    assert_no_leak(text, secret)
    assert_no_leak(text)


def test_a_refused_key_ends_the_stream_with_the_reason(caplog) -> None:
    caplog.set_level(logging.DEBUG)
    with LoopbackServer(echo_key) as server:
        events, prepared = run(server.url, 0, env={"FAKE_API_KEY": KEY[:5] + "\x1b" + KEY[5:]})
        assert not server.requests, "a refused key is never sent"
    assert "FAKE_API_KEY" in events[-1].message.error_message
    assert prepared.missing_credential and "FAKE_API_KEY" in prepared.missing_credential
    assert_no_leak(all_log_text(caplog))
    assert_no_leak(json.dumps([event_to_dict(e) for e in events]))


class RecordingHandler(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.mark.parametrize("name", ["httpx", "httpcore.http11", "httpcore.connection", "agentkit.host.runtime"])
def test_http_library_log_records_are_scrubbed(name: str) -> None:
    # A credential the runtime has resolved is known to the log filter, which
    # scrubs records of the HTTP libraries whatever handler formats them.
    resolver = CredentialResolver(env={"FAKE_API_KEY": KEY})
    asyncio.run(resolver.resolve(FakeProvider(), "fakevendor"))
    handler = RecordingHandler()
    logger = logging.getLogger(name)
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        logger.debug("send_request_headers.failed exception=LocalProtocolError(%r)", f"Illegal header value b'{KEY} '")
        try:
            raise ValueError(f"boom {KEY}")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    assert len(handler.lines) == 2
    assert_no_leak("\n".join(handler.lines))




class FakeProviderPlugin:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url

    @hookimpl
    def agentkit_register_providers(self, register: Any) -> None:
        provider = FakeProvider()
        provider.catalog = lambda: [model(base_url=self.base_url)]
        register(provider)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("ending", ["\r\n", "\r", "\n", " "])
def test_an_agent_run_shows_the_key_nowhere(ending: str, monkeypatch, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.delenv("FAKE_AUTH_TOKEN", raising=False)
    monkeypatch.setenv("FAKE_API_KEY", KEY + ending)
    with LoopbackServer(echo_key) as server:
        host = PluginHost()
        host.register(FakeProviderPlugin(server.url), name="fake")
        agent = Agent(AgentConfig(model="fakevendor/fake-1",
                                  connection=Connection(retry=RetryPolicy(max_retries=1, initial_backoff=0))), host=host)
        seen: list[Any] = []
        agent.subscribe(seen.append)

        result = agent.run_sync("hi")
    assert result.outcome == "error"
    assert_no_leak(result.error or "")
    assert_no_leak("\n".join(result.problems))
    assert_no_leak(json.dumps([event_to_dict(e) for e in seen]))
    assert_no_leak(json.dumps([m.to_dict() for m in agent.history]))
    assert_no_leak(all_log_text(caplog))
