"""``image_fetcher``: URL images downloaded for the host through the SSRF guard, and only there."""

from __future__ import annotations

import ssl

import pytest
from agentkit_tools_web import ImageFetchError, image_fetcher

#: Stands in for a picture: the fetcher hands back bytes, the host decodes them.
PICTURE = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


def _fetcher(network, **options):
    context = ssl.create_default_context(cafile=str(network._cert))
    return image_fetcher(resolver=network.resolver, network_backend=network.backend, ssl_context=context, **options)


def test_a_public_image_is_downloaded(network) -> None:
    server = network.server(answers_for=network.PUBLIC_A)
    server.routes["/cat.png"] = network.reply(body=PICTURE, content_type="image/png")
    assert _fetcher(network)("https://site-a.test/cat.png") == PICTURE
    assert server.seen[0].headers["accept"] == "image/*"


@pytest.mark.parametrize("address", ["10.0.0.5", "127.0.0.1", "169.254.169.254", "::1"])
def test_a_name_resolving_to_a_private_address_is_never_dialled(network, address) -> None:
    network.resolver.table["images.test"] = [address]
    with pytest.raises(ImageFetchError, match=r"images\.test"):
        _fetcher(network)("https://images.test/cat.png")
    assert network.backend.connects == []


def test_a_redirect_to_a_private_address_is_refused(network) -> None:
    server = network.server(answers_for=network.PUBLIC_A)
    server.routes["/cat.png"] = network.reply(302, location="https://internal.test/secret.png")
    network.resolver.table["internal.test"] = ["10.1.2.3"]
    with pytest.raises(ImageFetchError, match=r"10\.1\.2\.3"):
        _fetcher(network)("https://site-a.test/cat.png")
    assert "10.1.2.3" not in network.backend.dialled()


def test_a_body_over_the_cap_is_refused(network) -> None:
    server = network.server(answers_for=network.PUBLIC_A)
    server.routes["/big.png"] = network.reply(body=PICTURE, content_type="image/png")
    with pytest.raises(ImageFetchError, match="larger than 100 bytes"):
        _fetcher(network, max_bytes=100)("https://site-a.test/big.png")


def test_an_error_status_is_refused_naming_it(network) -> None:
    network.server(answers_for=network.PUBLIC_A)
    with pytest.raises(ImageFetchError, match="404"):
        _fetcher(network)("https://site-a.test/missing.png")


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://site-a.test/x.png", "gopher://x",
                                 "http://site-a.test/x.png"])
def test_a_url_of_another_scheme_is_refused_before_any_connect(network, url) -> None:
    with pytest.raises(ImageFetchError, match="not an https URL"):
        _fetcher(network)(url)
    assert network.backend.connects == []


def test_plain_http_is_fetched_only_when_allowed(network) -> None:
    server = network.server(tls=False, answers_for=network.PUBLIC_A)
    server.routes["/cat.png"] = network.reply(body=PICTURE, content_type="image/png")
    assert _fetcher(network, allow_http=True)(f"http://site-a.test:{server.port}/cat.png") == PICTURE


def test_a_redirect_down_to_http_is_refused(network) -> None:
    plain = network.server(tls=False, answers_for=network.PUBLIC_B)
    plain.routes["/cat.png"] = network.reply(body=PICTURE, content_type="image/png")
    server = network.server(answers_for=network.PUBLIC_A)
    server.routes["/cat.png"] = network.reply(302, location=f"http://site-b.test:{plain.port}/cat.png")
    with pytest.raises(ImageFetchError, match="not https"):
        _fetcher(network)("https://site-a.test/cat.png")
    assert plain.seen == []  # refused before the hop was sent
