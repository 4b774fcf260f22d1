"""agentkit's tools served over MCP, in both protocol eras.

Embedders serve tools registered in code beside the installed plugins::

    tools = ToolServer(before_tool_call=my_policy)
    tools.add_tool(Tool(name="greet", description="...", input_schema={...}, handler=greet))
    tools.add_resource(Resource(uri="memo://today", name="today", read=lambda: "..."))
    server = MCPToolServer(tools)
    await serve_stdio(server)            # or: await serve_http(server, api_key=KEY)

A handler served over MCP reaches its request through ``served_call()``:
extra content blocks, progress, log messages, and questions to the client
(``ask({"key": elicitation(...)})``) in either era.

The names are imported on first use (PEP 562): ``agentkit mcp serve --help``
and its usage errors do not pay for the SDK's imports.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._call import ServedCall, elicitation, roots, sampling, served_call
    from ._catalog import Prompt, PromptArgument, Resource, ResourceTemplate
    from ._limits import HttpLimits
    from ._protocol import MCPToolServer
    from ._serve import http_app, serve_http
    from ._stdio import serve_stdio, serve_streams
    from ._tools import ToolServer, ToolServerError

_EXPORTS = {
    "Prompt": "._catalog",
    "PromptArgument": "._catalog",
    "Resource": "._catalog",
    "ResourceTemplate": "._catalog",
    "ServedCall": "._call",
    "elicitation": "._call",
    "roots": "._call",
    "sampling": "._call",
    "served_call": "._call",
    "HttpLimits": "._limits",
    "MCPToolServer": "._protocol",
    "http_app": "._serve",
    "serve_http": "._serve",
    "serve_stdio": "._stdio",
    "serve_streams": "._stdio",
    "ToolServer": "._tools",
    "ToolServerError": "._tools",
}

__all__ = ["HttpLimits", "MCPToolServer", "Prompt", "PromptArgument", "Resource", "ResourceTemplate", "ServedCall", "ToolServer",
           "ToolServerError", "elicitation", "http_app", "roots", "sampling", "serve_http", "serve_stdio",
           "serve_streams", "served_call"]


def __getattr__(name: str) -> Any:
    where = _EXPORTS.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
