"""Our client against MCP servers nobody here wrote: the SDK 2.x (both openings) and 1.x (legacy only).

Each server runs from its own virtual environment (``peers.py``), over stdio
and over streamable HTTP on 127.0.0.1. ``auto`` must find the era the server
speaks; a pinned era must never probe.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from agentkit_tools_mcp._config import ServerConfig
from agentkit_tools_mcp.client._connection import ServerConnection
from mcp import MCPError

from .peers import LEGACY_SDK, MODERN_SDK, PeerUnavailable, http_server, peer_python, server_script

BOUND_S = 90


def python_of(version: str) -> Path:
    try:
        return peer_python(version)
    except PeerUnavailable as exc:  # a real peer is the point of these tests: say what is missing, never skip
        pytest.fail(str(exc), pytrace=False)


async def add_through(config: ServerConfig) -> tuple[str | None, str]:
    connection = ServerConnection(config)
    try:
        async with asyncio.timeout(BOUND_S):
            names = {tool.name for tool in await connection.list_tools()}
            assert {"add", "echo"} <= names
            result = await connection.call_tool("add", {"a": 2, "b": 3}, f"{config.name}__add")
    finally:
        await connection.close()
    return connection.protocol_version, result.content[0].text


def stdio(version: str, era: str) -> ServerConfig:
    return ServerConfig(name="peer", command=str(python_of(version)), args=(str(server_script(version)),), era=era,
                        connect_timeout_s=60)


@pytest.mark.parametrize(("version", "era", "negotiated"), [
    (MODERN_SDK, "auto", "2026-07-28"),
    (MODERN_SDK, "legacy", "2025-11-25"),
    (MODERN_SDK, "2026-07-28", "2026-07-28"),
    (LEGACY_SDK, "auto", "2025-11-25"),
    (LEGACY_SDK, "legacy", "2025-11-25"),
])
def test_stdio_peer(version: str, era: str, negotiated: str) -> None:
    assert asyncio.run(add_through(stdio(version, era))) == (negotiated, "5")


def test_a_pinned_modern_era_never_falls_back_on_a_legacy_only_peer() -> None:
    # Pinned, the client adopts 2026-07-28 without asking; the legacy peer refuses the enveloped listing.
    with pytest.raises(MCPError, match="Invalid request parameters"):
        asyncio.run(add_through(stdio(LEGACY_SDK, "2026-07-28")))


@pytest.mark.parametrize(("version", "expected"), [
    (MODERN_SDK, {"auto": "2026-07-28", "legacy": "2025-11-25"}),
    (LEGACY_SDK, {"auto": "2025-11-25", "legacy": "2025-11-25"}),
])
def test_http_peer(version: str, expected: dict[str, str]) -> None:
    python = python_of(version)

    async def both(url: str) -> dict[str, Any]:
        outcomes = {}
        for era in expected:
            config = ServerConfig(name="peer", url=url, era=era, connect_timeout_s=60)
            outcomes[era] = await add_through(config)
        return outcomes

    with http_server(python, server_script(version)) as url:
        outcomes = asyncio.run(both(url))
    assert outcomes == {era: (negotiated, "5") for era, negotiated in expected.items()}


def test_a_legacy_peer_s_list_changed_notification_refreshes_the_tool_list() -> None:
    async def test() -> set[str]:
        connection = ServerConnection(stdio(LEGACY_SDK, "auto"))
        try:
            async with asyncio.timeout(BOUND_S):
                assert "late" not in {tool.name for tool in await connection.list_tools()}
                await connection.call_tool("grow", {}, "peer__grow")
                assert connection.tools_changed is not None
                await connection.tools_changed.wait()
                return {tool.name for tool in await connection.list_tools()}
        finally:
            await connection.close()

    assert "late" in asyncio.run(test())
