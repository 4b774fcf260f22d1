"""A test MCP server on the official SDK 1.x (``FastMCP``), legacy era only: ``python v1_server.py [stdio|http]``.

Over HTTP it binds 127.0.0.1 on a port the system picks and prints ``PORT n`` first.
"""

from __future__ import annotations

import socket
import sys

from mcp.server.fastmcp import Context, FastMCP

server = FastMCP("agentkit-test-v1", json_response=True)


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


@server.tool()
async def grow(ctx: Context) -> str:
    """Adds a tool named 'late' and sends the legacy list-changed notification."""

    def late() -> str:
        """Added while running."""
        return "late tool"

    server.add_tool(late, name="late")
    await ctx.session.send_tool_list_changed()
    return "grown"


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        server.run()
        return
    import anyio
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    anyio.run(uvicorn.Server(config).serve, [sock])


if __name__ == "__main__":
    main()
