"""The request on the wire is the one httpx's ``build_request`` makes, built once per header set.

The runtime builds each ``httpx.Request`` itself from headers merged once (see
``runtime/_http_request.py``); these tests hold it to what ``build_request``
would have sent: the same headers in the same order, ``Host`` and
``Content-Length`` included, the same body, URL and timeouts, and whatever a
client adds of its own (headers, cookies, query parameters) still sent.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from _runtime_fakes import FakeProvider, model, request, text_stream

from agentkit.host.runtime import ProviderRuntime


class Capture:
    """A mock transport that keeps every request and answers a text stream, setting ``set_cookie`` if given."""

    def __init__(self, set_cookie: str | None = None) -> None:
        self.requests: list[httpx.Request] = []
        self.set_cookie = set_cookie
        self.transport = httpx.MockTransport(self)

    def __call__(self, sent: httpx.Request) -> httpx.Response:
        self.requests.append(sent)
        headers = {"content-type": "text/event-stream"}
        if self.set_cookie:
            headers["set-cookie"] = self.set_cookie
        return httpx.Response(200, headers=headers, content=text_stream("x"))


def _as_httpx_builds(client: httpx.AsyncClient, sent: httpx.Request) -> httpx.Request:
    """The request ``build_request`` makes from the headers the runtime asked for: all but the automatic
    ones, a leading ``Host`` and ``Content-Length``."""
    raw = sent.headers.raw
    automatic_host = raw[0][0].lower() == b"host"
    asked = [(name, value) for name, value in raw[automatic_host:] if name.lower() != b"content-length"]
    return client.build_request(sent.method, sent.url, headers=asked, content=sent.content)


async def _complete(runtime: ProviderRuntime, times: int, **fields: Any) -> None:
    async with runtime.session():
        for n in range(times):
            await runtime.complete(FakeProvider(), request(f"prompt {n}", **fields))


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"model": model(headers={"x-model-only": "m", "User-Agent": "row-agent"})},
        {"options": {"headers": {"X-Fake-Version": "request", "user-agent": None, "accept": "*/*"}}},
        # Headers httpx otherwise writes itself: the runtime leaves the request to build_request.
        {"options": {"headers": {"Host": "proxy.example"}}},
    ],
    ids=["defaults", "model-headers", "request-headers", "own-host"],
)
def test_every_request_is_the_one_httpx_build_request_makes(fields: dict[str, Any]) -> None:
    capture = Capture()
    runtime = ProviderRuntime(capture.transport, env={"FAKE_API_KEY": "k"})
    asyncio.run(_complete(runtime, 3, **fields))
    reference = httpx.AsyncClient()  # the runtime's own client has httpx's default headers
    assert len(capture.requests) == 3
    for sent in capture.requests:
        expected = _as_httpx_builds(reference, sent)
        assert sent.headers.raw == expected.headers.raw
        assert (sent.method, sent.url, sent.content) == (expected.method, expected.url, expected.content)
        assert sent.headers["content-length"] == str(len(sent.content))
        own_host = "Host" in fields.get("options", {}).get("headers", {})
        hosts = [(index, value) for index, (name, value) in enumerate(sent.headers.raw) if name.lower() == b"host"]
        assert hosts == ([(hosts[0][0], b"proxy.example")] if own_host else [(0, b"fake.example")])  # httpx's first
    assert [r.content for r in capture.requests] != [capture.requests[0].content] * 3  # three bodies, three lengths


def test_the_request_timeouts_are_the_clients() -> None:
    capture = Capture()
    timeout = httpx.Timeout(7.0, connect=2.0, read=5.0)
    runtime = ProviderRuntime(capture.transport, env={"FAKE_API_KEY": "k"}, timeout=timeout)
    asyncio.run(_complete(runtime, 2))
    assert [sent.extensions["timeout"] for sent in capture.requests] == [timeout.as_dict()] * 2


def test_a_shared_clients_headers_cookies_and_query_parameters_are_sent_as_they_are_now() -> None:
    capture = Capture()
    client = httpx.AsyncClient(
        transport=capture.transport, headers={"X-Team": "one"}, cookies={"session": "abc"}, params={"v": "2"}
    )
    runtime = ProviderRuntime(client=client, env={"FAKE_API_KEY": "k"})

    async def two_requests() -> None:
        await runtime.complete(FakeProvider(), request("first"))
        client.headers["X-Team"] = "two"  # changed between requests: the next one carries the new value
        client.cookies.clear()
        client.params = httpx.QueryParams()
        await runtime.complete(FakeProvider(), request("second"))

    asyncio.run(two_requests())
    first, second = capture.requests
    assert (first.headers["x-team"], first.headers["cookie"], first.url.params["v"]) == ("one", "session=abc", "2")
    assert (second.headers["x-team"], "cookie" in second.headers, "v" in second.url.params) == ("two", False, False)


def test_a_cookie_a_response_sets_goes_with_the_next_request_of_the_session() -> None:
    capture = Capture(set_cookie="affinity=node-7; Path=/")
    runtime = ProviderRuntime(capture.transport, env={"FAKE_API_KEY": "k"})
    asyncio.run(_complete(runtime, 2, model=model(base_url="https://fake.example/api/")))
    first, second = capture.requests
    assert "cookie" not in first.headers
    assert second.headers["cookie"] == "affinity=node-7"


def test_a_user_and_password_in_the_base_url_sign_every_request_as_httpx_does() -> None:
    capture = Capture()
    runtime = ProviderRuntime(capture.transport, env={"FAKE_API_KEY": "k"})
    asyncio.run(_complete(runtime, 2, model=model(base_url="https://me:s3cret@fake.example/api/")))
    basic = httpx.BasicAuth("me", "s3cret").auth_flow(httpx.Request("GET", "https://fake.example/"))
    expected = next(basic).headers["authorization"]
    assert [sent.headers["authorization"] for sent in capture.requests] == [expected] * 2


def test_a_shared_clients_own_auth_signs_every_request() -> None:
    capture = Capture()
    client = httpx.AsyncClient(transport=capture.transport, auth=("team", "pw"))
    runtime = ProviderRuntime(client=client, env={"FAKE_API_KEY": "k"})
    asyncio.run(_complete(runtime, 2))
    expected = next(httpx.BasicAuth("team", "pw").auth_flow(httpx.Request("GET", "https://x/"))).headers["authorization"]
    assert [sent.headers["authorization"] for sent in capture.requests] == [expected] * 2


def test_each_request_carries_the_headers_asked_for_it_when_they_change_between_requests() -> None:
    capture = Capture()
    runtime = ProviderRuntime(capture.transport, env={"FAKE_API_KEY": "k"})

    async def three_requests() -> None:
        async with runtime.session():
            for value in ("one", "two", "one"):
                await runtime.complete(FakeProvider(), request("hi", options={"headers": {"X-Team": value}}))

    asyncio.run(three_requests())
    assert [sent.headers["x-team"] for sent in capture.requests] == ["one", "two", "one"]


def test_a_header_value_that_is_not_text_fails_every_request_that_carries_it() -> None:
    capture = Capture()
    runtime = ProviderRuntime(capture.transport, env={"FAKE_API_KEY": "k"})

    async def two_requests() -> list[Any]:
        return [await runtime.complete(FakeProvider(), request("hi", options={"headers": {"X-Count": value}}))
                for value in (3, [3])]

    for message in asyncio.run(two_requests()):
        assert message.stop_reason.value == "error"
        assert "X-Count" in (message.error_message or "") and "must be a str" in (message.error_message or "")
    assert capture.requests == []
