"""Running a server over HTTP: the app and the listener."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import Any, cast

import anyio
from mcp.server.transport_security import TransportSecuritySettings

from ._http import MCP_PATH, Gate
from ._limits import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_FRAME_BYTES,
    LOOPBACK_HOSTS,
    MIN_API_KEY_CHARS,
    HttpLimits,
)
from ._protocol import MCPToolServer

log = logging.getLogger("agentkit_mcp_server")

#: Seconds a running request gets, once the listener stops, after its handler was cancelled.
SHUTDOWN_GRACE = 5


def http_app(server: MCPToolServer, *, api_key: str | None, allowed_origins: Iterable[str] = (),
             host: str = "127.0.0.1", json_response: bool = False,
             max_body_bytes: int = DEFAULT_MAX_FRAME_BYTES, max_depth: int = DEFAULT_MAX_DEPTH,
             body_timeout: float = DEFAULT_BODY_TIMEOUT) -> Any:
    """The ASGI app serving ``server`` at ``/mcp``, behind the API key, ``Origin`` and body checks.

    :param api_key: the key every request must present, at least
        :data:`MIN_API_KEY_CHARS` characters; ``None`` serves without one, which
        is allowed only on a loopback ``host``.
    :param body_timeout: seconds a request's body may stall before it is answered 408.
    :raises ValueError: ``api_key`` is ``None`` and ``host`` is not loopback, or it is too short.
    """
    if api_key is None and host not in LOOPBACK_HOSTS:
        raise ValueError(f"refusing to serve {host} without an API key: --no-auth is for loopback addresses only")
    if api_key is not None and len(api_key.strip()) < MIN_API_KEY_CHARS:
        raise ValueError(f"the API key has {len(api_key.strip())} characters, fewer than {MIN_API_KEY_CHARS}: "
                         "set it to a long random value")
    allowed_origins = list(allowed_origins)
    if host in LOOPBACK_HOSTS:  # the SDK's DNS-rebinding check, with the origins the gate also allows
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*",
                             "https://127.0.0.1:*", "https://localhost:*", "https://[::1]:*", *allowed_origins],
        )
    else:  # any Host may reach a public bind; the gate checks the key and the Origin
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app = server.server.streamable_http_app(
        streamable_http_path=MCP_PATH, json_response=json_response, transport_security=security, host=host,
        max_request_body_size=max_body_bytes,
    )
    return Gate(app, api_key=api_key, allowed_origins=allowed_origins, max_body_bytes=max_body_bytes,
                max_depth=max_depth, body_timeout=body_timeout)


async def serve_http(server: MCPToolServer, *, host: str = "127.0.0.1", port: int = 0, api_key: str | None,
                     allowed_origins: Iterable[str] = (), json_response: bool = False,
                     on_ready: Callable[[str], None] | None = None, limits: HttpLimits | None = None) -> None:
    """Listen on ``host:port`` until interrupted or cancelled; ``on_ready(url)`` once the socket is bound.

    ``limits`` bounds what each client may hold: its headers' and body's
    deadlines and the number of connections (see :class:`HttpLimits`; the cap is
    also kept under the process's open-file limit). Log lines about clients
    past those bounds are rate-limited.

    On shutdown (SIGINT, SIGTERM, or the awaiting task cancelled) the calls in
    flight are cancelled first (their handlers see the cancel token), then the
    listener waits at most :data:`SHUTDOWN_GRACE` seconds for their answers.
    """
    import uvicorn

    from ._connections import (
        ConnectionGuard,
        RateLimitFilter,
        connection_cap,
        connection_factory,
        quiet_accept_errors,
    )

    limits = limits if limits is not None else HttpLimits()
    server.bind()
    app = http_app(server, api_key=api_key, allowed_origins=allowed_origins, host=host, json_response=json_response,
                   body_timeout=limits.body_timeout)
    cap = connection_cap(limits.max_connections)
    if cap < limits.max_connections:
        log.warning("serving at most %d connections, not %d: the open-file limit leaves no more (ulimit -n)",
                    cap, limits.max_connections)
    guard = ConnectionGuard(limits, cap)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=SHUTDOWN_GRACE, http=cast(Any, connection_factory(guard)),
                            ws="none")

    class _Listener(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if on_ready is not None and self.servers:
                bound = self.servers[0].sockets[0].getsockname()
                shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
                on_ready(f"http://{shown}:{bound[1]}{MCP_PATH}")

        async def shutdown(self, sockets: Any = None) -> None:
            server.tools.cancel_all()
            await super().shutdown(sockets)

    listener = _Listener(config)
    loop = asyncio.get_running_loop()
    previous_handler = loop.get_exception_handler()
    loop.set_exception_handler(quiet_accept_errors(previous_handler))
    quieted = [logging.getLogger(name) for name in ("agentkit_mcp_server", "uvicorn.error", "asyncio")]
    rate_limit = RateLimitFilter()
    for logger in quieted:
        logger.addFilter(rate_limit)
    serving = asyncio.ensure_future(listener.serve())
    try:
        await asyncio.shield(serving)
    except asyncio.CancelledError:  # the embedder's task was cancelled: stop as on a signal, then go
        listener.should_exit = True
        with anyio.CancelScope(shield=True):
            await asyncio.wait([serving])
        raise
    finally:
        for logger in quieted:
            logger.removeFilter(rate_limit)
        loop.set_exception_handler(previous_handler)
