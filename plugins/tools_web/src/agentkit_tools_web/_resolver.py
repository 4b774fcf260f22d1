"""How a host name becomes addresses: the type of a resolver, and the system's own.

Kept apart from the guard so that building the tool (at registration) does
not import the HTTP stack: ``httpcore`` loads only when a name fails to resolve.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Sequence

Resolver = Callable[[str, int], Sequence[str]]
"""``resolver(host, port) -> addresses``: every address the name resolves to, as text."""


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver returns for ``host``, in its order."""
    try:
        answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        import httpcore  # the error the connection pool reports; only reached from a connect

        raise httpcore.ConnectError(f"cannot resolve {host!r}: {exc.strerror}") from exc
    addresses: list[str] = []
    for _family, _type, _proto, _canonname, sockaddr in answers:
        address = str(sockaddr[0])
        if address not in addresses:
            addresses.append(address)
    return addresses
