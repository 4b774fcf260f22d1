"""Credential resolution: explicit, then the app's store, then the environment, in order.

The OAuth refresh is double-checked inside a per-vendor lock; these tests
run many concurrent streams against one expiring token and count refreshes.
"""

from __future__ import annotations

import asyncio
import logging

import httpx
from _runtime_fakes import FakeProvider, model, request, text_stream

from agentkit.host.runtime import CredentialStore, ProviderRuntime
from agentkit.host.runtime.credentials import CredentialResolver
from agentkit.plugin_api import Credential, StopReason

NOW = 1_800_000_000.0


class Recorder:
    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    async def __call__(self, req: httpx.Request) -> httpx.Response:
        self.requests.append(req)
        await asyncio.sleep(0)
        return httpx.Response(200, content=text_stream("ok"))


class Store:
    """An app-owned store whose refresh is slow enough for turns to pile up."""

    def __init__(self, credential: Credential | None) -> None:
        self.credentials: dict[str, Credential | None] = {"fakevendor": credential}
        self.refreshes = 0
        self.gets = 0

    async def get(self, vendor: str) -> Credential | None:
        self.gets += 1
        return self.credentials.get(vendor)

    async def refresh(self, vendor: str, credential: Credential) -> Credential:
        self.refreshes += 1
        await asyncio.sleep(0.01)
        fresh = Credential("oauth", f"fresh-token-{self.refreshes}", expires_at=NOW + 3600)
        self.credentials[vendor] = fresh
        return fresh


def stream_all(runtime: ProviderRuntime, n: int = 1, **kwargs):
    async def one():
        return [e async for e in runtime.stream(FakeProvider(), request(), **kwargs)]

    async def main():
        return await asyncio.gather(*(one() for _ in range(n)))

    return asyncio.run(main())


def sent_auth(recorder: Recorder) -> list[str]:
    return [
        r.headers.get("authorization") or f"key {r.headers.get('x-api-key')}"
        for r in recorder.requests
    ]


def test_the_provider_order_decides_among_environment_variables() -> None:
    recorder = Recorder()
    env = {"FAKE_AUTH_TOKEN": "token-aaaa", "FAKE_API_KEY": "key-bbbb"}
    stream_all(ProviderRuntime(httpx.MockTransport(recorder), env=env))
    assert sent_auth(recorder) == ["Bearer token-aaaa"]


def test_an_empty_variable_falls_through_to_the_next() -> None:
    recorder = Recorder()
    env = {"FAKE_AUTH_TOKEN": "", "FAKE_API_KEY": "key-bbbb"}
    stream_all(ProviderRuntime(httpx.MockTransport(recorder), env=env))
    assert sent_auth(recorder) == ["key key-bbbb"]


def test_an_explicit_credential_wins_over_store_and_environment() -> None:
    recorder = Recorder()
    store = Store(Credential("bearer", "from-store"))
    runtime = ProviderRuntime(
        httpx.MockTransport(recorder), env={"FAKE_API_KEY": "env"}, credential_store=store
    )
    stream_all(runtime, credential=Credential("api_key", "explicit-key"))
    assert sent_auth(recorder) == ["key explicit-key"]


def test_the_store_wins_over_the_environment_and_none_falls_back() -> None:
    recorder = Recorder()
    runtime = ProviderRuntime(
        httpx.MockTransport(recorder),
        env={"FAKE_API_KEY": "env-key"},
        credential_store=Store(Credential("bearer", "store-token")),
    )
    stream_all(runtime)
    runtime = ProviderRuntime(
        httpx.MockTransport(recorder), env={"FAKE_API_KEY": "env-key"}, credential_store=Store(None)
    )
    stream_all(runtime)
    assert sent_auth(recorder) == ["Bearer store-token", "key env-key"]


def test_concurrent_turns_on_an_expired_token_refresh_exactly_once() -> None:
    recorder = Recorder()
    store = Store(Credential("oauth", "stale-token", expires_at=NOW - 10))
    runtime = ProviderRuntime(
        httpx.MockTransport(recorder), env={}, credential_store=store, clock=lambda: NOW
    )
    results = stream_all(runtime, n=50)
    assert store.refreshes == 1
    assert all(events[-1].message.stop_reason is StopReason.STOP for events in results)
    assert set(sent_auth(recorder)) == {"Bearer fresh-token-1"}


def test_the_validity_floor_refreshes_before_expiry() -> None:
    store = Store(Credential("oauth", "nearly-expired", expires_at=NOW + 30))
    recorder = Recorder()
    runtime = ProviderRuntime(
        httpx.MockTransport(recorder),
        env={},
        credential_store=store,
        clock=lambda: NOW,
        validity_floor=60,
    )
    stream_all(runtime)
    assert store.refreshes == 1
    store = Store(Credential("oauth", "still-good", expires_at=NOW + 120))
    runtime = ProviderRuntime(
        httpx.MockTransport(recorder), env={}, credential_store=store, clock=lambda: NOW
    )
    stream_all(runtime)
    assert store.refreshes == 0


def test_no_expiry_means_never_expires() -> None:
    store = Store(Credential("api_key", "plain-key", expires_at=None))
    runtime = ProviderRuntime(
        httpx.MockTransport(Recorder()), env={}, credential_store=store, clock=lambda: NOW
    )
    stream_all(runtime, n=5)
    assert store.refreshes == 0


def test_different_vendors_do_not_wait_for_each_other() -> None:
    class GatedStore(Store):
        def __init__(self) -> None:
            super().__init__(None)
            self.credentials = {
                "slow": Credential("oauth", "slow-old", expires_at=NOW - 1),
                "fast": Credential("oauth", "fast-old", expires_at=NOW - 1),
            }
            self.gate = asyncio.Event()
            self.refreshing = asyncio.Event()

        async def refresh(self, vendor: str, credential: Credential) -> Credential:
            if vendor == "slow":
                self.refreshing.set()
                await self.gate.wait()  # released only once "fast" got through
            return Credential("oauth", f"{vendor}-new", expires_at=NOW + 3600)

    store = GatedStore()
    runtime = ProviderRuntime(
        httpx.MockTransport(Recorder()), env={}, credential_store=store, clock=lambda: NOW
    )

    async def main():
        slow = asyncio.ensure_future(
            runtime.complete(FakeProvider(), request(model=model(vendor="slow")))
        )
        await store.refreshing.wait()  # "slow" holds its refresh from here on
        fast = await runtime.complete(FakeProvider(), request(model=model(vendor="fast")))
        store.gate.set()
        return fast, await slow

    fast, slow = asyncio.run(asyncio.wait_for(main(), 10))
    assert fast.stop_reason is StopReason.STOP and slow.stop_reason is StopReason.STOP


def test_a_failing_refresh_is_an_error_message() -> None:
    class Broken(Store):
        async def refresh(self, vendor: str, credential: Credential) -> Credential:
            raise RuntimeError("the identity provider said no")

    runtime = ProviderRuntime(
        httpx.MockTransport(Recorder()),
        env={},
        credential_store=Broken(Credential("oauth", "old", expires_at=NOW - 1)),
        clock=lambda: NOW,
    )
    (events,) = stream_all(runtime)
    assert events[-1].message.stop_reason is StopReason.ERROR
    assert "said no" in events[-1].message.error_message
    assert "refreshing the credential for 'fakevendor'" in events[-1].message.error_message


def test_store_is_a_protocol_apps_implement() -> None:
    assert isinstance(Store(None), CredentialStore)



def _resolve_each(values: list[str]) -> list[Credential | None]:
    """One resolution per value by one resolver, its environment's FAKE_API_KEY set to the value first."""
    env: dict[str, str] = {}
    resolver = CredentialResolver(env=env)  # read at each request, as os.environ is

    async def main():
        found = []
        for value in values:
            env["FAKE_API_KEY"] = value
            found.append(await resolver.resolve(FakeProvider(), "fakevendor"))
        return found

    return asyncio.run(main())


def test_the_environment_is_read_again_for_every_request() -> None:
    found = _resolve_each(["key-one", "key-one", "key-two", "key-one"])
    assert [credential.value for credential in found] == ["key-one", "key-one", "key-two", "key-one"]


def test_a_variable_that_needed_trimming_is_reported_on_every_request(caplog) -> None:
    caplog.set_level(logging.WARNING)
    found = _resolve_each(["key-one\r\n", "key-one\r\n"])
    assert [credential.value for credential in found] == ["key-one", "key-one"]
    warnings = [r.getMessage() for r in caplog.records if "FAKE_API_KEY" in r.getMessage()]
    assert len(warnings) == 2, warnings
