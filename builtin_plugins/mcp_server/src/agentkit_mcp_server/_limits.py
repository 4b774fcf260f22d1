"""The server's bounds and addresses: plain constants, so the command reads them without importing the SDK."""

#: The largest frame accepted, in bytes (an MCP request is small; a tool's arguments rarely pass a few KB).
DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024
#: The deepest nesting of arrays and objects accepted in a frame.
DEFAULT_MAX_DEPTH = 64
#: The addresses ``--no-auth`` may serve, and whose origins are always allowed.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
