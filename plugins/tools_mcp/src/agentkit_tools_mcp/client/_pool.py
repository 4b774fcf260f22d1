"""The configured servers' connections, on an event loop of their own.

Tool handlers run on the agent's loop, registration runs synchronously while
the host builds its registry, and the SDK's clients must stay on the loop
that opened them. So the connections live on one loop in a daemon thread for
the life of the process (one ``agentkit run`` is one session), and both kinds
of caller hand it coroutines. A handler cancelled by the agent (its deadline,
an abort) cancels the call on the pool's loop too.

Every tool names that loop as its ``Tool.home_loop``, so a run started from
sync code (``run_sync``, ``agentkit run``) runs on it, and its calls are
awaited there directly: no hop between threads (:meth:`ServerPool.run_async`
then awaits the call as it is). A run on another loop (an embedder's own)
still hops, once each way per call.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

from .._config import ServerConfig
from ._connection import ServerConnection

_T = TypeVar("_T")


class ServerPool:
    """Server name -> connection, created at first use and closed at exit (REQ-MCP-CLIENT-04)."""

    def __init__(self, servers: Sequence[ServerConfig], environ: Mapping[str, str] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.connections = {server.name: ServerConnection(server, environ, clock) for server in servers}
        #: server -> qualified name -> the one Tool made for it (an agent re-adding it gets the same object)
        self.tools: dict[str, dict[str, Any]] = {}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="agentkit-mcp", daemon=True)
        self._thread.start()
        self._closed = False

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The loop the connections live on: every tool names it as its ``home_loop``."""
        return self._loop

    def submit(self, coroutine: Coroutine[Any, Any, _T]) -> Future[_T]:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    def run(self, coroutine: Coroutine[Any, Any, _T], timeout: float | None = None) -> _T:
        """Run ``coroutine`` on the pool's loop and wait for it, from a thread that is not the pool's."""
        if threading.current_thread() is self._thread:  # waiting here would stop the loop it waits for
            coroutine.close()
            raise RuntimeError("the MCP connections cannot be waited for from a run on their own loop (a host "
                               "built inside a run_sync run): build the PluginHost before the run and reuse it")
        future = self.submit(coroutine)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise

    def run_async(self, coroutine: Coroutine[Any, Any, _T]) -> Awaitable[_T]:
        """``coroutine`` to await on the pool's loop; cancelling the await cancels it there.

        On the pool's loop (a run from sync code: the tools' ``home_loop``) that is
        ``coroutine`` itself, awaited with nothing between. From another loop it is
        the hop: one thread-safe callback each way, without the thread-safe future
        (and its condition) that ``run_coroutine_threadsafe`` and ``wrap_future``
        put between the loops, about 900 fewer bytecodes a ``tools/call``
        (bench/bench_mcp_client.py).
        """
        caller = asyncio.get_running_loop()
        return coroutine if caller is self._loop else self._hop(coroutine, caller)

    async def _hop(self, coroutine: Coroutine[Any, Any, _T], caller: asyncio.AbstractEventLoop) -> _T:
        answer: asyncio.Future[_T] = caller.create_future()
        started: list[asyncio.Task[None]] = []

        def settle(outcome: Callable[[], object]) -> None:  # on the caller's loop
            if not answer.done():
                outcome()

        def hand_back(outcome: Callable[[], object]) -> None:  # on the pool's loop
            with contextlib.suppress(RuntimeError):  # the caller's loop is closed: nobody waits any more
                caller.call_soon_threadsafe(settle, outcome)

        # On the pool's loop. It hands the outcome back itself: a done-callback would wait a loop turn more.
        async def run() -> None:
            try:
                result = await coroutine
            except asyncio.CancelledError:
                hand_back(answer.cancel)
                raise
            except BaseException as error:
                hand_back(functools.partial(answer.set_exception, error))
                if not isinstance(error, Exception):
                    raise
            else:
                hand_back(functools.partial(answer.set_result, result))

        self._loop.call_soon_threadsafe(lambda: started.append(self._loop.create_task(run())))
        try:
            return await answer
        except asyncio.CancelledError:
            # Runs after the task is made (both are the pool loop's callbacks, in order): it exists by then.
            self._loop.call_soon_threadsafe(lambda: started[0].cancel())
            raise

    def list_all(self) -> dict[str, list[Any] | Exception]:
        """Connect to every server at once; each server's tools, or why it could not be reached."""

        async def one(connection: ServerConnection) -> list[Any] | Exception:
            try:
                return await connection.list_tools()
            except Exception as exc:
                return exc

        async def every() -> dict[str, list[Any] | Exception]:
            names = list(self.connections)
            outcomes = await asyncio.gather(*(one(self.connections[name]) for name in names))
            return dict(zip(names, outcomes, strict=True))

        bound = max((c.config.connect_timeout_s for c in self.connections.values()), default=0) * 2 + 15
        return self.run(every(), timeout=bound)

    def close(self) -> None:
        """Close every connection (ending stdio servers) and stop the loop; idempotent."""
        if self._closed:
            return
        self._closed = True

        async def close_all() -> None:
            await asyncio.gather(*(c.close() for c in self.connections.values()), return_exceptions=True)

        with contextlib.suppress(Exception):  # closing at exit must not raise
            self.run(close_all(), timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)


_pools: dict[str, ServerPool] = {}
_pools_lock = threading.Lock()


def shared_pool(servers: Sequence[ServerConfig]) -> ServerPool:
    """The process's pool for exactly these server entries (a new configuration gets its own)."""
    key = repr(servers)
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None:
            pool = _pools[key] = ServerPool(servers)
        return pool


def describe_servers(tools: Sequence[str]) -> list[dict[str, Any]]:
    """The servers, of every pool, that made one of ``tools``: name, transport, and the era and version as connected."""
    wanted = set(tools)
    with _pools_lock:
        pools = list(_pools.values())
    described: dict[str, dict[str, Any]] = {}
    for pool in pools:
        for server, made in list(pool.tools.items()):  # a copy: a running agent may add tools meanwhile
            if server in described or not wanted.intersection(made):
                continue
            connection = pool.connections[server]
            facts = {"name": server, "transport": connection.config.transport, "era": connection.era,
                     "protocol_version": connection.protocol_version}
            described[server] = {key: value for key, value in facts.items() if value is not None}
    return list(described.values())


def close_all() -> None:
    """Close every pool of the process (called at exit; tests call it to end their servers)."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.close()


atexit.register(close_all)
