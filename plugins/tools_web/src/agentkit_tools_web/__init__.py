"""``fetch_url`` for agentkit, behind an SSRF guard.

Every connection goes through a guard that resolves the host itself, checks
every address in the answer (unwrapping IPv4 inside IPv6), and connects only
to an address it checked. The tool is not enabled by default: an embedder
asks for ``fetch_url`` by name. :func:`image_fetcher` downloads URL images for
the host (``Connection.image_fetcher``) through the same guard.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import Tool, hookimpl

from ._addresses import CLOUD_METADATA_ADDRESSES, address_refusal, embedded_ipv4, literal_address
from ._image_fetcher import MAX_IMAGE_BYTES, ImageFetchError, image_fetcher
from ._limits import MAX_BODY_BYTES, MAX_REDIRECTS
from ._resolver import Resolver, system_resolver
from ._tool import make_fetch_url_tool

if TYPE_CHECKING:
    from ._guard import BlockedAddress, GuardedTransport

#: Names of the guard, which imports httpx: loaded on first use, not with the plugin.
_GUARD_NAMES = ("BlockedAddress", "GuardedTransport")

__all__ = [
    "CLOUD_METADATA_ADDRESSES",
    "MAX_BODY_BYTES",
    "MAX_IMAGE_BYTES",
    "MAX_REDIRECTS",
    "BlockedAddress",
    "GuardedTransport",
    "ImageFetchError",
    "Resolver",
    "address_refusal",
    "agentkit_register_tools",
    "embedded_ipv4",
    "image_fetcher",
    "literal_address",
    "make_fetch_url_tool",
    "system_resolver",
]


@hookimpl
def agentkit_register_tools(register: Callable[[Tool], None]) -> None:
    """Register ``fetch_url`` (``default_enabled=False``)."""
    register(make_fetch_url_tool())


def __getattr__(name: str) -> Any:
    if name not in _GUARD_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module("._guard", __name__), name)
    globals()[name] = value
    return value
