"""Credentials never reach events, error messages, exceptions or logs.

A planted secret travels through success and failure paths (an HTTP 401
whose body echoes the key, a connection error that mentions it, retries with
logging on, a dry run); every event's JSON form and every log record is then
searched for it.
"""

from __future__ import annotations

import asyncio
import json
import logging

import httpx
import pytest
from _runtime_fakes import FakeProvider, request, text_stream

from agentkit.host.runtime import ProviderRuntime, RetryPolicy
from agentkit.plugin_api import Credential, StopReason, event_to_dict

SECRET = "sk-planted-SECRET-0123456789abcdefXYZ"


def echo_401(req: httpx.Request) -> httpx.Response:
    key = req.headers.get("x-api-key") or req.headers.get("authorization", "")
    return httpx.Response(
        401,
        json={"error": {"type": "authentication_error", "message": f"invalid x-api-key: {key}"}},
    )


def connect_error(req: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError(f"refused while sending {req.headers.get('x-api-key')}")


def success(req: httpx.Request) -> httpx.Response:
    return httpx.Response(200, content=text_stream("fine"))


def retried_429(req: httpx.Request) -> httpx.Response:
    return httpx.Response(
        429, headers={"retry-after": "0"}, json={"error": {"message": f"slow down {SECRET}"}}
    )


@pytest.mark.parametrize("handler", [success, echo_401, connect_error, retried_429])
@pytest.mark.parametrize("via", ["env", "explicit"])
def test_a_planted_secret_appears_nowhere(handler, via, caplog) -> None:
    caplog.set_level(logging.DEBUG)

    async def no_sleep(delay: float) -> None:
        return None

    env = {"FAKE_API_KEY": SECRET} if via == "env" else {}
    credential = Credential("api_key", SECRET) if via == "explicit" else None
    runtime = ProviderRuntime(
        httpx.MockTransport(handler), env=env, retry=RetryPolicy(max_retries=2), sleep=no_sleep
    )

    async def main():
        events = [e async for e in runtime.stream(FakeProvider(), request(), credential=credential)]
        prepared = await runtime.prepare(FakeProvider(), request(), credential=credential)
        return events, prepared

    events, prepared = asyncio.run(main())
    text = json.dumps([event_to_dict(e) for e in events])
    if handler is not success:
        assert events[-1].message.stop_reason is StopReason.ERROR
        assert events[-1].message.error_message
    assert SECRET not in text
    assert SECRET not in repr(events)
    assert SECRET not in repr(prepared)
    for record in caplog.records:
        assert SECRET not in record.getMessage()
    assert "sk-p***fXYZ" in json.dumps(prepared.headers_redacted)


def test_a_credential_repr_hides_the_value() -> None:
    assert SECRET not in repr(Credential("api_key", SECRET))
