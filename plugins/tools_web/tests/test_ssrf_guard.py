"""The SSRF guard, driven through fetch_url with stub DNS and a recording connect.

Each test states the naive implementation it was seen to fail against.
"""

from __future__ import annotations

import pytest

from agentkit.plugin_api import ToolError

REFUSED = [
    # IPv4
    ("127.0.0.1", "loopback"),
    ("127.255.0.9", "loopback"),
    ("10.1.2.3", "private"),
    ("172.16.0.1", "private"),
    ("192.168.1.1", "private"),
    ("169.254.1.1", "link-local"),
    ("100.64.0.1", "carrier-grade NAT"),
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "reserved"),
    ("0.0.0.0", "unspecified"),
    ("198.18.0.1", "benchmarking"),
    # cloud metadata, named
    ("169.254.169.254", "cloud instance metadata"),
    ("169.254.170.2", "AWS ECS task metadata"),
    ("100.100.100.200", "Alibaba Cloud metadata"),
    ("192.0.0.192", "Oracle Cloud Classic metadata"),
    ("168.63.129.16", "Azure host endpoint"),
    ("fd00:ec2::254", "AWS instance metadata over IPv6"),
    # IPv6
    ("::1", "loopback"),
    ("::", "unspecified"),
    ("fe80::1", "link-local"),
    ("fc00::1", "private"),
    ("fd12:3456::1", "private"),
    ("ff02::1", "multicast"),
    ("2001:db8::1", "documentation"),
    ("::7f00:1", "reserved"),
    # IPv4 inside IPv6, unwrapped and judged by the IPv4 address
    ("::ffff:127.0.0.1", "loopback"),
    ("::ffff:169.254.169.254", "cloud instance metadata"),
    ("64:ff9b::7f00:1", "loopback"),
    ("64:ff9b::a9fe:a9fe", "cloud instance metadata"),
    ("64:ff9b::a00:1", "private"),
    ("2002:7f00:1::1", "loopback"),
    ("2002:a9fe:a9fe::", "cloud instance metadata"),
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"),  # Teredo, client 127.0.0.1
    ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "private"),  # Teredo, client 10.0.0.1
]

ALLOWED_PUBLIC = [
    "93.184.215.14",
    "2606:4700::6810:84e5",
    "::ffff:93.184.215.14",  # mapped public IPv4
    "64:ff9b::5db8:d70e",  # NAT64 of 93.184.215.14
    "2002:5db8:d70e::1",  # 6to4 of 93.184.215.14
]


@pytest.mark.parametrize(("address", "named"), REFUSED)
def test_a_name_resolving_to_a_refused_address_is_never_dialled(network, address, named):
    """Naive: ``not ip.is_global`` lets 224.0.0.1, 168.63.129.16 and the NAT64/6to4
    wrappings of 127.0.0.1 through (the standard library calls them global)."""
    network.resolver.table["target.test"] = [address]
    result = network.fetch({"url": "https://target.test/"})
    assert result.error == "blocked_address", result
    assert named in result.detail
    assert network.backend.connects == []


@pytest.mark.parametrize("address", ALLOWED_PUBLIC)
def test_public_addresses_reach_the_connect(network, address):
    """Naive: treating all of ``::ffff:0:0/96`` as private refuses a mapped public address.

    The recording connect refuses to dial these, so the call fails after the
    guard allowed it; what matters is that the guard handed over this address.
    """
    network.resolver.table["target.test"] = [address]
    result = network.fetch({"url": "https://target.test/"})
    assert result.error == "request_failed", result
    assert network.backend.dialled() == [address]


@pytest.mark.parametrize("answers", [["93.184.215.14", "10.0.0.5"], ["10.0.0.5", "93.184.215.14"]])
def test_every_resolved_address_must_pass_not_only_the_first(network, answers):
    """Naive: checking ``answers[0]`` and connecting dials the public address first."""
    site = network.server(answers_for="93.184.215.14")
    site.routes["/"] = network.reply(body=b"should not be fetched")
    network.resolver.table["multi.test"] = answers
    result = network.fetch({"url": "https://multi.test/"})
    assert result.error == "blocked_address"
    assert "10.0.0.5 is private" in result.detail
    assert network.backend.connects == [] and site.seen == []


def test_a_name_that_rebinds_between_check_and_connect_is_not_followed(network):
    """DNS answers public once, then 127.0.0.1.

    Naive: resolve to check, then let the connection resolve the name again;
    the recording backend (resolving names as the OS would) then dials
    127.0.0.1. The guard resolves once and dials only the address it checked.
    """
    site = network.server(answers_for=network.PUBLIC_A)
    site.routes["/"] = network.reply(body=b"public")
    network.resolver.table["rebind.test"] = network.answers_in_turn(
        [network.PUBLIC_A], ["127.0.0.1"]
    )
    first = network.fetch({"url": "https://rebind.test/"})
    assert first.ok and first.data["body"] == "public"
    second = network.fetch({"url": "https://rebind.test/"})
    assert second.error == "blocked_address"
    assert "127.0.0.1" not in network.backend.dialled()
    assert network.backend.dialled() == [network.PUBLIC_A]


@pytest.mark.parametrize(
    "host",
    [
        "127.1",
        "0x7f000001",
        "2130706433",
        "0177.0.0.1",
        "0x7f.0.0.1",
        "127.0.1",
        "0x7F.1",
        "017700000001",
    ],
)
def test_numeric_spellings_of_an_address_are_refused_without_a_lookup(network, host):
    """Naive: ``ipaddress.ip_address(host)`` rejects these spellings, so they are
    treated as names and passed to a resolver; here the resolver answers a
    public address for any name, so only a refusal before resolving holds."""
    network.resolver.default = [network.PUBLIC_A]
    try:
        result = network.fetch({"url": f"https://{host}/"})
    except ToolError as refused:  # httpx itself rejects some spellings as invalid URLs
        assert refused.error == "invalid_url"
    else:
        assert result.error == "blocked_address"
        assert "non-standard spelling" in result.detail
    assert network.resolver.queries == [] and network.backend.connects == []


@pytest.mark.parametrize(
    "url", ["https://127.0.0.1/", "https://[::1]/", "https://[::ffff:a9fe:a9fe]/"]
)
def test_literal_addresses_are_checked_without_a_lookup(network, url):
    result = network.fetch({"url": url})
    assert result.error == "blocked_address"
    assert network.resolver.queries == [] and network.backend.connects == []


def test_a_resolver_answer_that_is_not_an_address_is_refused(network):
    network.resolver.table["odd.test"] = ["not-an-ip"]
    result = network.fetch({"url": "https://odd.test/"})
    assert result.error == "blocked_address"
    assert network.backend.connects == []
