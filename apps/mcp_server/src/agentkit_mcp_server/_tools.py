"""The tools a server offers, and each call run under the agent's authorization.

A call is run by the host's :class:`~agentkit.host.ToolCaller`, the tool path
of an agent's run: the arguments are parsed and validated, the embedder's
``before_tool_call`` decides, then the hook plugins' ``agentkit_before_tool_call``;
the handler runs under its deadline, and ``agentkit_after_tool_call`` sees the
result. An MCP call is thereby governed exactly as a model's call in an agent is.
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentkit.host import (
    DEFAULT_HOOK_TIMEOUT,
    DEFAULT_MAX_TOOL_RESULT_CHARS,
    DEFAULT_TOOL_TIMEOUT,
    BeforeToolCall,
    PluginHost,
    ToolCaller,
)
from agentkit.plugin_api import SessionInfo, Tool, ToolResultMessage, ToolUseBlock

if TYPE_CHECKING:  # loaded when an embedder adds a resource or a prompt: `agentkit mcp serve` adds none
    from ._catalog import Prompt, Resource, ResourceTemplate

#: The model name hooks see in ``SessionInfo``: no model is involved in a served call.
SERVED_MODEL = "mcp/client"


class ToolServerError(ValueError):
    """A server set up in a way that cannot work; the message names the fix."""


class ToolServer:
    """agentkit tools served to MCP clients, under the same authorization as an agent.

    :param host: the plugins whose tools are served and whose hooks gate every
        call; ``None``: every installed plugin (``PluginHost.discover()``).
    :param tools: the names to serve; ``None``: every tool enabled by default.
        Tools that run arbitrary commands (``requires_authorization``) are
        served only with a ``before_tool_call`` policy.
    :param before_tool_call: the embedder's decision, consulted first for every
        ``tools/call``, as ``Trust.before_tool_call`` is in an agent.
    :param root: the workspace root handlers see; the current directory by default.
    :param tool_options: per-tool options handed to handlers, as in ``AgentConfig``.
    :param tool_timeout: seconds one call may run (a tool's own ``timeout`` wins).
    :param hook_timeout: seconds an authorization or hook may take; a late one blocks.
    :param max_result_chars: the longest result text; longer ones are cut with a note.
    """

    def __init__(
        self,
        host: PluginHost | None = None,
        *,
        tools: Iterable[str] | None = None,
        before_tool_call: BeforeToolCall | None = None,
        root: Path | None = None,
        tool_options: Mapping[str, Mapping[str, Any]] | None = None,
        tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT,
        hook_timeout: float | None = DEFAULT_HOOK_TIMEOUT,
        max_result_chars: int | None = DEFAULT_MAX_TOOL_RESULT_CHARS,
    ) -> None:
        self.host = host if host is not None else PluginHost.discover()
        self.wanted = None if tools is None else list(tools)
        self.before_tool_call = before_tool_call
        self.root = (root or Path.cwd()).resolve()
        self.tool_options = {name: dict(values) for name, values in (tool_options or {}).items()}
        self.tool_timeout = tool_timeout
        self.hook_timeout = hook_timeout
        self.max_result_chars = max_result_chars
        self.session_id = f"mcp-{uuid.uuid4().hex}"
        self._added: dict[str, Tool] = {}
        self._listeners: list[Callable[[], None]] = []
        #: Served beside the tools, registered in code: by URI, by URI template, by name.
        self.resources: dict[str, Resource] = {}
        self.resource_templates: dict[str, ResourceTemplate] = {}
        self.prompts: dict[str, Prompt] = {}
        self._catalog_listeners: list[Callable[[str], None]] = []
        self._lock = threading.Lock()
        self.tools = self._select()
        self._caller = ToolCaller(
            self.host, self.tools, before_tool_call=before_tool_call,
            session=SessionInfo(self.session_id, SERVED_MODEL, self.root), tool_options=self.tool_options,
            tool_timeout=tool_timeout, hook_timeout=hook_timeout, max_result_chars=max_result_chars,
        )

    # -- which tools ----------------------------------------------------------------

    def _select(self) -> dict[str, Tool]:
        available = dict(self.host.tools)
        for name, tool in self._added.items():
            if name in available:
                raise ToolServerError(f"tool {name!r} is also an installed tool; rename the one added in code")
            available[name] = tool
        if self.wanted is None:
            chosen = {name: tool for name, tool in available.items() if tool.default_enabled or name in self._added}
        else:
            unknown = [name for name in self.wanted if name not in available and name not in self._added]
            if unknown:
                raise ToolServerError(f"unknown tool(s) {', '.join(unknown)}; installed: "
                                      f"{', '.join(sorted(available)) or 'none'}")
            chosen = {name: available[name] for name in self.wanted}
            chosen.update(self._added)
        if self.before_tool_call is None:
            unguarded = sorted(name for name, tool in chosen.items() if tool.requires_authorization)
            if unguarded and self.wanted is not None and set(unguarded) & set(self.wanted):
                raise ToolServerError(
                    f"tool(s) {', '.join(unguarded)} run arbitrary commands and no policy is given: "
                    "pass before_tool_call (agentkit mcp serve --policy module:function), or leave them out")
            chosen = {name: tool for name, tool in chosen.items() if not tool.requires_authorization}
        return dict(sorted(chosen.items()))  # a deterministic order, as tools/list SHOULD have

    def add_tool(self, tool: Tool) -> None:
        """Serve ``tool`` (registered in code) too; listening clients are told the list changed."""
        if not isinstance(tool, Tool):
            raise TypeError(f"add_tool takes an agentkit.plugin_api.Tool, not {type(tool).__name__}")
        with self._lock:
            if tool.name in self._added or tool.name in self.host.tools:
                raise ToolServerError(f"a tool named {tool.name!r} is already served; rename it")
            self._added[tool.name] = tool
            self._reselect()

    def remove_tool(self, name: str) -> None:
        """Stop serving a tool added with :meth:`add_tool`; listening clients are told."""
        with self._lock:
            if self._added.pop(name, None) is None:
                raise ToolServerError(f"no tool named {name!r} was added in code")
            self._reselect()

    def add_resource(self, resource: Resource) -> None:
        """Serve ``resource`` at its URI; listening clients are told the resource list changed."""
        from ._catalog import Resource

        self._add_entry("resources", "uri", resource, Resource, "resources")

    def add_resource_template(self, template: ResourceTemplate) -> None:
        """Serve the resources ``template`` matches; listening clients are told the resource list changed."""
        from ._catalog import ResourceTemplate

        self._add_entry("resource_templates", "uri_template", template, ResourceTemplate, "resources")

    def add_prompt(self, prompt: Prompt) -> None:
        """Serve ``prompt``; listening clients are told the prompt list changed."""
        from ._catalog import Prompt

        self._add_entry("prompts", "name", prompt, Prompt, "prompts")

    def _add_entry(self, table: str, field: str, entry: Any, kind: type, what: str) -> None:
        if not isinstance(entry, kind):
            raise TypeError(f"expected an agentkit_mcp_server.{kind.__name__}, not {type(entry).__name__}")
        key = getattr(entry, field)
        with self._lock:
            served = getattr(self, table)
            if key in served:
                raise ToolServerError(f"{key!r} is already served; use another {'name' if field == 'name' else 'URI'}")
            # a new dict, never a changed one: a listing on the serving loop may be iterating the old one
            setattr(self, table, {**served, key: entry})
        for listener in list(self._catalog_listeners):
            listener(what)

    def on_catalog_change(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call ``listener("resources" | "prompts")`` when one is added; returns the unsubscribe function."""
        self._catalog_listeners.append(listener)
        return lambda: self._catalog_listeners.remove(listener)

    def reload(self, host: PluginHost | None = None) -> bool:
        """Take the plugins of ``host`` (default: discover them again); whether the tools changed.

        Installing, removing or disabling a plugin changes what is served:
        clients are told when the served tools differ.
        """
        fresh = host if host is not None else PluginHost.discover()
        with self._lock:
            self.host = self._caller.host = fresh
            return self._reselect()

    def _reselect(self) -> bool:
        before = _fingerprint(self.tools)
        self.tools = self._caller.tools = self._select()
        changed = _fingerprint(self.tools) != before
        if changed:
            for listener in list(self._listeners):
                listener()
        return changed

    def on_change(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` whenever the served tools change; returns the unsubscribe function."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    # -- calls ------------------------------------------------------------------------

    async def call(self, name: str, arguments: Mapping[str, Any] | None) -> ToolResultMessage:
        """Run one call through the agent's authorization and the tool's deadline.

        Every call yields a result: an unknown tool, invalid arguments, a
        block or a failure is an ``is_error`` result. If the awaiting task is
        cancelled (the client cancelled, or the server shuts down), the
        handler sees its cancel token set and is given up on after the
        host's grace; the cancellation then propagates.
        """
        call = ToolUseBlock(id=f"mcp-{uuid.uuid4().hex}", name=name,
                            arguments=json.dumps(dict(arguments or {}), ensure_ascii=False))
        pending = self._caller.start(call)
        try:
            return await pending
        except asyncio.CancelledError:
            pending.cancel("the MCP request was cancelled")
            await _settle(pending.answer)
            raise

    def cancel_all(self, reason: str = "the server is shutting down") -> int:
        """Stop every call in flight (their handlers see the cancel token); how many there were."""
        return self._caller.cancel_all(reason)


async def _settle(answer: asyncio.Future[Any]) -> None:
    """Wait for a stopped call's answer, through further cancellations (it is bounded by the host's stop grace).

    The SDK runs requests in anyio cancel scopes, which cancel the task again at
    every await: only a shielded scope lets the wait go on.
    """
    import anyio

    with anyio.CancelScope(shield=True):
        await asyncio.wait([answer])  # returns, never raises: every call is answered


def _fingerprint(tools: Mapping[str, Tool]) -> list[tuple[str, str, str]]:
    return [(name, tool.description, json.dumps(tool.input_schema, sort_keys=True, default=str))
            for name, tool in tools.items()]

