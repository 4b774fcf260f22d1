"""A :class:`ToolServer` as an MCP server of the official SDK, answering both eras.

The SDK's low-level ``Server`` owns the protocol: the era a client opens
with (the 2026-07-28 envelope or the ``initialize`` handshake), validation,
error codes, cache hints and ``subscriptions/listen``. This module answers
``tools/list`` and ``tools/call`` from the tool server, and tells clients
when the tool list changes: modern clients on their listen streams, legacy
sessions with ``notifications/tools/list_changed``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agentkit.plugin_api import ImageBlock, TextBlock, ToolResultMessage

from ._tools import ToolServer

log = logging.getLogger("agentkit_mcp.server")

SERVER_NAME = "agentkit"


class MCPToolServer:
    """The MCP face of a :class:`ToolServer`: one SDK ``Server`` for every transport.

    :param tools: what is served, and how calls are authorized.
    :param name: the ``serverInfo`` name clients see.
    :param version: the ``serverInfo`` version clients see.
    """

    def __init__(self, tools: ToolServer, *, name: str = SERVER_NAME, version: str = "") -> None:
        self.tools = tools
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self.bus)
        self.server: Server[Any] = Server(
            name, version=version or _version(),
            on_list_tools=self._list_tools, on_call_tool=self._call_tool,
            on_subscriptions_listen=self.listen,
        )
        self.server.add_notification_handler("notifications/initialized", types.NotificationParams, self._initialized)
        #: Legacy sessions that finished the handshake: told of list changes directly.
        self._legacy: set[Any] = set()
        self._token: anyio.lowlevel.EventLoopToken | None = None
        self._pending: set[asyncio.Future[None]] = set()
        tools.on_change(self._changed)

    def initialization_options(self) -> InitializationOptions:
        """What a legacy ``initialize`` is answered with: tools, and list-changed notifications."""
        return self.server.create_initialization_options(NotificationOptions(tools_changed=True))

    def bind(self) -> None:
        """Note the running event loop, so that changes made from other threads reach clients."""
        self._token = anyio.lowlevel.current_token()

    # -- handlers ---------------------------------------------------------------------

    async def _list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        self._note(ctx)
        served = [types.Tool(name=tool.name, description=tool.description, input_schema=tool.input_schema)
                  for tool in self.tools.tools.values()]
        return types.ListToolsResult(tools=served)

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        self._note(ctx)
        message = await self.tools.call(params.name, params.arguments)
        return to_call_result(message)

    async def _initialized(self, ctx: Any, params: Any) -> None:
        self._note(ctx)

    def _note(self, ctx: Any) -> None:
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS and ctx.session is not None:
            self._legacy.add(ctx.session)

    # -- list changed -------------------------------------------------------------------

    def _changed(self) -> None:
        """The served tools changed: tell every listening client (from any thread)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # another thread: hand it to the serving loop, if one is running
            if self._token is None:
                return  # not serving yet: a client that connects later lists the new tools anyway
            anyio.from_thread.run(self.notify_tools_changed, token=self._token)
            return
        task = asyncio.ensure_future(self.notify_tools_changed())  # the serving loop itself (an embedder's coroutine)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def notify_tools_changed(self) -> None:
        """Send ``tools/list_changed`` to modern listen streams and initialized legacy sessions."""
        await self.bus.publish(ToolsListChanged())
        for session in list(self._legacy):
            try:
                await session.send_tool_list_changed()
            except Exception as exc:  # a session whose client left: forget it
                log.debug("dropping a legacy session: %s", exc)
                self._legacy.discard(session)


def to_call_result(message: ToolResultMessage) -> types.CallToolResult:
    """An MCP result from the tool result the host produced (already capped, JSON-safe)."""
    content: list[Any] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            content.append(types.TextContent(type="text", text=_text_of(block.text)))
        elif isinstance(block, ImageBlock):
            content.append(types.ImageContent(type="image", data=block.data, mime_type=block.mime_type))
    return types.CallToolResult(content=content, is_error=message.is_error)


def _text_of(envelope_text: str) -> str:
    """The text a client is shown: the data of a success, the detail of an error, and any truncation note."""
    try:
        envelope = json.loads(envelope_text)
    except ValueError:
        return envelope_text
    if not isinstance(envelope, dict) or "ok" not in envelope:
        return envelope_text
    if envelope["ok"]:
        data = envelope.get("data")
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    else:
        text = envelope.get("detail") or envelope.get("error") or "the tool failed"
        if envelope.get("detail") and envelope.get("error"):
            text = f"{envelope['error']}: {envelope['detail']}"
    note = envelope.get("note")
    return f"{text}\n[{note}]" if note else text


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agentkit-mcp")
    except PackageNotFoundError:  # pragma: no cover - a source tree
        return "0+unknown"
