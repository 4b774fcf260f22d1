"""The dry run builds exactly what would be sent, with credentials redacted."""

from __future__ import annotations

import asyncio
import math
from types import MappingProxyType

import httpx
import pytest
from _runtime_fakes import FakeProvider, request, text_stream

from agentkit.host.runtime import PreparedRequest, ProviderRuntime
from agentkit.host.runtime.headers import redact_secret
from agentkit.plugin_api import WireRequest
from agentkit.plugin_api.codec import dumps
from agentkit.plugin_api.errors import ProviderError

KEY = "sk-fake-0123456789abcdef-TAIL"


def test_prepare_matches_the_request_stream_sends() -> None:
    seen: list[httpx.Request] = []

    def handler(req: httpx.Request) -> httpx.Response:
        seen.append(req)
        return httpx.Response(200, content=text_stream("x"))

    runtime = ProviderRuntime(httpx.MockTransport(handler), env={"FAKE_API_KEY": KEY})
    req = request("what would you send?", options={"headers": {"x-extra": "1"}})
    prepared = asyncio.run(runtime.prepare(FakeProvider(), req))
    asyncio.run(runtime.complete(FakeProvider(), req))
    sent = seen[0]
    assert isinstance(prepared, PreparedRequest)
    assert prepared.method == sent.method
    assert prepared.url == str(sent.url)
    assert prepared.body_bytes == sent.content
    assert prepared.framing == "sse"
    sent_headers = {k.lower(): v for k, v in prepared.headers_redacted.items()}
    for name in sent_headers:
        if name == "x-api-key":
            assert sent_headers[name] == redact_secret(KEY) == "sk-f***TAIL"
            assert sent.headers[name] == KEY
        else:
            assert sent.headers[name] == sent_headers[name]
    assert prepared.missing_credential is None


def test_a_dry_run_without_a_credential_says_what_to_set() -> None:
    runtime = ProviderRuntime(env={})
    prepared = asyncio.run(runtime.prepare(FakeProvider(), request()))
    assert "FAKE_API_KEY" in (prepared.missing_credential or "")
    assert "x-api-key" not in {k.lower() for k in prepared.headers_redacted}


def test_bearer_values_are_redacted_keeping_the_scheme() -> None:
    runtime = ProviderRuntime(env={"FAKE_AUTH_TOKEN": "tok-0123456789abcdef"})
    prepared = asyncio.run(runtime.prepare(FakeProvider(), request()))
    assert prepared.headers_redacted["Authorization"] == "Bearer tok-***cdef"


class _ValueBody(FakeProvider):
    """Hands the host a JSON value to serialize, not bytes."""

    def __init__(self, body: object) -> None:
        super().__init__()
        self.body = body

    def encode(self, request):
        return WireRequest("/v1/generate", self.body)


def test_the_host_serializes_a_body_with_the_codec_kit_so_bytes_come_out_one_way() -> None:
    """A body the host serializes and one a codec serialized with ``codec.dumps`` are the same bytes."""
    body = {"model": "m", "prompt": "café ✓", "schema": MappingProxyType({"type": "object"}), "stops": ("a",)}
    prepared = asyncio.run(ProviderRuntime(env={}).prepare(_ValueBody(body), request()))
    assert prepared.body_bytes == dumps(body) == '{"model":"m","prompt":"café ✓","schema":{"type":"object"},"stops":["a"]}'.encode()


def test_a_body_that_is_not_json_is_refused_naming_the_provider() -> None:
    with pytest.raises(ProviderError, match="'fake' provider produced a body that is not JSON"):
        asyncio.run(ProviderRuntime(env={}).prepare(_ValueBody({"temperature": math.nan}), request()))
