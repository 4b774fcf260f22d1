"""agentkit's tools served over MCP, in both protocol eras.

Embedders serve tools registered in code beside the installed plugins::

    tools = ToolServer(before_tool_call=my_policy)
    tools.add_tool(Tool(name="greet", description="...", input_schema={...}, handler=greet))
    server = MCPToolServer(tools)
    await serve_stdio(server)            # or: await serve_http(server, api_key=KEY)
"""

from ._protocol import MCPToolServer
from ._serve import http_app, serve_http
from ._stdio import serve_stdio, serve_streams
from ._tools import ToolServer, ToolServerError

__all__ = ["MCPToolServer", "ToolServer", "ToolServerError", "http_app", "serve_http", "serve_stdio", "serve_streams"]
