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
    import importlib_metadata

    importlib.invalidate_caches()
    found = []
    for dist in importlib_metadata.distributions():
        for ep in dist.entry_points:
            if ep.group.startswith("agentkit.") and ep.group != "agentkit.commands":
                found.append((ep.group, ep.name, f"{ep.value} {dist.version}"))
    return tuple(sorted(found))


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
