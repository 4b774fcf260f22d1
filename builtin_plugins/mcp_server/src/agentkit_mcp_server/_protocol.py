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
import collections
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

log = logging.getLogger("agentkit_mcp_server")

SERVER_NAME = "agentkit"
#: Legacy sessions remembered for list-changed notifications.
MAX_LEGACY_SESSIONS = 1024


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
        self.server: Server[Any] = _ListChangingServer(
            name, version=version or _version(),
            on_list_tools=self._list_tools, on_call_tool=self._call_tool,
            on_subscriptions_listen=self.listen,
        )
        self.server.add_notification_handler("notifications/initialized", types.NotificationParams, self._initialized)
        #: Legacy sessions that finished the handshake, newest last: told of list changes directly.
        #: The SDK does not say when an HTTP session ends, so the oldest are forgotten past a bound.
        self._legacy: collections.OrderedDict[int, Any] = collections.OrderedDict()
        self._token: anyio.lowlevel.EventLoopToken | None = None
        self._pending: set[asyncio.Future[None]] = set()
        tools.on_change(self._changed)

    def initialization_options(self) -> InitializationOptions:
        """What a legacy ``initialize`` is answered with: tools, and list-changed notifications."""
        return self.server.create_initialization_options()

    def bind(self) -> None:
        """Note the running event loop, so that changes made from other threads reach clients."""
        self._token = anyio.lowlevel.current_token()

    # -- handlers ---------------------------------------------------------------------

    async def _list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        served = [types.Tool(name=tool.name, description=tool.description, input_schema=tool.input_schema)
                  for tool in self.tools.tools.values()]
        return types.ListToolsResult(tools=served)

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        message = await self.tools.call(params.name, params.arguments)
        return to_call_result(message)

    async def _initialized(self, ctx: Any, params: Any) -> None:
        """A legacy client finished its handshake (once per connection): it is told of list changes from now on."""
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS or ctx.session is None:
            return
        self._legacy[id(ctx.session)] = ctx.session
        while len(self._legacy) > MAX_LEGACY_SESSIONS:
            self._legacy.popitem(last=False)

    # -- list changed -------------------------------------------------------------------

    def _changed(self) -> None:
        """The served tools changed: tell every listening client (from any thread)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # another thread: hand it to the serving loop, if one is running
            if self._token is None:
                return  # not serving yet: a client that connects later lists the new tools anyway
            try:
                anyio.from_thread.run(self.notify_tools_changed, token=self._token)
            except RuntimeError:  # the serving loop has ended: nobody is left to tell
                log.debug("tools changed after the server stopped serving")
            return
        task = asyncio.ensure_future(self.notify_tools_changed())  # the serving loop itself (an embedder's coroutine)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def notify_tools_changed(self) -> None:
        """Send ``tools/list_changed`` to modern listen streams and initialized legacy sessions."""
        await self.bus.publish(ToolsListChanged())
        for key, session in list(self._legacy.items()):
            try:
                await session.send_tool_list_changed()
            except Exception as exc:  # a session whose client left: forget it
                log.debug("dropping a legacy session: %s", exc)
                self._legacy.pop(key, None)


class _ListChangingServer(Server[Any]):
    """The SDK's server, advertising ``tools.listChanged`` to legacy clients on every transport.

    The HTTP session manager and the in-process transport build the legacy
    ``initialize`` answer from the defaults, which advertise no list changes.
    """

    def create_initialization_options(self, notification_options: NotificationOptions | None = None,
                                      *args: Any, **kwargs: Any) -> InitializationOptions:
        options = notification_options or NotificationOptions(tools_changed=True)
        return super().create_initialization_options(options, *args, **kwargs)


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
