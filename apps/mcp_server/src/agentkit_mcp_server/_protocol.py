"""A :class:`ToolServer` as an MCP server of the official SDK, answering both eras.

The SDK's low-level ``Server`` owns the protocol: the era a client opens
with (the 2026-07-28 envelope or the ``initialize`` handshake), validation,
error codes, cache hints and ``subscriptions/listen``. This module answers
the tools, resources, prompts and completions of the tool server, ends a
round with ``input_required`` when a handler waits for the client (see
:mod:`._call`), and tells clients when a list changes: modern clients on
their listen streams, legacy sessions with ``notifications/*/list_changed``.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import functools
import inspect
import json
import logging
import warnings
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agentkit.plugin_api import ImageBlock, TextBlock, ToolResultMessage

from ._call import (
    INVALID_PARAMS,
    InputRequired,
    MissingCapability,
    ServedCall,
    bind,
    new_state_key,
    unbind,
)
from ._pages import DEFAULT_PAGE_SIZE, page
from ._tools import ToolServer

log = logging.getLogger("agentkit_mcp_server")

SERVER_NAME = "agentkit"
#: Legacy sessions remembered for list-changed notifications.
MAX_LEGACY_SESSIONS = 1024
#: The most completion values one answer carries (the spec's limit).
MAX_COMPLETIONS = 100
#: What each kind of list change is, for modern listen streams and for legacy sessions.
_CHANGES: dict[str, tuple[Callable[[], Any], str]] = {
    "tools": (ToolsListChanged, "send_tool_list_changed"),
    "resources": (ResourcesListChanged, "send_resource_list_changed"),
    "prompts": (PromptsListChanged, "send_prompt_list_changed"),
}


class MCPToolServer:
    """The MCP face of a :class:`ToolServer`: one SDK ``Server`` for every transport.

    :param tools: what is served, and how calls are authorized.
    :param name: the ``serverInfo`` name clients see.
    :param version: the ``serverInfo`` version clients see.
    :param page_size: the most items one page of ``tools/list``, ``resources/list``,
        ``resources/templates/list`` or ``prompts/list`` holds; the rest follow by cursor.
    :raises ValueError: ``page_size`` below 1.
    """

    def __init__(self, tools: ToolServer, *, name: str = SERVER_NAME, version: str = "",
                 page_size: int = DEFAULT_PAGE_SIZE) -> None:
        if page_size < 1:
            raise ValueError(f"page_size must be at least 1, not {page_size}")
        self.tools = tools
        self.page_size = page_size
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self.bus)
        with warnings.catch_warnings():  # logging is deprecated by 2026-07-28, and still served to legacy clients
            warnings.simplefilter("ignore")
            self.server: Server[Any] = self._sdk_server(name, version or _version())
        self.server.add_notification_handler("notifications/initialized", types.NotificationParams, self._initialized)
        #: Legacy sessions that finished the handshake, newest last: told of list changes directly.
        #: The SDK does not say when an HTTP session ends, so the oldest are forgotten past a bound.
        self._legacy: collections.OrderedDict[int, Any] = collections.OrderedDict()
        #: The level each legacy connection set with ``logging/setLevel`` (bounded alike), keyed by
        #: its handshake's parameters: one object per connection, where each request gets its own session.
        self._log_levels: collections.OrderedDict[int, tuple[Any, str]] = collections.OrderedDict()
        self._token: anyio.lowlevel.EventLoopToken | None = None
        self._pending: set[asyncio.Future[None]] = set()
        #: Seals the answers kept in ``requestState`` between rounds (valid in this process only).
        self._state_key = new_state_key()
        tools.on_change(self._changed)
        tools.on_catalog_change(self._changed)

    def _sdk_server(self, name: str, version: str) -> Server[Any]:
        return _ListChangingServer(
            name, version=version,
            on_list_tools=self._list_tools, on_call_tool=self._call_tool,
            on_list_resources=self._list_resources, on_list_resource_templates=self._list_resource_templates,
            on_read_resource=self._read_resource, on_subscribe_resource=self._accept,
            on_unsubscribe_resource=self._accept, on_list_prompts=self._list_prompts,
            on_get_prompt=self._get_prompt, on_completion=self._complete,
            on_set_logging_level=self._set_log_level, on_subscriptions_listen=self.listen,
        )

    def initialization_options(self) -> InitializationOptions:
        """What a legacy ``initialize`` is answered with: tools, and list-changed notifications."""
        return self.server.create_initialization_options()

    def bind(self) -> None:
        """Note the running event loop, so that changes made from other threads reach clients."""
        self._token = anyio.lowlevel.current_token()

    # -- handlers ---------------------------------------------------------------------

    async def _list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        listed, following = self._page("tools", self.tools.tools, params)
        served = [types.Tool(name=tool.name, description=tool.description, input_schema=tool.input_schema)
                  for tool in listed]
        return types.ListToolsResult(tools=served, next_cursor=following)

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        call = self._served(ctx, "tools/call", params.name, params.arguments, params)
        token = bind(call)
        try:
            message = await self.tools.call(params.name, params.arguments)
        finally:
            unbind(token)
        return _finish(call) or to_call_result(message, call.content)

    async def _list_resources(self, ctx: Any, params: Any) -> types.ListResourcesResult:
        listed, following = self._page("resources", self.tools.resources, params)
        return types.ListResourcesResult(next_cursor=following, resources=[
            types.Resource(uri=r.uri, name=r.name, description=r.description, mime_type=r.mime_type)
            for r in listed])

    async def _list_resource_templates(self, ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        listed, following = self._page("resource_templates", self.tools.resource_templates, params)
        return types.ListResourceTemplatesResult(next_cursor=following, resource_templates=[
            types.ResourceTemplate(uri_template=t.uri_template, name=t.name, description=t.description,
                                   mime_type=t.mime_type)
            for t in listed])

    async def _read_resource(self, ctx: Any, params: types.ReadResourceRequestParams) -> Any:
        uri = str(params.uri)
        resource = self.tools.resources.get(uri)
        if resource is not None:
            read, mime_type = resource.read, resource.mime_type
        else:
            template, variables = _template_for(self.tools.resource_templates.values(), uri)
            if template is None:
                raise MCPError(INVALID_PARAMS, f"Resource not found: {uri}", {"uri": uri})
            read, mime_type = functools.partial(template.read, variables), template.mime_type
        call = self._served(ctx, "resources/read", uri, None, params)
        body = await _run_in(call, read)
        return _finish(call) or types.ReadResourceResult(contents=_contents(uri, mime_type, body))

    async def _list_prompts(self, ctx: Any, params: Any) -> types.ListPromptsResult:
        listed, following = self._page("prompts", self.tools.prompts, params)
        return types.ListPromptsResult(next_cursor=following, prompts=[
            types.Prompt(name=p.name, description=p.description, arguments=[
                types.PromptArgument(name=a.name, description=a.description, required=a.required)
                for a in p.arguments])
            for p in listed])

    async def _get_prompt(self, ctx: Any, params: types.GetPromptRequestParams) -> Any:
        prompt = self.tools.prompts.get(params.name)
        if prompt is None:
            raise MCPError(INVALID_PARAMS, f"unknown prompt {params.name!r}; prompts/list names the served ones")
        arguments = dict(params.arguments or {})
        missing = [a.name for a in prompt.arguments if a.required and a.name not in arguments]
        if missing:
            raise MCPError(INVALID_PARAMS, f"prompt {prompt.name!r} needs the argument(s) {', '.join(missing)}")
        call = self._served(ctx, "prompts/get", prompt.name, arguments, params)
        messages = await _run_in(call, lambda: prompt.render(arguments))
        return _finish(call) or types.GetPromptResult(description=prompt.description or None, messages=[
            types.PromptMessage(role="user", content=types.TextContent(type="text", text=m)) if isinstance(m, str)
            else m for m in messages or []])

    async def _complete(self, ctx: Any, params: types.CompleteRequestParams) -> types.CompleteResult:
        ref = params.ref
        target = (self.tools.prompts.get(ref.name) if ref.type == "ref/prompt"
                  else self.tools.resource_templates.get(ref.uri))
        context = dict(params.context.arguments or {}) if params.context is not None else {}
        values = list(target.complete(params.argument.name, params.argument.value, context)
                      if target is not None and target.complete is not None else [])
        return types.CompleteResult(completion=types.Completion(
            values=values[:MAX_COMPLETIONS], total=len(values), has_more=len(values) > MAX_COMPLETIONS))

    async def _accept(self, ctx: Any, params: Any) -> types.EmptyResult:
        """Resource subscriptions: accepted (nothing announces new contents yet)."""
        return types.EmptyResult()

    async def _set_log_level(self, ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        """A legacy session's level: its calls' log messages below it are not sent."""
        handshake = ctx.session.client_params
        self._log_levels[id(handshake)] = (handshake, params.level)  # held, so that its id stays its own
        self._log_levels.move_to_end(id(handshake))
        while len(self._log_levels) > MAX_LEGACY_SESSIONS:
            self._log_levels.popitem(last=False)
        return types.EmptyResult()

    def _page(self, kind: str, items: Any, params: Any) -> tuple[list[Any], str | None]:
        return page(kind, items, getattr(params, "cursor", None), self.page_size)

    def _served(self, ctx: Any, method: str, name: str, arguments: Any, params: Any) -> ServedCall:
        return ServedCall(ctx, method=method, name=name, arguments=arguments,
                          input_responses=getattr(params, "input_responses", None),
                          request_state=getattr(params, "request_state", None), key=self._state_key,
                          legacy_log_level=self._legacy_log_level(ctx))

    def _legacy_log_level(self, ctx: Any) -> str | None:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return None
        handshake = ctx.session.client_params
        held = self._log_levels.get(id(handshake))
        return held[1] if held is not None and held[0] is handshake else None

    async def _initialized(self, ctx: Any, params: Any) -> None:
        """A legacy client finished its handshake (once per connection): it is told of list changes from now on."""
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS or ctx.session is None:
            return
        self._legacy[id(ctx.session)] = ctx.session
        while len(self._legacy) > MAX_LEGACY_SESSIONS:
            self._legacy.popitem(last=False)

    # -- list changed -------------------------------------------------------------------

    def _changed(self, kind: str = "tools") -> None:
        """The served tools (resources, prompts) changed: tell every listening client (from any thread)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # another thread: hand it to the serving loop, if one is running
            if self._token is None:
                return  # not serving yet: a client that connects later lists the new tools anyway
            try:
                anyio.from_thread.run(self.notify_changed, kind, token=self._token)
            except RuntimeError:  # the serving loop has ended: nobody is left to tell
                log.debug("tools changed after the server stopped serving")
            return
        task = asyncio.ensure_future(self.notify_changed(kind))  # the serving loop itself (an embedder's coroutine)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def notify_tools_changed(self) -> None:
        """Send ``tools/list_changed`` to modern listen streams and initialized legacy sessions."""
        await self.notify_changed("tools")

    async def notify_changed(self, kind: str) -> None:
        """Send ``KIND/list_changed`` (``tools``, ``resources``, ``prompts``) to every listening client."""
        event, send = _CHANGES[kind]
        await self.bus.publish(event())
        for key, session in list(self._legacy.items()):
            try:
                await getattr(session, send)()
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
        options = notification_options or NotificationOptions(
            tools_changed=True, resources_changed=True, prompts_changed=True)
        return super().create_initialization_options(options, *args, **kwargs)


def _template_for(templates: Any, uri: str) -> tuple[Any, dict[str, Any]]:
    """The first template that serves ``uri`` and the values it gives; ``(None, {})`` when none does.

    A URI a template matches but refuses (a value that climbs out of its path)
    ends the search, as in the SDK's server: no later, looser template gets it.
    """
    if not templates:
        return None, {}
    from ._catalog import UnsafeValue  # a template was added in code, so the catalog is loaded

    for template in templates:
        try:
            variables = template.match(uri)
        except UnsafeValue:
            return None, {}
        if variables is not None:
            return template, variables
    return None, {}


def _finish(call: ServedCall) -> types.InputRequiredResult | None:
    """What ends a round instead of the result: a protocol error, or the client's input still missing."""
    if call.error is not None:
        raise call.error
    return call.input_required() if call.pending is not None else None


async def _run_in(call: ServedCall, function: Callable[[], Any]) -> Any:
    """``function()`` (sync or async) as the handler of ``call``; ``None`` when the round ends waiting."""
    token = bind(call)
    try:
        value = function()
        return await value if inspect.isawaitable(value) else value
    except (InputRequired, MissingCapability):
        return None
    finally:
        unbind(token)


def _contents(uri: str, mime_type: str | None, body: Any) -> list[Any]:
    """The contents a reader's text, bytes or own contents make."""
    if isinstance(body, str):
        return [types.TextResourceContents(uri=uri, mime_type=mime_type, text=body)]
    if isinstance(body, bytes | bytearray):
        return [types.BlobResourceContents(uri=uri, mime_type=mime_type, blob=base64.b64encode(body).decode())]
    return list(body) if isinstance(body, list | tuple) else [body]


def to_call_result(message: ToolResultMessage, extra: list[Any] | None = None) -> types.CallToolResult:
    """An MCP result from the tool result the host produced (already capped, JSON-safe), then ``extra`` blocks."""
    content: list[Any] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            content.append(types.TextContent(type="text", text=_text_of(block.text)))
        elif isinstance(block, ImageBlock):
            content.append(types.ImageContent(type="image", data=block.data, mime_type=block.mime_type))
    content.extend(extra or ())
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
        return version("agentkit-tools-mcp")
    except PackageNotFoundError:  # pragma: no cover - a source tree
        return "0+unknown"
