"""MCP over this process's stdin and stdout, newline-delimited, with bounded frames.

The SDK's stdio transport reads whole lines of any length and drops a
malformed one without an answer; this one refuses an oversized frame while it
streams in and answers malformed ones with the JSON-RPC error
(docs/decisions/0021-mcp-server.md). Everything past the frame is the SDK's:
``serve_dual_era_loop`` decides the era from the client's first request.

While serving, file descriptor 0 reads the null device and 1 writes to
stderr, so a handler or a child process can neither steal the client's input
nor corrupt the wire with stray output.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from typing import Any, BinaryIO

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from ._frames import FrameError, parse_frame, too_large
from ._limits import DEFAULT_MAX_DEPTH, DEFAULT_MAX_FRAME_BYTES
from ._protocol import MCPToolServer

_CHUNK = 65536


async def serve_stdio(server: MCPToolServer, *, max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
                      max_depth: int = DEFAULT_MAX_DEPTH) -> None:
    """Serve one client on stdin/stdout until stdin closes; in-flight calls are then cancelled."""
    with _claimed_stdio() as (wire_in, wire_out):
        await serve_streams(server, wire_in, wire_out, max_frame_bytes=max_frame_bytes, max_depth=max_depth)


async def serve_streams(server: MCPToolServer, wire_in: BinaryIO, wire_out: BinaryIO, *,
                        max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES, max_depth: int = DEFAULT_MAX_DEPTH) -> None:
    """Serve one client over a pair of binary files (unbuffered reads), until ``wire_in`` ends."""
    server.bind()
    inbound_send, inbound = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outbound, outbound_receive = anyio.create_memory_object_stream[Any](16)
    writer = anyio.wrap_file(wire_out)

    async def read() -> None:
        async with inbound_send:
            async for frame in _frames(anyio.wrap_file(wire_in), max_frame_bytes):
                try:
                    message = frame if isinstance(frame, FrameError) else parse_frame(frame, max_depth=max_depth)
                except FrameError as error:
                    message = error
                try:
                    if isinstance(message, FrameError):
                        await outbound.send(message.response())
                    else:
                        await inbound_send.send(message)
                except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                    return  # the writer or the session is gone: the connection is over

    async def write(group: anyio.abc.TaskGroup) -> None:
        async with outbound_receive:
            try:
                async for item in outbound_receive:
                    if isinstance(item, SessionMessage):
                        text = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                    else:
                        text = json.dumps(item, ensure_ascii=False)
                    await writer.write((text + "\n").encode("utf-8"))
                    await writer.flush()
            except OSError:  # the client closed its end (a broken pipe): nobody is left to answer
                server.tools.cancel_all("the client closed the connection")
                group.cancel_scope.cancel()

    session_out = _SessionWriter(outbound)
    async with anyio.create_task_group() as group:
        group.start_soon(write, group)
        group.start_soon(read)
        async with server.server.lifespan(server.server) as state:
            from mcp.server.runner import serve_dual_era_loop

            try:
                await serve_dual_era_loop(server.server, inbound, session_out, lifespan_state=state,
                                          init_options=server.initialization_options())
            finally:
                server.tools.cancel_all("the client closed the connection")
        outbound.close()


class _SessionWriter:
    """The SDK's write stream: its messages join our error answers on one ordered writer."""

    def __init__(self, outbound: MemoryObjectSendStream[Any]) -> None:
        self._outbound = outbound

    async def send(self, item: SessionMessage, /) -> None:
        await self._outbound.send(item)

    async def aclose(self) -> None:
        """The SDK closes its side when the session ends; our error answers may still follow."""

    async def __aenter__(self) -> _SessionWriter:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


async def _frames(wire: Any, limit: int) -> AsyncIterator[bytes | FrameError]:
    """The newline-separated frames of ``wire``; a frame past ``limit`` bytes is skipped as it arrives."""
    pending = bytearray()
    skipping = False
    while True:
        chunk = await wire.read(_CHUNK)
        if not chunk:
            break
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                if not skipping:
                    pending += chunk[start:]
                    if len(pending) > limit:
                        pending.clear()
                        skipping = True
                break
            if skipping:
                skipping = False
                yield too_large(limit)
            else:
                pending += chunk[start:end]
                if len(pending) > limit:
                    yield too_large(limit)
                elif pending.strip():
                    yield bytes(pending)
                pending.clear()
            start = end + 1
    if skipping:
        yield too_large(limit)
    elif pending.strip():
        yield bytes(pending)


@contextlib.contextmanager
def _claimed_stdio() -> Any:
    """The wire's own copies of fds 0 and 1, with 0 pointed at the null device and 1 at stderr meanwhile."""
    sys.stdout.flush()
    wire_in_fd, wire_out_fd = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    wire_in, wire_out = os.fdopen(wire_in_fd, "rb", buffering=0), os.fdopen(wire_out_fd, "wb")
    try:
        yield wire_in, wire_out
    finally:
        wire_in.close()
        with contextlib.suppress(OSError):  # what is left unwritten when the client has gone stays so
            wire_out.close()
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)
