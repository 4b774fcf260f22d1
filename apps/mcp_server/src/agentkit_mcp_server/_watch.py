"""The watch for installed plugins: the served tools follow what is installed, removed or switched off."""

from __future__ import annotations

import asyncio
import importlib
import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._protocol import MCPToolServer

log = logging.getLogger("agentkit_mcp_server")


def installed_plugins() -> tuple[tuple[str, str, str], ...]:
    """What decides the served plugins: every ``agentkit.*`` entry point, with its distribution's version."""
    from agentkit.host import PluginHost

    importlib.invalidate_caches()  # a plugin installed since is found by the reload's imports
    return PluginHost.installed_state()


async def watch_plugins(server: MCPToolServer, interval: float,
                        snapshot: Callable[[], Any] = installed_plugins) -> None:
    """Reload the plugins whenever the installed ones change; clients are told when the tools change."""
    seen = snapshot()
    while True:
        await asyncio.sleep(interval)
        now = snapshot()
        if now == seen:
            continue
        seen = now
        try:
            changed = await asyncio.to_thread(server.tools.reload)
        except Exception as exc:  # a broken new plugin must not end the server: keep serving what was there
            print(f"agentkit mcp serve: reloading the plugins failed: {exc}", file=sys.stderr)
            continue
        if changed:
            log.info("the installed tools changed")
