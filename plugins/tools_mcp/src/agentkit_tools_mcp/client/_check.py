"""``agentkit mcp list --check``: connect to each server at once and say what it negotiated."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from .._config import McpConfigError, ServerConfig
from ._connection import ServerConnection


def check_servers(servers: Sequence[ServerConfig]) -> list[tuple[ServerConfig, tuple[str, str, int] | str]]:
    """Each server with ``(era, protocol version, tool count)``, or the reason it could not be reached."""

    async def one(server: ServerConfig) -> tuple[str, str, int] | str:
        connection = ServerConnection(server)
        try:
            tools = await connection.list_tools()
            return connection.era or "?", connection.protocol_version or "?", len(tools)
        except McpConfigError as exc:
            return str(exc)
        except Exception as exc:
            return str(exc) or type(exc).__name__
        finally:
            await connection.close()

    async def every() -> list[tuple[str, str, int] | str]:
        return await asyncio.gather(*(one(server) for server in servers))

    return list(zip(servers, asyncio.run(every()), strict=True))
