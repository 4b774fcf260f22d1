"""``fetch_url`` for agentkit, behind an SSRF guard.

Every connection goes through a guard that resolves the host itself, checks
every address in the answer (unwrapping IPv4 inside IPv6), and connects only
to an address it checked. The tool is not enabled by default: an embedder
asks for ``fetch_url`` by name.
"""

from __future__ import annotations

from collections.abc import Callable

from agentkit.plugin_api import Tool, hookimpl

from ._addresses import CLOUD_METADATA_ADDRESSES, address_refusal, embedded_ipv4, literal_address
from ._fetch import MAX_BODY_BYTES, MAX_REDIRECTS, make_fetch_url_tool
from ._guard import BlockedAddress, GuardedTransport, Resolver, system_resolver

__all__ = [
    "CLOUD_METADATA_ADDRESSES",
    "MAX_BODY_BYTES",
    "MAX_REDIRECTS",
    "BlockedAddress",
    "GuardedTransport",
    "Resolver",
    "address_refusal",
    "agentkit_register_tools",
    "embedded_ipv4",
    "literal_address",
    "make_fetch_url_tool",
    "system_resolver",
]


@hookimpl
def agentkit_register_tools(register: Callable[[Tool], None]) -> None:
    """Register ``fetch_url`` (``default_enabled=False``)."""
    register(make_fetch_url_tool())
