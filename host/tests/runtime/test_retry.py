"""Transport retries: which failures are sent again, after how long, and when not.

The runtime's ``sleep`` is injected, so nothing here waits: the tests read
the delays the runtime asked for.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from email.utils import format_datetime

import httpx
import pytest
from _runtime_fakes import FakeProvider, HeldBody, request, sse, text_stream

from agentkit.host.runtime import ProviderRuntime, RetryAbandoned, RetryPolicy
from agentkit.host.runtime.retry import backoff_delay, server_delay, should_retry
from agentkit.plugin_api import MessageEnd, StopReason

ENV = {"FAKE_API_KEY": "sk-fake-0123456789abcdef"}
NOW = 1_800_000_000.0


class Script:
    """A MockTransport handler answering from a list, recording each attempt."""

    def __init__(self, *responses) -> None:
        self.responses = list(responses)
        self.attempts = 0

    def __call__(self, req: httpx.Request) -> httpx.Response:
        self.attempts += 1
        answer = self.responses.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def run(script: Script, policy: RetryPolicy, *, abort=None, sleep=None):
    slept: list[float] = []

    async def fake_sleep(delay: float) -> None:
        slept.append(delay)

    runtime = ProviderRuntime(
        httpx.MockTransport(script),
        env=ENV,
        retry=policy,
        sleep=sleep or fake_sleep,
        clock=lambda: NOW,
        rand=lambda: 0.5,
    )

    async def main():
        return [e async for e in runtime.stream(FakeProvider(), request(), abort=abort)]

    events = asyncio.run(main())
    assert sum(isinstance(e, MessageEnd) for e in events) == 1
    assert isinstance(events[-1], MessageEnd)
    return events[-1].message, slept


def ok() -> httpx.Response:
    return httpx.Response(200, content=text_stream("done"))


def fail(status: int, **headers: str) -> httpx.Response:
    return httpx.Response(status, headers=headers, json={"error": {"message": f"status {status}"}})


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 529])
def test_retryable_statuses_are_retried(status: int) -> None:
    script = Script(fail(status), ok())
    message, slept = run(script, RetryPolicy(max_retries=2))
    assert message.stop_reason is StopReason.STOP
    assert script.attempts == 2
    assert slept == [0.5 * (1 - 0.25 * 0.5)]


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_other_statuses_are_not(status: int) -> None:
    script = Script(fail(status), ok())
    message, slept = run(script, RetryPolicy(max_retries=2))
    assert message.stop_reason is StopReason.ERROR
    assert script.attempts == 1 and slept == []


def test_retries_are_off_by_default() -> None:
    script = Script(fail(503), ok())
    message, _ = run(script, RetryPolicy())
    assert message.stop_reason is StopReason.ERROR
    assert script.attempts == 1


def test_x_should_retry_overrides_the_status_both_ways() -> None:
    script = Script(fail(400, **{"x-should-retry": "true"}), ok())
    assert run(script, RetryPolicy(max_retries=1))[0].stop_reason is StopReason.STOP
    script = Script(fail(503, **{"x-should-retry": "false"}), ok())
    assert run(script, RetryPolicy(max_retries=1))[0].stop_reason is StopReason.ERROR
    assert script.attempts == 1


def test_connection_errors_are_retried() -> None:
    script = Script(httpx.ConnectError("refused"), ok())
    message, _ = run(script, RetryPolicy(max_retries=1))
    assert message.stop_reason is StopReason.STOP


def test_the_last_failure_is_reported_when_retries_run_out() -> None:
    script = Script(fail(503), fail(503), fail(502))
    message, slept = run(script, RetryPolicy(max_retries=2))
    assert message.stop_reason is StopReason.ERROR
    assert "502" in message.error_message
    assert script.attempts == 3
    assert len(slept) == 2 and slept[1] == 2 * slept[0]


def test_the_server_delay_wins_ms_first() -> None:
    script = Script(fail(429, **{"retry-after-ms": "1500", "retry-after": "9"}), ok())
    assert run(script, RetryPolicy(max_retries=1))[1] == [1.5]
    script = Script(fail(429, **{"retry-after": "3"}), ok())
    assert run(script, RetryPolicy(max_retries=1))[1] == [3.0]
    date = format_datetime(datetime.fromtimestamp(NOW + 7, tz=UTC), usegmt=True)
    script = Script(fail(503, **{"retry-after": date}), ok())
    assert run(script, RetryPolicy(max_retries=1))[1] == [7.0]


def test_an_overlong_server_delay_is_abandoned_not_clamped() -> None:
    script = Script(fail(429, **{"retry-after": "120"}), ok())
    message, slept = run(script, RetryPolicy(max_retries=3, max_server_delay=60))
    assert message.stop_reason is StopReason.ERROR
    assert slept == []
    assert script.attempts == 1
    assert "120" in message.error_message and "not retried" in message.error_message


def test_abandoning_is_a_typed_error() -> None:
    assert issubclass(RetryAbandoned, Exception)
    err = RetryAbandoned("x", delay=120.0, status=429)
    assert (err.delay, err.status) == (120.0, 429)


@pytest.mark.timeout(20)
def test_an_abort_during_backoff_ends_aborted_and_is_not_retried() -> None:
    script = Script(fail(503), ok())

    async def main():
        abort = asyncio.Event()

        async def sleep(delay: float) -> None:
            abort.set()
            await asyncio.sleep(3600)  # only the abort can end this wait

        runtime = ProviderRuntime(
            httpx.MockTransport(script), env=ENV, retry=RetryPolicy(max_retries=3), sleep=sleep
        )
        return [e async for e in runtime.stream(FakeProvider(), request(), abort=abort)]

    events = asyncio.run(main())
    assert events[-1].message.stop_reason is StopReason.ABORTED
    assert script.attempts == 1


def test_nothing_is_retried_after_output_was_streamed() -> None:
    body = HeldBody([sse({"type": "text", "text": "said"}), b"data: {broken"])
    attempts = []

    async def handler(req: httpx.Request) -> httpx.Response:
        attempts.append(req)
        return httpx.Response(200, stream=body)

    async def main():
        runtime = ProviderRuntime(
            httpx.MockTransport(handler), env=ENV, retry=RetryPolicy(max_retries=5)
        )
        events = []
        async for event in runtime.stream(FakeProvider(), request()):
            events.append(event)
            body.release.set()
        return events

    events = asyncio.run(main())
    assert events[-1].message.stop_reason is StopReason.ERROR
    assert events[-1].message.text == "said"
    assert len(attempts) == 1


def test_backoff_is_exponential_capped_and_jittered_downward() -> None:
    policy = RetryPolicy(max_retries=10, initial_backoff=0.5, max_backoff=8.0, jitter=0.25)
    assert [backoff_delay(n, policy, rand=lambda: 0.0) for n in range(6)] == [
        0.5,
        1.0,
        2.0,
        4.0,
        8.0,
        8.0,
    ]
    assert backoff_delay(10, policy, rand=lambda: 0.999999) == pytest.approx(6.0, abs=1e-4)


def test_server_delay_parsing() -> None:
    assert server_delay(httpx.Headers({"retry-after-ms": "nope", "retry-after": "2"}), now=NOW) == 2
    assert server_delay(httpx.Headers({"retry-after": "soon"}), now=NOW) is None
    assert server_delay(httpx.Headers({}), now=NOW) is None
    assert should_retry(None) and not should_retry(None, httpx.Headers({"x-should-retry": "false"}))


def test_invalid_policies_fail_when_defined() -> None:
    with pytest.raises(ValueError):
        RetryPolicy(max_retries=-1)
    with pytest.raises(ValueError):
        RetryPolicy(jitter=2)
