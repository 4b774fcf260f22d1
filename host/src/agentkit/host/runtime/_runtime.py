"""The provider runtime: sends a provider's wire request and streams canonical events back.

Providers are pure codecs; the runtime does everything they share. Building
the request (the URL, the body bytes, credentials and header precedence) is
:mod:`._request_building`'s; this module runs the exchange: HTTP (httpx),
transport retries, framing and strict JSON decoding, abort, and the policed,
priced output (:mod:`._output`, :mod:`.pricing`).

Failures are events, not exceptions. A missing credential, an error status,
a refused connection, a stream cut short, bytes that do not decode, an abort:
each ends the stream with one :class:`MessageEnd` whose message has
``stop_reason`` ``error`` (or ``aborted``) and an ``error_message`` that
names the cause and never contains the credential.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import httpx

from agentkit.plugin_api import (
    AssistantMessage,
    Credential,
    MessageEnd,
    Provider,
    ProviderEvent,
    ProviderRequest,
    StopReason,
)
from agentkit.plugin_api.errors import ProviderError

from ._abort import Aborted, AbortWatch, DeadlineClock, Expired
from ._client import Borrowed, SkimmedCookies, close_response, framing_of, host_of
from ._http_request import RequestFactory
from ._output import DecoderBroke, Output
from ._redact import install_log_filter, scrub
from ._request_building import BuiltRequest, PreparedRequest, RequestBuilder
from .credentials import DEFAULT_VALIDITY_FLOOR, CredentialResolver, CredentialStore
from .errors import (
    ModelUnavailable,
    ProviderConnectionError,
    ProviderHTTPError,
    RetryAbandoned,
    error_detail,
    worth_another_model,
)
from .framing import make_framer
from .headers import redact_headers
from .limits import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_READ_TIMEOUT,
    DEFAULT_REQUEST_TIMEOUT,
    ResponseLimits,
)
from .pricing import PriceResponse, Pricing
from .retry import RetryPolicy, backoff_delay, server_delay, should_retry

__all__ = ["PreparedRequest", "ProviderRuntime", "http_timeouts"]

logger = logging.getLogger("agentkit.host.runtime")
install_log_filter()

#: Model responses can pause for minutes (long thinking): the read timeout is
#: per chunk, and generous; the request deadline bounds the whole response.
DEFAULT_TIMEOUT = httpx.Timeout(60.0, connect=DEFAULT_CONNECT_TIMEOUT, read=DEFAULT_READ_TIMEOUT)


def http_timeouts(
    *, connect: float = DEFAULT_CONNECT_TIMEOUT, read: float = DEFAULT_READ_TIMEOUT
) -> httpx.Timeout:
    """httpx timeouts with these connect and read (per chunk) values; writes and the pool get 60 s."""
    for name, value in (("connect_timeout", connect), ("read_timeout", read)):
        if not value > 0:
            raise ValueError(f"{name} must be a positive number of seconds, not {value!r}")
    return httpx.Timeout(60.0, connect=connect, read=read)


#: The most of a response's rest, after its message ended, read to keep its connection,
#: and the longest it is waited for.
MAX_DRAIN = 64 * 1024
DRAIN_TIMEOUT = 1.0

#: The most of an error response's body that is read, to find its message.
DEFAULT_MAX_ERROR_BODY = 64 * 1024

class ProviderRuntime:
    """Runs provider codecs over HTTP.

    :param transport: the httpx transport (tests pass ``httpx.MockTransport``);
        ``None`` uses httpx's network transport. An injected transport is never
        closed by the runtime.
    :param client: an ``httpx.AsyncClient`` to share (connection pooling across
        calls); the caller owns and closes it. Overrides ``transport``.
        Without one, the requests made inside :meth:`session` share one client
        the runtime opens and closes; outside a session each request has its own.
    :param retry: the transport retry policy (default: no retries).
    :param credential_store: the app's credentials, consulted before the environment.
    :param env: where credential variables are read (default ``os.environ``).
    :param timeout: httpx timeouts (connect, read per chunk, write, pool).
    :param request_timeout: seconds one request may take in total, from
        building it to the end of its response, retries included; keep-alive
        traffic does not extend it. ``None`` removes the deadline.
    :param attribution: send ``User-Agent: agentkit/<version>``; default on
        unless ``AGENTKIT_TELEMETRY=0``.
    :param response_limits: the most of one response accepted
        (:class:`ResponseLimits`; default: the model's catalog defaults).
    :param pricing: prices each response once, as it ends (default:
        :class:`~.pricing.Pricing` without a catalog, the requested model's
        prices); kept in :attr:`pricing`.
    :param sleep: how the runtime waits between retries (injectable for tests).
    :param clock: POSIX time, for ``Retry-After`` dates and token expiry.
    :param rand: a uniform [0, 1) source for backoff jitter.
    """

    def __init__(
        self,
        transport: httpx.AsyncBaseTransport | None = None,
        *,
        client: httpx.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
        credential_store: CredentialStore | None = None,
        env: Mapping[str, str] | None = None,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        attribution: bool | None = None,
        validity_floor: float = DEFAULT_VALIDITY_FLOOR,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        clock: Callable[[], float] = time.time,
        rand: Callable[[], float] = random.random,
        max_error_body: int = DEFAULT_MAX_ERROR_BODY,
        response_limits: ResponseLimits | None = None,
        request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT,
        pricing: PriceResponse | None = None,
    ) -> None:
        if request_timeout is not None and not request_timeout > 0:
            raise ValueError(
                f"request_timeout must be a positive number of seconds or None, not {request_timeout!r}"
            )
        self._transport = transport
        self._client = client
        self._session: httpx.AsyncClient | None = None
        self._deadlines: DeadlineClock | None = None  # the open session's, shared by its requests
        self._requests = RequestFactory()
        self.retry = retry or RetryPolicy()
        self.credentials = CredentialResolver(
            credential_store, env=env, validity_floor=validity_floor, clock=clock
        )
        self._builder = RequestBuilder(self.credentials, attribution=attribution, env=env)
        self._timeout = timeout
        self._sleep = sleep
        self._clock = clock
        self._rand = rand
        self._max_error_body = max_error_body
        self.response_limits = response_limits or ResponseLimits()
        self.request_timeout = request_timeout
        self.pricing: PriceResponse = pricing or Pricing()

    # -- the dry run ----------------------------------------------------------

    async def prepare(
        self, provider: Provider, request: ProviderRequest, *, credential: Credential | None = None
    ) -> PreparedRequest:
        """What :meth:`stream` would send for ``request``, credentials redacted (a dry run).

        A missing credential does not fail the dry run: the request is built
        without auth headers and ``missing_credential`` says what to set.

        :raises ProviderError: the provider could not encode the request.
        """
        built = await self._builder.build(provider, request, credential, allow_missing_credential=True)
        return PreparedRequest(
            built.method,
            scrub(built.url, built.secrets),
            redact_headers(built.headers, built.secrets),
            built.body,
            built.framing,
            built.missing_credential,
        )

    # -- the exchange ---------------------------------------------------------

    @asynccontextmanager
    async def session(self) -> AsyncIterator[None]:
        """Send the requests made inside through one HTTP client, reusing its connections; closed at the end.

        An agent opens one for each run. Nested sessions share the outer one,
        and a runtime given a ``client`` uses that one throughout. The
        session's requests also share one deadline timer, cancelled at its end.
        """
        if self._deadlines is not None:  # nested: the outer session owns both
            yield
            return
        self._deadlines = deadlines = DeadlineClock(asyncio.get_running_loop())
        client = None
        try:
            if self._client is None:
                self._session = client = self._new_client()
            yield
        finally:
            self._deadlines = None
            deadlines.close()
            if client is not None:
                self._session = None
                await client.aclose()

    def _new_client(self) -> httpx.AsyncClient:
        # An injected transport belongs to the caller: the client closes only its wrapper.
        transport = None if self._transport is None else Borrowed(self._transport)
        client = httpx.AsyncClient(transport=transport, timeout=self._timeout)
        client._cookies = SkimmedCookies()  # the setter would wrap it in a plain httpx.Cookies
        return client

    async def _read_error_body(self, response: httpx.Response) -> bytes:
        parts: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            parts.append(chunk)
            size += len(chunk)
            if size >= self._max_error_body:
                break
        return b"".join(parts)[: self._max_error_body]

    async def _send(
        self, client: httpx.AsyncClient, built: BuiltRequest, abort: AbortWatch, api: str
    ) -> httpx.Response:
        """Send until a 2xx response arrives; raise the final failure otherwise."""
        attempt = 0
        while True:
            request = self._requests.build(client, built.method, built.url, built.headers, built.body)
            status: int | None = None
            headers: httpx.Headers | None = None
            try:
                response = await abort.race(
                    client.send(request, stream=True, auth=self._requests.auth(client, built.url))
                )
            except httpx.HTTPError as exc:
                failure: ProviderError = ProviderConnectionError(
                    f"could not reach {host_of(built.url)} for {api!r}: {type(exc).__name__}: {exc or 'no detail'}"
                )
            else:
                if 200 <= response.status_code < 300:
                    return response
                status, headers = response.status_code, response.headers
                try:
                    body = await abort.race(self._read_error_body(response))
                except httpx.HTTPError:
                    body = b""
                finally:
                    await close_response(response)
                failure = ProviderHTTPError(
                    f"HTTP {status} {response.reason_phrase} from {host_of(built.url)} ({api!r}): "
                    f"{error_detail(body, built.secrets) or 'no error message in the body'}",
                    status=status,
                )
            if attempt >= self.retry.max_retries or not should_retry(status, headers):
                raise failure
            delay = server_delay(headers, now=self._clock()) if headers is not None else None
            if delay is not None and delay > self.retry.max_server_delay:
                raise RetryAbandoned(
                    f"{failure} -- the server asked to retry after {delay:g} s, longer than the "
                    f"{self.retry.max_server_delay:g} s the retry policy allows; not retried",
                    delay=delay,
                    status=status or 0,
                )
            if delay is None:
                delay = backoff_delay(attempt, self.retry, rand=self._rand)
            logger.info(
                "retrying %s %s (attempt %d of %d) in %.3f s: %s",
                built.method,
                scrub(built.url, built.secrets),
                attempt + 2,
                self.retry.max_retries + 1,
                delay,
                scrub(str(failure), built.secrets),
            )
            await abort.race(self._sleep(delay))
            attempt += 1

    async def stream(
        self,
        provider: Provider,
        request: ProviderRequest,
        *,
        abort: asyncio.Event | None = None,
        credential: Credential | None = None,
    ) -> AsyncIterator[ProviderEvent]:
        """Send ``request`` through ``provider`` and yield canonical events as they arrive.

        :param abort: set it to cancel: the response is closed and the message
            ends with ``stop_reason=aborted``, keeping what already arrived.
        :param credential: use this credential instead of the store and the
            environment.
        :returns: an async iterator whose last event is always the one
            :class:`MessageEnd`; failures end it with ``stop_reason=error``
            rather than raising.
        """
        async for events in self.stream_batches(provider, request, abort=abort, credential=credential):
            for event in events:
                yield event

    async def stream_batches(
        self,
        provider: Provider,
        request: ProviderRequest,
        *,
        abort: asyncio.Event | None = None,
        credential: Credential | None = None,
        fallback: bool = False,
    ) -> AsyncIterator[list[ProviderEvent]]:
        """:meth:`stream`'s events in the non-empty lists they arrive in: what the agent's loop reads.

        The same events in the same order, every guarantee of :meth:`stream`
        kept; a consumer that takes a list at a time passes one generator hop
        per list instead of one per event.

        :param fallback: the caller has another model to ask: a failure worth
            asking another model about (:func:`.errors.worth_another_model`,
            after the retries) that comes before the first event is handed over
            raises :class:`.errors.ModelUnavailable` instead of ending the stream.
        :raises ModelUnavailable: only with ``fallback``, as above.
        """
        # One generator for the whole exchange, and the client taken without a context
        # manager: against an inner generator and an asynccontextmanager, bench_loop json sync
        # -229 bytecodes/turn (1.3%), json async -229 (1.2%), sse sync -240 (1.0%).
        api = str(getattr(provider, "api", "?"))
        try:
            decoder = provider.decoder(request)
        except Exception as exc:
            yield Output(None, request.model, api, pricing=self.pricing).fail(
                StopReason.ERROR,
                f"the {api!r} provider could not make a decoder: {type(exc).__name__}: {exc}",
            )
            return
        out = Output(decoder, request.model, api, limits=self.response_limits, pricing=self.pricing)
        abort_watch = AbortWatch(abort, self.request_timeout, self._deadlines)
        try:
            built: BuiltRequest | None = None
            failed: list[ProviderEvent] = []
            try:
                built = await abort_watch.race(self._builder.build(provider, request, credential))
            except Aborted:
                failed = out.fail(StopReason.ABORTED, "aborted")
            except Expired:
                failed = out.fail(StopReason.ERROR, self._expired(request.model.base_url))
            except Exception as exc:
                failed = out.fail(StopReason.ERROR, str(exc))
            if built is None:  # its failure ended the response
                if failed:
                    yield failed
                return
            out.secrets = built.secrets
            if logger.isEnabledFor(logging.DEBUG):  # the scrubbed URL is only worth writing when it is shown
                logger.debug("%s %s (%s)", built.method, scrub(built.url, built.secrets), api)
            client = self._client or self._session  # shared; else one for this request alone
            owned = client is None
            if client is None:
                client = self._new_client()
            response: httpx.Response | None = None
            # The events of the chunk being read, handed over together once it is read (nothing
            # awaits between them, so nobody could have seen them sooner): one hop per chunk, not
            # per SSE event. A failure inside the chunk hands them over first, then the failure's.
            pending: list[ProviderEvent] = []
            try:
                response = await self._send(client, built, abort_watch, api)
                framer = make_framer(framing_of(built.framing, response))
                chunks = response.aiter_bytes().__aiter__()
                exhausted = False
                while not framer.done:
                    try:
                        chunk = await abort_watch.read(chunks.__anext__())
                    except StopAsyncIteration:
                        exhausted = True
                        break
                    for wire_event in framer.feed(chunk):
                        pending += out.feed(wire_event)  # most SSE events are a delta's piece or nothing
                        if out.ended:
                            break
                    if pending:
                        events, pending = pending, []
                        yield events
                    if out.ended:
                        await self._drain(response, chunks, abort_watch)
                        return
                    if framer.error is not None:
                        raise framer.error
                for wire_event in framer.close():
                    pending += out.feed(wire_event)
                events, pending = pending + out.finish(), []
                if events:
                    yield events
                if not exhausted:  # a body read to its end has nothing to drain, its connection is back
                    await self._drain(response, chunks, abort_watch)
            except Aborted:
                failed = [*pending, *out.fail(StopReason.ABORTED, "aborted")]
            except Expired:
                failed = [*pending, *out.fail(StopReason.ERROR, self._expired(built.url))]
            except httpx.HTTPError as exc:
                broke = (f"the connection to {host_of(built.url)} broke during the response ({api!r}): "
                         f"{type(exc).__name__}: {exc or 'no detail'}")
                if fallback and not out.started:  # nothing of it was handed over: another model may answer
                    raise ModelUnavailable(scrub(broke, built.secrets), model=request.model.key) from None
                failed = [*pending, *out.fail(StopReason.ERROR, broke)]
            except (ProviderError, DecoderBroke) as exc:
                if fallback and not out.started and worth_another_model(exc):
                    raise ModelUnavailable(scrub(str(exc), built.secrets), model=request.model.key) from None
                failed = [*pending, *out.fail(StopReason.ERROR, str(exc))]
            except Exception as exc:
                # A defect, ours or a transport's: still one message_end, last.
                # No traceback: an exception's text may quote a header.
                logger.error(
                    "provider stream for %r failed unexpectedly: %s",
                    api,
                    scrub(f"{type(exc).__name__}: {exc}", built.secrets),
                )
                failed = [*pending, *out.fail(
                    StopReason.ERROR,
                    f"unexpected {type(exc).__name__} in the provider runtime: {exc}",
                )]
            finally:
                if response is not None:
                    await close_response(response)
                if owned:
                    await client.aclose()
            if failed:
                yield failed
        finally:
            abort_watch.close()

    async def _drain(self, response: httpx.Response, chunks: AsyncIterator[bytes], abort: AbortWatch) -> None:
        """Read the short rest of a response whose message already ended, so that its connection is reused.

        Only a rest whose length the response declared, at most
        :data:`MAX_DRAIN` bytes, within :data:`DRAIN_TIMEOUT`: a longer, unknown
        or late one costs the connection instead (closing the response closes it).
        """
        length = response.headers.get("content-length", "")
        if not length.isdigit() or int(length) - response.num_bytes_downloaded > MAX_DRAIN:
            return
        # Whatever fails here, the message is whole; a server that stalls costs the connection, not the turn.
        # The short wait is a watch of its own on the session's clock: the timer it arms serves the
        # drains of the next second's turns too, where a timeout per drain would arm one each.
        rest = AbortWatch(None, DRAIN_TIMEOUT, self._deadlines)
        try:
            with contextlib.suppress(StopAsyncIteration, Exception):
                while True:
                    await rest.read(abort.read(chunks.__anext__()))
        finally:
            rest.close()

    def _expired(self, url: str) -> str:
        return (
            f"no complete response from {host_of(url)} within the request deadline of "
            f"{self.request_timeout:g} s (request_timeout in AgentConfig); what arrived is kept"
        )

    async def complete(
        self,
        provider: Provider,
        request: ProviderRequest,
        abort: asyncio.Event | None = None,
        *,
        credential: Credential | None = None,
    ) -> AssistantMessage:
        """The whole response: :meth:`stream`, keeping only its final message."""
        message: AssistantMessage | None = None
        async for event in self.stream(provider, request, abort=abort, credential=credential):
            if isinstance(event, MessageEnd):
                message = event.message
        assert message is not None  # stream always ends with a MessageEnd
        return message
