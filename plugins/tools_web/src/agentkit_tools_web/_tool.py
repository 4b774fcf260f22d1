"""The fetch_url tool as the host sees it: its name, schema and limits.

What a call does lives in :mod:`._fetch` and the guard in :mod:`._guard`; both
import ``httpx``, so they load with the first call: registering the plugin (or
listing it) costs this module only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import Tool, ToolContext, ToolResult

from ._limits import DEFAULT_TIMEOUT_S, METHODS
from ._resolver import Resolver, system_resolver

if TYPE_CHECKING:
    import ssl

    import httpcore


INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "description": "An https:// URL (http:// only if the embedder allows it)."},
        "method": {"type": "string", "enum": list(METHODS), "default": "GET"},
        "headers": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "Request headers. They are not sent to another host after a redirect.",
        },
        "body": {"type": "string", "description": "Request body, sent as UTF-8."},
        "timeout_s": {
            "type": "number",
            "exclusiveMinimum": 0,
            "description": f"Seconds for the whole fetch, redirects included (default {DEFAULT_TIMEOUT_S:g}).",
        },
        "html_to_text": {
            "type": "boolean",
            "default": True,
            "description": "Return an HTML page as readable text instead of markup.",
        },
    },
    "required": ["url"],
    "additionalProperties": False,
}  # fmt: skip


def make_fetch_url_tool(
    *,
    resolver: Resolver = system_resolver,
    network_backend: httpcore.NetworkBackend | None = None,
    ssl_context: ssl.SSLContext | None = None,
) -> Tool:
    """Build the ``fetch_url`` tool.

    The registered tool uses the defaults. An embedder with its own DNS or
    trust store builds one with these parameters and registers it from its
    own plugin; every connection still goes through the address guard.

    :param resolver: ``resolver(host, port) -> addresses``.
    :param network_backend: the httpcore backend that opens checked connections.
    :param ssl_context: trust settings for HTTPS.
    """

    def fetch_url(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        from ._fetch import fetch  # the HTTP stack loads with the first call, not with the plugin
        from ._guard import GuardedTransport

        transport = GuardedTransport(
            resolver=resolver, network_backend=network_backend, ssl_context=ssl_context
        )
        return fetch(arguments, context, transport)

    return Tool(
        name="fetch_url",
        description=(
            "Fetch a public web page or API over HTTPS and return its status and body "
            "(HTML converted to text). At most 5 redirects; the body is cut at 512 KB."
        ),
        input_schema=INPUT_SCHEMA,
        handler=fetch_url,
        prompt_guidelines=(
            "fetch_url reaches public internet addresses only: private, loopback, link-local "
            "and cloud metadata addresses are refused."
        ),
        default_enabled=False,
    )
