"""The SSRF guard: a network backend that checks the concrete address at connect time.

httpx hands a connection pool the URL's host name; this backend resolves the
name itself, refuses the connection unless *every* address in the answer is
allowed, and then connects to one of those checked addresses, never to the
name. Resolving once and connecting to what was checked closes the rebinding
window in which a name answers public for a check and private for the
connect. TLS still uses the name for SNI and certificate checks, because the
pool starts TLS with the URL's host, not with the address we connected to.
"""

from __future__ import annotations

import ssl
import typing

import httpcore
import httpx

from ._addresses import NonCanonicalAddress, address_refusal, literal_address
from ._resolver import Resolver, system_resolver


class BlockedAddress(Exception):
    """The guard refused a destination; the message says which and why."""


def checked_addresses(host: str, port: int, resolver: Resolver) -> list[str]:
    """The addresses to connect to for ``host``; raises :class:`BlockedAddress`."""
    try:
        literal = literal_address(host)
    except NonCanonicalAddress as exc:
        raise BlockedAddress(str(exc)) from None
    except ValueError:
        raise BlockedAddress(f"the host {host!r} is not a valid address") from None
    if literal is not None:
        addresses = [str(literal)]
    else:
        addresses = list(resolver(host, port))
        if not addresses:
            raise httpcore.ConnectError(f"{host!r} resolved to no address")
    for address in addresses:
        try:
            refusal = address_refusal(address)
        except ValueError:
            refusal = f"the resolver answered {address!r}, which is not an address"
        if refusal is not None:
            prefix = "" if literal is not None else f"{host} resolves to {address}, and "
            raise BlockedAddress(f"{prefix}{refusal}; fetch_url only connects to public addresses")
    return addresses


class GuardedBackend(httpcore.NetworkBackend):
    """Wraps a network backend so that every TCP connect goes through the guard."""

    def __init__(self, resolver: Resolver, inner: httpcore.NetworkBackend) -> None:
        self._resolver = resolver
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.NetworkStream:
        last_error: Exception | None = None
        for address in checked_addresses(host, port, self._resolver):
            try:
                return self._inner.connect_tcp(
                    address,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last_error = exc
        assert last_error is not None
        raise last_error

    def connect_unix_socket(
        self, *args: typing.Any, **kwargs: typing.Any
    ) -> httpcore.NetworkStream:
        raise BlockedAddress("fetch_url does not connect to Unix sockets")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


_ERRORS: tuple[tuple[type[Exception], type[httpx.HTTPError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.ProtocolError, httpx.ProtocolError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.TimeoutException, httpx.TimeoutException),
)


def _as_httpx_error(exc: Exception) -> Exception:
    for core_type, httpx_type in _ERRORS:
        if isinstance(exc, core_type):
            return httpx_type(str(exc))
    return exc


class _ResponseStream(httpx.SyncByteStream):
    def __init__(self, stream: typing.Iterable[bytes]) -> None:
        self._stream = stream

    def __iter__(self) -> typing.Iterator[bytes]:
        try:
            yield from self._stream
        except httpcore.TimeoutException as exc:
            raise _as_httpx_error(exc) from exc
        except httpcore.NetworkError as exc:
            raise _as_httpx_error(exc) from exc
        except httpcore.ProtocolError as exc:
            raise _as_httpx_error(exc) from exc

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            close()


class GuardedTransport(httpx.BaseTransport):
    """An httpx transport whose every connection goes through :class:`GuardedBackend`.

    :param resolver: how names become addresses (the system resolver by default).
    :param network_backend: the backend that opens the checked connections
        (httpcore's default by default).
    :param ssl_context: trust settings for HTTPS (httpx's defaults by default).
    """

    def __init__(
        self,
        *,
        resolver: Resolver = system_resolver,
        network_backend: httpcore.NetworkBackend | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context or httpx.create_ssl_context(),
            max_connections=4,
            retries=0,
            network_backend=GuardedBackend(resolver, network_backend or httpcore.SyncBackend()),
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.SyncByteStream)
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        try:
            response = self._pool.handle_request(core_request)
        except Exception as exc:
            mapped = _as_httpx_error(exc)
            if mapped is exc:
                raise
            raise mapped from exc
        assert isinstance(response.stream, typing.Iterable)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_ResponseStream(response.stream),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._pool.close()
