"""The server's bounds and addresses: plain values, so the command reads them without importing the SDK."""

from __future__ import annotations

import math
from dataclasses import dataclass

#: The largest frame accepted, in bytes (an MCP request is small; a tool's arguments rarely pass a few KB).
DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024
#: The deepest nesting of arrays and objects accepted in a frame.
DEFAULT_MAX_DEPTH = 64
#: Items per page of a list (tools, resources, resource templates, prompts): the Go SDK's server default.
DEFAULT_PAGE_SIZE = 1000
#: The addresses ``--no-auth`` may serve, and whose origins (with a port) are always allowed.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})

#: Seconds a connection has to send a whole request's headers, from its opening or from the previous
#: response (Apache's mod_reqtimeout starts at 20 s; nginx's client_header_timeout is 60 s).
DEFAULT_HEADER_TIMEOUT = 20.0
#: Seconds a request's body may go without a byte arriving (nginx's client_body_timeout, shorter).
DEFAULT_BODY_TIMEOUT = 20.0
#: Connections open at once (nginx's worker_connections); also held below the open-file limit.
DEFAULT_MAX_CONNECTIONS = 512
#: File descriptors kept for everything but connections (tools' files and processes, the server's own),
#: when the open-file limit lowers the connection cap.
FILE_DESCRIPTOR_RESERVE = 64
#: The shortest API key accepted: 16 characters (about 96 bits as a random token).
MIN_API_KEY_CHARS = 16
#: Seconds between two log lines about the same trouble; the lines left out are counted in the next.
LOG_INTERVAL = 10.0


@dataclass(frozen=True)
class HttpLimits:
    """What the HTTP server grants one client: see ``docs/mcp.md`` for each bound and its default.

    :raises ValueError: a bound that is not a positive number.
    """

    #: Seconds to send a request's headers; past it the connection gets 408 and is closed.
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    #: Seconds a request's body may stall; past it the request gets 408 and the connection is closed.
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    #: Connections open at once; at the cap a connection still waiting for its request's headers is
    #: closed to make room, and when every one is being served a new one gets 503.
    max_connections: int = DEFAULT_MAX_CONNECTIONS

    def __post_init__(self) -> None:
        for name in ("header_timeout", "body_timeout"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number of seconds, not {value!r}")
        if not isinstance(self.max_connections, int) or self.max_connections < 1:
            raise ValueError(f"max_connections must be at least 1, not {self.max_connections!r}")
