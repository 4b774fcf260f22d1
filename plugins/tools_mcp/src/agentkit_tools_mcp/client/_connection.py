"""One configured MCP server: connect in its era, list its tools, call them within the entry's limits.

The protocol, the transports, the era probe and the ``input_required`` loop
are the official SDK's (``mcp.Client``). What this adds is the governance:
the reduced environment and resolved ``${VAR}`` at spawn, per-call deadlines,
a per-session call limit, bounded reconnects after a server died or hung,
sampling refused unless the entry allows it, and an audit record per call.

A connection lives in one task that holds the SDK client open
(``_hold``); when a call finds the server dead or hung, that task is told to
close (which ends the server process) and the next call reconnects, at most
``reconnect_limit`` times. A server that breaks the protocol (a line that is
not JSON-RPC, a malformed result) fails the calls it concerns at once with a
:class:`ProtocolFault`, and keeps its connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

import mcp.types as types
from mcp import Client, InputRequiredRoundsExceededError, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from .._config import ServerConfig, resolve, resolved_table
from ._embedder import (
    MAX_INPUT_ROUNDS,
    InputRequest,
    Reporter,
    arguments_sha256,
    ask,
    audit,
)
from ._environment import server_environment
from ._listing import ToolListing
from ._output_check import OutputCheck
from ._screen import Screen, one_line, screened
from ._watchdog import WATCHDOG

CLIENT_INFO = types.Implementation(name="agentkit", version="0.1")

# The SDK logs what it meets (a line it cannot parse, with its traceback) and leaves the handler
# to the application; unconfigured, Python prints those on stderr. Its records go where the
# embedder's logging sends them, as the host's own do (agentkit.host._log): what the user must
# know is told as the call's error, in one line.
logging.getLogger("mcp").addHandler(logging.NullHandler())

#: The SDK's codes for "the peer is gone" and "no answer in time": the connection is not usable.
_BROKEN_CODES = frozenset({types.CONNECTION_CLOSED, types.REQUEST_TIMEOUT})
#: How long a connection that is being dropped may take to end its server (the SDK escalates to a kill).
_CLOSE_GRACE_S = 10.0
_LIST_PAGE_CAP = 100
#: What a call the watchdog ended was ended for (see :meth:`ServerConnection._check_deadlines`).
_TIMED_OUT = "the deadline"


class ServerUnavailable(Exception):
    """The server cannot be reached (now or any more); the message says why, for the model."""


class ProtocolFault(Exception):
    """The server broke the protocol during a call (a line that is not JSON-RPC, a malformed result)."""


class ServerConnection:
    """The live connection to one server, reconnected within its entry's bounds. Async, one event loop."""

    def __init__(self, config: ServerConfig, environ: Mapping[str, str] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self._given_environ = environ  # None: the process's environment as it is at each spawn
        self._client: Client | None = None
        self._holder: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._connecting: asyncio.Lock | None = None
        self.calls = 0
        self.attempts = 0
        self.reconnects = 0
        self.connects = 0
        self.protocol_version: str | None = None
        self.server_info: Any = None
        self.tools_changed: asyncio.Event | None = None
        #: The tool list as last read, and when it must be read again (``ttlMs``).
        self.listing = ToolListing(clock)
        self._relisting: asyncio.Lock | None = None
        self._calls_in_flight: list[_AskingCall] = []
        #: Calls in flight that a protocol fault or their deadline ended, by task: why (see
        #: :meth:`_fail_calls_in_flight`, :meth:`_check_deadlines`).
        self._faults: dict[asyncio.Task[Any], str] = {}
        #: The loop the watchdog will look at the calls in flight on, and when (``None``: it will not).
        self._watched: tuple[asyncio.AbstractEventLoop, float] | None = None
        self._last_failure: str | None = None
        #: ``era`` and ``protocol_version`` for the audit records, once connected (made once, read every call).
        self._era_fields: dict[str, Any] = {}
        #: Tools taken out of the server's lists (unusable schemas), one line each, until read.
        self.screen = Screen()
        #: The output-schema check of the open connection's session (its quick passes are counted).
        self.output_check: OutputCheck | None = None

    @property
    def era(self) -> str | None:
        if self.protocol_version is None:
            return None
        return "modern" if self.protocol_version in MODERN_PROTOCOL_VERSIONS else "legacy"

    # -- connecting -------------------------------------------------------------------

    def _server_argument(self) -> Any:
        where = f"{self.config.source}: server {self.config.name!r}"
        environ = dict(os.environ if self._given_environ is None else self._given_environ)
        allowed = self.config.allowed_variables  # a project's entry: only what the user's file allows it
        if self.config.command is not None:
            parameters = StdioServerParameters(
                command=resolve(self.config.command, environ, f"{where} command", allowed),
                args=[resolve(arg, environ, f"{where} args", allowed) for arg in self.config.args],
                env=server_environment(environ, resolved_table(self.config.env, environ, f"{where} env", allowed)),
            )
            return screened(stdio_client(parameters, errlog=_server_log()), self.screen)
        from ._http import http_transport  # only HTTP servers pay for the HTTP client

        url = resolve(self.config.url or "", environ, f"{where} url", allowed)
        return screened(http_transport(url, resolved_table(self.config.headers, environ, f"{where} headers", allowed)),
                        self.screen)

    def _client_for(self, server: Any) -> Client:
        return Client(
            server,
            mode=self.config.era,
            client_info=CLIENT_INFO,
            read_timeout_seconds=self.config.connect_timeout_s,
            sampling_callback=self._sample if self.config.allow_sampling else None,
            elicitation_callback=self._elicit,
            message_handler=self._on_message,
            input_required_max_rounds=MAX_INPUT_ROUNDS,
        )

    async def connect(self) -> None:
        """Open the connection (spawn, era probe or handshake) within ``connect_timeout_s``, if it is not open."""
        await self._usable_client()

    async def _usable_client(self) -> Client:
        """The open client; opened here when needed, the first time free and then within ``reconnect_limit``.

        Under one lock, so calls racing a crash open one new connection, counted once.
        """
        if self._client is not None and self._connecting is not None and not self._connecting.locked():
            return self._client  # open, and nobody reopening it: the lock would only hand it back (every call)
        if self._connecting is None:
            self._connecting = asyncio.Lock()
            self.tools_changed = asyncio.Event()
        async with self._connecting:
            if self._client is not None:
                return self._client
            if self.attempts > 0:
                if self.reconnects >= self.config.reconnect_limit:
                    raise ServerUnavailable(
                        f"MCP server {self.config.name!r} is unavailable: it failed ({self._last_failure}) and "
                        f"was reconnected {self.reconnects} time(s), the limit (reconnect_limit)"
                    )
                self.reconnects += 1
            self.attempts += 1
            return await self._open()

    async def _open(self) -> Client:
        server = self._server_argument()  # a configuration error propagates as it is
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._holder = asyncio.create_task(self._hold(self._client_for(server), ready, self._stop))
        # Given up on, ``ready`` still learns how the attempt ended; that is read here, never left
        # for the loop to print as "Future exception was never retrieved".
        ready.add_done_callback(lambda future: future.cancelled() or future.exception())
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.config.connect_timeout_s)
        except TimeoutError:
            self._last_failure = "it did not finish connecting in time"
            await self._drop()
            raise ServerUnavailable(
                f"MCP server {self.config.name!r} did not finish connecting within "
                f"{self.config.connect_timeout_s:g} s (connect_timeout_s)"
            ) from None
        except Exception as exc:
            self._last_failure = _describe(exc)
            await self._drop()
            raise ServerUnavailable(f"MCP server {self.config.name!r} could not be reached: {_describe(exc)}") from exc
        assert self._client is not None
        self.connects += 1
        self.listing.invalidate()  # the list is per connection: a new one may reach a server with other tools
        audit("connect", self._connection_fields({"server": self.config.name}))
        return self._client

    async def _hold(self, client: Client, ready: asyncio.Future[None], stop: asyncio.Event) -> None:
        try:
            async with client:
                self.output_check = OutputCheck(client.session)
                self.output_check.install()
                self._client = client
                self.protocol_version = client.protocol_version
                self.server_info = client.server_info
                self._era_fields = {} if self.protocol_version is None else {
                    "era": self.era, "protocol_version": self.protocol_version}
                async with asyncio.TaskGroup() as group:
                    if self.era == "modern" and _lists_change(client):
                        group.create_task(self._listen(client))
                    if not ready.done():
                        ready.set_result(None)
                    await stop.wait()
                    raise _Closing
        except* _Closing:
            pass
        except* BaseException as group:
            if not ready.done():
                ready.set_exception(group.exceptions[0] if len(group.exceptions) == 1 else group)
        finally:
            if self._client is client:  # a late end of an old connection never clears a newer one
                self._client = None

    async def _listen(self, client: Client) -> None:
        # A modern server tells list changes only to a subscription; a lost one just leaves the TTL to refresh.
        with contextlib.suppress(Exception):
            async with client.listen(tools_list_changed=True) as subscription:
                async for _event in subscription:
                    self._mark_tools_changed()

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            if self.config.command is not None:  # stdio's transport hands on a line it could not parse
                self._fail_calls_in_flight(f"the server sent a line that is not JSON-RPC ({one_line(str(message))})")
            return
        root = getattr(message, "root", message)
        if isinstance(root, types.ToolListChangedNotification):
            self._mark_tools_changed()

    def _fail_calls_in_flight(self, reason: str) -> None:
        """End every call waiting on this server now: its answer may be the line that was lost.

        Waiting for ``timeout_s`` would only delay the same end. The connection
        is kept; a server that keeps sending such lines fails each call so.
        """
        for call in self._calls_in_flight:
            if call.task is not None and call.task not in self._faults:
                self._faults[call.task] = reason
                call.task.cancel()

    def _mark_tools_changed(self) -> None:
        if self.tools_changed is not None:
            self.tools_changed.set()

    async def _drop(self) -> None:
        """End the connection (and its server process); the next call reconnects."""
        holder, stop = self._holder, self._stop
        self._holder = self._stop = None
        self._client = None
        if stop is not None:
            stop.set()
        if holder is not None:
            try:
                await asyncio.wait_for(holder, _CLOSE_GRACE_S)
            except (TimeoutError, Exception):
                holder.cancel()

    async def close(self) -> None:
        await self._drop()

    # -- listing and calling ----------------------------------------------------------

    async def list_tools(self) -> list[types.Tool]:
        """Every tool the server lists, page by page; the SDK serves a fresh cached page (``ttlMs``/``cacheScope``).

        A listing made stale by a list-changed notice or an expired ``ttlMs``
        is read from the server, never from a cache.
        """
        client = await self._usable_client()
        refresh = self.listing_is_stale()
        if self.tools_changed is not None:
            self.tools_changed.clear()
        pages: list[types.ListToolsResult] = []
        cursor: str | None = None
        for _ in range(_LIST_PAGE_CAP):
            page = await client.list_tools(cursor=cursor, cache_mode="refresh" if refresh else "use")
            pages.append(page)
            cursor = page.next_cursor
            if cursor is None:
                break
        self.listing.record(pages, complete=cursor is None, hints_apply=self.era == "modern")
        return [tool for page in pages for tool in page.tools]

    def listing_is_stale(self) -> bool:
        """Whether the tool list must be read again: a list-changed notice came, or its ``ttlMs`` ran out."""
        return (self.tools_changed is not None and self.tools_changed.is_set()) or self.listing.expired()

    async def relist(self) -> list[types.Tool] | None:
        """List the tools again if the listing is stale; ``None`` when it is not (or a racing call just did).

        Calls racing here share one ``tools/list``. A failure keeps the last
        listing, to be tried again after ``MIN_RELIST_INTERVAL_S``, and propagates.
        """
        if self._relisting is None:
            self._relisting = asyncio.Lock()
        async with self._relisting:
            if not self.listing_is_stale():
                return None
            try:
                return await self.list_tools()
            except Exception:
                self.listing.retry_later()
                raise

    async def call_tool(self, tool: str, arguments: dict[str, Any], qualified_name: str,
                        report: Reporter | None = None) -> Any:
        """``tools/call`` within the entry's deadline and limits; the SDK result, or an exception saying why not.

        The call's audit record also goes to ``report`` (the run's trail), called on this loop.
        """
        record = {"tool": tool, "qualified_name": qualified_name, "arguments_sha256": arguments_sha256(arguments)}
        if self.calls >= self.config.per_session_call_limit:
            self._audit_call(report, record, True, "per_session_call_limit reached")
            raise ServerUnavailable(
                f"MCP server {self.config.name!r} allows {self.config.per_session_call_limit} call(s) per session "
                "(per_session_call_limit) and they are used up"
            )
        self.calls += 1
        client = self._client
        if client is None or self._connecting is None or self._connecting.locked():  # not open, or reopening
            try:
                client = await self._usable_client()
            except ServerUnavailable as exc:
                self._audit_call(report, record, True, str(exc))
                raise
        task = asyncio.current_task()
        # The server's questions during the call are attributed to it (see _asking); a try/finally rather
        # than a context manager: this is on every call.
        asking = _AskingCall(report, tool, qualified_name, task, time.monotonic() + self.config.timeout_s)
        token = _asking_call.set(asking)
        self._calls_in_flight.append(asking)
        watched = self._watched
        if watched is None or watched[0] is not asyncio.get_running_loop():
            self._watch(asking.deadline)
        try:
            try:
                # The deadline is the watchdog's (_check_deadlines), not the SDK's timer per request: no
                # timer is made and cancelled per call, nor kept on the loop (decision 0064).
                result = await client.call_tool(tool, arguments, read_timeout_seconds=math.inf)
            finally:
                self._calls_in_flight.remove(asking)
                _asking_call.reset(token)
        except asyncio.CancelledError:
            fault = None if task is None else self._faults.pop(task, None)
            if task is None or fault is None:  # the agent gave up on the call (its deadline, an abort): it was made
                self._audit_call(report, record, True, "cancelled")
                raise
            task.uncancel()  # the cancel was ours, to end the wait
            if fault is _TIMED_OUT:
                await self._fail("it did not answer in time", client)
                self._audit_call(report, record, True, "timeout")
                raise self._timed_out(tool) from None
            self._audit_call(report, record, True, "protocol fault")
            raise ProtocolFault(f"MCP server {self.config.name!r}: {fault}, while {tool!r} waited for its answer; "
                                "the call is ended") from None
        except MCPError as exc:
            if exc.code == types.REQUEST_TIMEOUT:  # the SDK's own timer (the connection's read timeout)
                await self._fail("it did not answer in time", client)
                self._audit_call(report, record, True, "timeout")
                raise self._timed_out(tool) from None
            if exc.code in _BROKEN_CODES:
                await self._fail(_describe(exc), client)
                self._audit_call(report, record, True, "disconnected")
                raise ServerUnavailable(f"MCP server {self.config.name!r} disconnected: {_describe(exc)}") from exc
            self._audit_call(report, record, True, f"error {exc.code}")
            raise
        except InputRequiredRoundsExceededError as exc:  # an endless answer, a good connection
            self._audit_call(report, record, True, type(exc).__name__)
            raise
        except ValueError as exc:  # a malformed answer (pydantic's ValidationError), a good connection
            self._audit_call(report, record, True, type(exc).__name__)
            raise ProtocolFault(f"MCP server {self.config.name!r} sent a malformed result for {tool!r}: "
                                f"{one_line(str(exc))}") from exc
        except Exception as exc:  # the transport failed under the call
            await self._fail(_describe(exc), client)
            self._audit_call(report, record, True, type(exc).__name__)
            raise ServerUnavailable(f"MCP server {self.config.name!r} failed during {tool!r}: {_describe(exc)}") from exc
        self._audit_call(report, record, bool(result.is_error), None)
        return result

    def _timed_out(self, tool: str) -> ServerUnavailable:
        return ServerUnavailable(f"MCP server {self.config.name!r} did not answer {tool!r} within "
                                 f"{self.config.timeout_s:g} s (timeout_s); the connection is reset")

    def _watch(self, when: float) -> None:
        """Have the watchdog look at the calls in flight at ``when`` (monotonic seconds), on this loop."""
        loop = asyncio.get_running_loop()
        self._watched = (loop, when)
        WATCHDOG.at(when, loop, self._check_deadlines)

    def _check_deadlines(self) -> None:
        """End the calls past their deadline (the server did not answer in time), as a timer each would.

        On the connection's loop, when the earliest deadline the watchdog was given fell due; then
        the watchdog is given the next one, if a call is still in flight. A call whose embedder is
        answering the server's question is off the clock (see :meth:`_ask`).
        """
        self._watched = None
        now, upcoming = time.monotonic(), math.inf
        for call in self._calls_in_flight:
            if call.answering:
                continue
            if call.deadline <= now:
                if call.task is not None and call.task not in self._faults:
                    self._faults[call.task] = _TIMED_OUT
                    call.task.cancel()
            else:
                upcoming = min(upcoming, call.deadline)
        if upcoming < math.inf:
            self._watch(upcoming)

    async def _fail(self, reason: str, client: Client) -> None:
        """Drop the connection ``client`` belongs to; a call that failed on an older one drops nothing."""
        self._last_failure = reason
        if self._client is client:
            await self._drop()

    def _audit_call(self, report: Reporter | None, record: dict[str, Any], is_error: bool, detail: str | None) -> None:
        fields = {"server": self.config.name, **record, "is_error": is_error, **self._era_fields}
        if detail is not None:
            fields["detail"] = detail
        audit("call", fields, report)

    def _connection_fields(self, fields: dict[str, Any]) -> dict[str, Any]:
        """``fields`` with the connection's era and version, when it has connected."""
        fields.update(self._era_fields)
        return fields

    # -- the server's questions -------------------------------------------------------

    def _asking(self) -> _AskingCall | None:
        """The call a question belongs to: the one whose task asks (an ``input_required`` round), else the
        only call in flight (a legacy server's own request arrives on the session's task); ``None`` when
        several are, as nothing says which one asked: the records then go only to the sink or log."""
        call = _asking_call.get()
        if call is None and len(self._calls_in_flight) == 1:
            call = self._calls_in_flight[0]
        return call

    def _audit_question(self, kind: str, method: str, question: Mapping[str, Any], is_error: bool,
                        detail: str | None) -> None:
        call = self._asking()
        fields: dict[str, Any] = {"server": self.config.name}
        if call is not None:
            fields["tool"], fields["qualified_name"] = call.tool, call.qualified_name
        fields["is_error"] = is_error
        audit(kind, self._connection_fields({**fields, "detail": detail or method,
                                             "request_sha256": arguments_sha256(question)}),
              call.report if call else None)

    async def _elicit(self, context: Any, params: Any) -> Any:
        answer = await self._ask("elicitation/create", params)
        if answer is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult.model_validate(answer)

    async def _sample(self, context: Any, params: Any) -> Any:
        # Only installed when the entry sets allow_sampling; otherwise the SDK refuses and declares no capability.
        answer = await self._ask("sampling/createMessage", params)
        self._audit_question("sampling", "sampling/createMessage", _question(params), answer is None,
                             None if answer else "no input handler set")
        if answer is None:
            return types.ErrorData(code=types.INVALID_REQUEST, message="the client has no model to sample with")
        return types.CreateMessageResult.model_validate(answer)

    async def _ask(self, method: str, params: Any) -> Mapping[str, Any] | None:
        data = _question(params)
        # A question asked on the calling task comes between two input_required rounds: the server is not
        # working, and the SDK's timer per round was not running, so the call is off the clock until it is
        # answered, and the next round has its own timeout_s. A question a legacy server asks during its
        # one round (on the session's task) leaves the round's clock running, as the SDK's timer did.
        between_rounds = _asking_call.get()
        if between_rounds is not None:
            between_rounds.answering += 1
        try:
            answer = await ask(InputRequest(self.config.name, method, data))
        finally:
            if between_rounds is not None:
                between_rounds.answering -= 1
                if not between_rounds.answering:
                    between_rounds.deadline = time.monotonic() + self.config.timeout_s
                    watched = self._watched
                    if watched is None or watched[0] is not asyncio.get_running_loop() \
                            or watched[1] > between_rounds.deadline:  # else the watchdog looks in time
                        self._watch(between_rounds.deadline)
        self._audit_question("input", method, data, answer is None, None)
        return answer


class _AskingCall:
    """A ``tools/call`` in flight, to which the server's questions are attributed.

    A plain class: one is made per call, and a frozen dataclass's ``__init__``
    (an ``object.__setattr__`` per field) costs several times this one's.
    """

    __slots__ = ("answering", "deadline", "qualified_name", "report", "task", "tool")

    def __init__(self, report: Reporter | None, tool: str, qualified_name: str,
                 task: asyncio.Task[Any] | None = None, deadline: float = math.inf) -> None:
        self.report, self.tool, self.qualified_name = report, tool, qualified_name
        #: The task waiting for the answer, which a protocol fault or the deadline ends.
        self.task = task
        #: When (``time.monotonic()``) the server must have answered; questions being answered (off the clock).
        self.deadline, self.answering = deadline, 0


#: The call the current task is making: the SDK asks ``input_required`` questions on the caller's task.
_asking_call: contextvars.ContextVar[_AskingCall | None] = contextvars.ContextVar("agentkit_mcp_asking_call",
                                                                                   default=None)


def _question(params: Any) -> dict[str, Any]:
    """A server's question as JSON data, without its ``_meta``."""
    data = params.model_dump(by_alias=True, mode="json", exclude_none=True) if params is not None else {}
    data.pop("_meta", None)
    return data


class _Closing(Exception):
    """Raised inside the holder to leave the SDK client's context on purpose."""


def _lists_change(client: Client) -> bool:
    tools = client.server_capabilities.tools
    return bool(tools and tools.list_changed)


def _server_log() -> Any:
    """Where a stdio server's stderr goes: ours, or the process's own when ours is not a file (captured)."""
    for stream in (sys.stderr, sys.__stderr__):
        try:
            if stream is not None:
                stream.fileno()
                return stream
        except (AttributeError, OSError, ValueError):
            continue
    return subprocess.DEVNULL


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _describe(exc.exceptions[0])
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 300 else text[:300] + "..."
