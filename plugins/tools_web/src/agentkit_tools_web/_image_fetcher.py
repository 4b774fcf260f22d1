"""Downloading a URL image for the host, behind the same SSRF guard as ``fetch_url``.

The host never fetches an image on its own: an embedder that wants URL images
sent to a wire that takes no URLs passes ``AgentConfig(connection=Connection(image_fetcher=image_fetcher()))``.
Every connection, redirects included, goes through :class:`~._guard.GuardedTransport`,
so a URL (from the user or from a tool's result) cannot reach a private,
loopback or cloud-metadata address. ``httpx`` loads with the first fetch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ._limits import DEFAULT_TIMEOUT_S, MAX_REDIRECTS, USER_AGENT
from ._resolver import Resolver, system_resolver

if TYPE_CHECKING:
    import ssl

    import httpcore
    import httpx

#: The largest image downloaded; the host refuses larger sources anyway, and a vendor's cap is lower.
MAX_IMAGE_BYTES = 20 * 1024 * 1024


class ImageFetchError(Exception):
    """The image could not be downloaded; the message names the URL and why."""


def image_fetcher(
    *,
    max_bytes: int = MAX_IMAGE_BYTES,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    resolver: Resolver = system_resolver,
    network_backend: httpcore.NetworkBackend | None = None,
    ssl_context: ssl.SSLContext | None = None,
    allow_http: bool = False,
) -> Callable[[str], bytes]:
    """A ``url -> bytes`` function for ``Connection.image_fetcher``, SSRF-guarded.

    It GETs ``https`` URLs only (and ``http`` with ``allow_http``), as
    ``fetch_url`` does, follows at most :data:`MAX_REDIRECTS`
    redirects (each hop checked by the guard), sends no credentials from the
    environment, and stops reading past ``max_bytes``.

    :param max_bytes: the largest body accepted.
    :param timeout_s: seconds for each network step (connect, read).
    :param resolver: ``resolver(host, port) -> addresses``, as for ``fetch_url``.
    :param network_backend: the httpcore backend that opens checked connections.
    :param ssl_context: trust settings for HTTPS.
    :param allow_http: accept plain ``http`` URLs too (redirects to them included).
    :raises ImageFetchError: (from the returned function) a refused address, a
        failed request, a status other than 2xx, or a body over ``max_bytes``.
    """

    def fetch(url: str) -> bytes:
        import httpx  # loads with the first image, not with the plugin

        from ._guard import BlockedAddress, GuardedTransport

        schemes = ("https://", "http://") if allow_http else ("https://",)
        if not url.lower().startswith(schemes):
            raise ImageFetchError(f"{url[:60]!r} is not an {'http(s)' if allow_http else 'https'} URL; "
                                  "image_fetcher(allow_http=True) also takes http")
        def https_only(request: httpx.Request) -> None:  # every hop, before it is sent
            if request.url.scheme != "https":
                raise ImageFetchError(f"{url} redirected to {request.url}, which is not https")

        transport = GuardedTransport(resolver=resolver, network_backend=network_backend, ssl_context=ssl_context)
        try:
            client = httpx.Client(transport=transport, trust_env=False, follow_redirects=True,
                                  max_redirects=MAX_REDIRECTS, timeout=timeout_s,
                                  headers={"User-Agent": USER_AGENT, "Accept": "image/*"},
                                  event_hooks={"request": [] if allow_http else [https_only]})
            with client, client.stream("GET", url) as response:
                if not response.is_success:
                    raise ImageFetchError(f"{url} answered {response.status_code}")
                return _read_capped(response, url, max_bytes)
        except BlockedAddress as exc:
            raise ImageFetchError(f"{url}: {exc}") from None
        except httpx.HTTPError as exc:
            raise ImageFetchError(f"{url}: {exc}") from None

    return fetch


def _read_capped(response: httpx.Response, url: str, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > max_bytes:  # the rest is never read
            raise ImageFetchError(f"{url} is larger than {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)
