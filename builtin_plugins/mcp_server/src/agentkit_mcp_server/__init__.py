"""agentkit's tools served over MCP, in both protocol eras.

Embedders serve tools registered in code beside the installed plugins::

    tools = ToolServer(before_tool_call=my_policy)
    tools.add_tool(Tool(name="greet", description="...", input_schema={...}, handler=greet))
    server = MCPToolServer(tools)
    await serve_stdio(server)            # or: await serve_http(server, api_key=KEY)

The names are imported on first use (PEP 562): ``agentkit mcp serve --help``
and its usage errors do not pay for the SDK's imports.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._protocol import MCPToolServer
    from ._serve import http_app, serve_http
    from ._stdio import serve_stdio, serve_streams
    from ._tools import ToolServer, ToolServerError

_EXPORTS = {
    "MCPToolServer": "._protocol",
    "http_app": "._serve",
    "serve_http": "._serve",
    "serve_stdio": "._stdio",
    "serve_streams": "._stdio",
    "ToolServer": "._tools",
    "ToolServerError": "._tools",
}

__all__ = ["MCPToolServer", "ToolServer", "ToolServerError", "http_app", "serve_http", "serve_stdio", "serve_streams"]


def __getattr__(name: str) -> Any:
    where = _EXPORTS.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
