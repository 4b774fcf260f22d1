"""Which addresses ``fetch_url`` may connect to.

The rule is an explicit table rather than the standard library's
``is_global``/``is_private`` flags: those have changed between Python patch
releases, and they treat a NAT64 or 6to4 wrapping of ``127.0.0.1`` as global.
An IPv6 address that embeds an IPv4 address (IPv4-mapped, IPv4-translated,
NAT64, 6to4, Teredo) is judged by the IPv4 address it reaches.
"""

from __future__ import annotations

import re
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address

IPAddress = IPv4Address | IPv6Address

# Named first so the refusal says what the address is. Most also fall in a
# blocked range; 168.63.129.16 (Azure's host endpoint) is in public space.
CLOUD_METADATA_ADDRESSES: dict[IPAddress, str] = {
    ip_address("169.254.169.254"): "cloud instance metadata (AWS, GCP, Azure, OCI, DigitalOcean, ...)",
    ip_address("169.254.170.2"): "AWS ECS task metadata",
    ip_address("169.254.169.253"): "AWS VPC DNS",
    ip_address("169.254.169.123"): "AWS time sync",
    ip_address("169.254.0.23"): "Tencent Cloud metadata",
    ip_address("169.254.42.42"): "Scaleway metadata",
    ip_address("100.100.100.200"): "Alibaba Cloud metadata",
    ip_address("192.0.0.192"): "Oracle Cloud Classic metadata",
    ip_address("168.63.129.16"): "Azure host endpoint (WireServer)",
    ip_address("fd00:ec2::254"): "AWS instance metadata over IPv6",
    ip_address("fd00:ec2::253"): "AWS VPC DNS over IPv6",
    ip_address("fd00:ec2::123"): "AWS time sync over IPv6",
    ip_address("fd20:ce::254"): "GCP metadata over IPv6",
}  # fmt: skip

_BLOCKED_V4: tuple[tuple[IPv4Network, str], ...] = tuple(
    (IPv4Network(net), why)
    for net, why in (
        ("0.0.0.0/8", "unspecified ('this network')"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "carrier-grade NAT (shared address space)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "reserved (IETF protocol assignments)"),
        ("192.0.2.0/24", "reserved (documentation)"),
        ("192.88.99.0/24", "reserved (6to4 relay anycast)"),
        ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "reserved (benchmarking)"),
        ("198.51.100.0/24", "reserved (documentation)"),
        ("203.0.113.0/24", "reserved (documentation)"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved (including broadcast)"),
    )
)

_BLOCKED_V6: tuple[tuple[IPv6Network, str], ...] = tuple(
    (IPv6Network(net), why)
    for net, why in (
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("64:ff9b:1::/48", "local-use NAT64"),
        ("100::/64", "reserved (discard-only)"),
        ("2001::/23", "reserved (IETF protocol assignments)"),
        ("2001:db8::/32", "reserved (documentation)"),
        ("3fff::/20", "reserved (documentation)"),
        ("5f00::/16", "reserved (segment routing)"),
        ("fc00::/7", "private (unique local)"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local (deprecated)"),
        ("ff00::/8", "multicast"),
    )
)
_GLOBAL_UNICAST_V6 = IPv6Network("2000::/3")
_NAT64 = IPv6Network("64:ff9b::/96")
_IPV4_TRANSLATED = IPv6Network("::ffff:0:0:0/96")


def embedded_ipv4(address: IPv6Address) -> IPv4Address | None:
    """The IPv4 address an IPv6 address reaches through a standard wrapping, if any."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64 or address in _IPV4_TRANSLATED:
        return IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]  # (server, client): packets go to the client
    return None


def address_refusal(address: IPAddress | str) -> str | None:
    """Why ``fetch_url`` must not connect to ``address``; ``None`` when it may."""
    if isinstance(address, str):
        address = ip_address(address.split("%", 1)[0])  # a zone id names a link, not a host
    if address in CLOUD_METADATA_ADDRESSES:
        return f"{address} is {CLOUD_METADATA_ADDRESSES[address]}"
    if isinstance(address, IPv6Address):
        if address.scope_id:
            address = IPv6Address(str(address).split("%", 1)[0])
        inner = embedded_ipv4(address)
        if inner is not None:
            reason = address_refusal(inner)
            return None if reason is None else f"{address} wraps {reason}"
        for network, why in _BLOCKED_V6:
            if address in network:
                return f"{address} is {why}"
        if address not in _GLOBAL_UNICAST_V6:
            return f"{address} is reserved (outside global unicast 2000::/3)"
        return None
    for network_v4, why in _BLOCKED_V4:
        if address in network_v4:
            return f"{address} is {why}"
    return None


_NUMERIC_PART = re.compile(r"0[xX][0-9a-fA-F]*|[0-9]+")
_CANONICAL_PART = re.compile(r"0|[1-9][0-9]{0,2}")


class NonCanonicalAddress(ValueError):
    """A host written as a number in a spelling other than dotted decimal."""


def literal_address(host: str) -> IPAddress | None:
    """The address a URL host names literally, or ``None`` for a DNS name.

    Resolvers accept ``127.1``, ``0x7f000001``, ``2130706433`` and octal
    ``0177.0.0.1`` as IPv4 addresses. Any all-numeric host that is not plain
    dotted decimal is refused with :class:`NonCanonicalAddress` instead of
    being guessed at.
    """
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if ":" in bare:
        return ip_address(bare.split("%", 1)[0])
    name = bare[:-1] if bare.endswith(".") else bare
    parts = name.split(".")
    if not name or not all(_NUMERIC_PART.fullmatch(part) for part in parts):
        return None
    if len(parts) == 4 and all(
        _CANONICAL_PART.fullmatch(part) and int(part) <= 255 for part in parts
    ):
        return IPv4Address(name)
    raise NonCanonicalAddress(
        f"the host {host!r} is a numeric address in a non-standard spelling; "
        "write an IPv4 address as four decimal numbers (a.b.c.d)"
    )
