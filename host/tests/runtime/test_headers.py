"""Header precedence: attribution < provider/auth < model row < request; None removes."""

from __future__ import annotations

import asyncio
import importlib.metadata

import httpx
from _runtime_fakes import FakeProvider, model, request, text_stream

from agentkit.host.runtime import ProviderRuntime
from agentkit.host.runtime.headers import merge_headers


def sent_headers(env, **request_fields) -> httpx.Headers:
    seen: list[httpx.Request] = []

    def handler(req: httpx.Request) -> httpx.Response:
        seen.append(req)
        return httpx.Response(200, content=text_stream("x"))

    runtime = ProviderRuntime(httpx.MockTransport(handler), env=env)
    asyncio.run(runtime.complete(FakeProvider(), request(**request_fields)))
    return seen[0].headers


def test_each_layer_overrides_the_one_below() -> None:
    row = model(headers={"x-fake-version": "model", "x-model-only": "m", "User-Agent": "row-agent"})
    headers = sent_headers(
        {"FAKE_API_KEY": "k"},
        model=row,
        options={"headers": {"X-Fake-Version": "request", "x-request-only": "r"}},
    )
    assert headers["x-fake-version"] == "request"  # provider < model < request
    assert headers["x-model-only"] == "m"
    assert headers["x-request-only"] == "r"
    assert headers["user-agent"] == "row-agent"  # attribution is the lowest layer
    assert headers["x-api-key"] == "k"


def test_the_model_row_overrides_auth_and_the_request_overrides_the_model() -> None:
    row = model(headers={"x-api-key": "from-row"})
    assert sent_headers({"FAKE_API_KEY": "k"}, model=row)["x-api-key"] == "from-row"
    headers = sent_headers(
        {"FAKE_API_KEY": "k"}, model=row, options={"headers": {"x-api-key": "from-request"}}
    )
    assert headers["x-api-key"] == "from-request"


def test_none_in_the_request_removes_a_default_header() -> None:
    headers = sent_headers(
        {"FAKE_API_KEY": "k"},
        options={"headers": {"x-fake-version": None, "user-agent": None}},
    )
    assert "x-fake-version" not in headers
    assert not headers.get("user-agent", "").startswith("agentkit/")


def test_attribution_can_be_turned_off() -> None:
    headers = sent_headers({"FAKE_API_KEY": "k", "AGENTKIT_TELEMETRY": "0"})
    assert not headers.get("user-agent", "").startswith("agentkit/")
    assert sent_headers({"FAKE_API_KEY": "k"})["user-agent"].startswith("agentkit/")


def test_merge_is_case_insensitive_and_keeps_the_winning_spelling() -> None:
    merged = merge_headers({"X-A": "1", "x-b": "2"}, {"x-a": "3"}, {"X-B": None})
    assert merged == {"x-a": "3"}


def test_attribution_names_the_installed_host_version() -> None:
    headers = sent_headers({"FAKE_API_KEY": "k"})
    assert headers["user-agent"] == f"agentkit/{importlib.metadata.version('agentkit-host')}"
