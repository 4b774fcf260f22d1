"""A real HTTP/1.1 server on 127.0.0.1, in a thread, for tests that need real sockets.

Each connection carries one request; the test's ``handler(request, writer)``
writes whatever bytes it likes (a correct response, a lie, half a body, a
reset). Everything is bounded: the request head and body sizes, every wait,
and the shutdown, which cancels handlers still running.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

MAX_HEAD = 64 * 1024
MAX_BODY = 16 * 1024 * 1024


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: bytes


Handler = Callable[[Request, asyncio.StreamWriter], Awaitable[None]]


def head(status: int, headers: dict[str, str] | None = None, reason: str = "X") -> bytes:
    lines = [f"HTTP/1.1 {status} {reason}"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def response(status: int, body: bytes, content_type: str = "application/json", **headers: str) -> bytes:
    fields = {"content-type": content_type, "content-length": str(len(body)), "connection": "close"}
    fields.update({name.replace("_", "-"): value for name, value in headers.items()})
    return head(status, fields) + body


def reset(writer: asyncio.StreamWriter) -> None:
    """Close the connection with a TCP reset instead of a clean end."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


class LoopbackServer:
    """``with LoopbackServer(handler) as server:`` serves at ``server.url`` until the block ends."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[Request] = []
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="loopback-server", daemon=True)
        self._tasks: set[asyncio.Task] = set()
        self._server: asyncio.base_events.Server | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the loopback server did not start within 10 s")
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", 0, limit=MAX_HEAD)
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        self._loop.close()

    def _stop(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()

        async def drain() -> None:
            if self._tasks:
                await asyncio.wait(set(self._tasks), timeout=5)
            self._loop.stop()

        self._loop.create_task(drain())

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            raw = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            first, *lines = raw.decode("latin-1").split("\r\n")
            method, path, _ = first.split(" ", 2)
            headers = {}
            for line in lines:
                if line:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
            length = min(int(headers.get("content-length", "0")), MAX_BODY)
            body = await asyncio.wait_for(reader.readexactly(length), 10) if length else b""
            request = Request(method, path, headers, body)
            self.requests.append(request)
            await self.handler(request, writer)
            if not writer.is_closing():
                await writer.drain()
        except (asyncio.CancelledError, ConnectionError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            self._tasks.discard(task)
            if not writer.is_closing():
                writer.close()
