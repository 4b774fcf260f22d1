"""The conformance suite's fixture tools, registered in code on an agentkit MCP server.

Run as ``python fixture.py``: serves streamable HTTP on a free loopback port
without an API key (the suite sends none; loopback only) and prints
``listening on URL`` on stderr. Only the fixture tools are served, through the
same :class:`ToolServer` path as installed plugins: the authorization, the
deadlines and the result mapping of every other served call.

The suite's fixtures that agentkit tools cannot express are left out, and the
scenarios that need them fail: audio and embedded-resource content, progress
notifications, logging, and tools that ask the client for input (elicitation,
sampling, roots); resources, prompts and completion are not served at all.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from agentkit_mcp_server import MCPToolServer, ToolServer, serve_http

from agentkit.host import PluginHost
from agentkit.plugin_api import ImageBlock, Tool, ToolResult

#: A 1x1 red pixel.
RED_PIXEL_PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                          "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
                   "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                   "phone": {"type": "string"}, "email": {"type": "string"}},
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}
NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}}


def fixture_tools() -> list[Tool]:
    """The suite's fixture tools that agentkit tools can express."""
    return [
        Tool(name="test_simple_text", description="Returns simple text content.", input_schema=NO_ARGUMENTS,
             handler=lambda arguments, context: "This is a simple text response for testing."),
        Tool(name="test_image_content", description="Returns image content.", input_schema=NO_ARGUMENTS,
             handler=lambda arguments, context: ToolResult(True, data="A red pixel.",
                                                           images=[ImageBlock(RED_PIXEL_PNG, "image/png")])),
        Tool(name="test_error_handling", description="Always returns an error.", input_schema=NO_ARGUMENTS,
             handler=lambda arguments, context: ToolResult.failure(
                 "test_error", "This tool intentionally returns an error for testing")),
        Tool(name="json_schema_2020_12_tool", description="Keeps JSON Schema 2020-12 keywords.",
             input_schema=JSON_SCHEMA_2020_12, handler=lambda arguments, context: "ok"),
    ]


def main() -> None:
    tools = ToolServer(PluginHost())  # the fixture tools alone, nothing installed
    for tool in fixture_tools():
        tools.add_tool(tool)

    def ready(url: str) -> None:
        print(f"listening on {url}", file=sys.stderr, flush=True)

    asyncio.run(serve_http(MCPToolServer(tools), host="127.0.0.1", port=0, api_key=None, on_ready=ready))


if __name__ == "__main__":
    main()
