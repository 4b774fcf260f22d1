"""The audit trail: what a run did, for whoever must answer for it.

Each run produces, in order, one ``session_start`` record, one ``tool_call``
record per tool call as its result is settled, and one ``session_end`` record,
on every exit (completed, error, aborted, max turns, a cancelled task). A tool
call's record carries its name, the SHA-256 of its argument bytes (never the
arguments), the decision (``allowed``, ``blocked`` and by whom, or
``not_asked`` when the call never reached authorization) and ``is_error``.

A tool's plugin adds records of its own through ``ToolContext.audit`` (the
MCP client: one ``mcp.call`` per ``tools/call``), named ``<plugin>.<kind>``
and stamped by the host, so no plugin can forge the host's records; and
``session_start`` lists the MCP servers behind the agent's tools, as the
plugins that reach them describe them (``agentkit_mcp_servers``).

Records go to the embedder's sink (``AgentConfig.audit``) and, when the agent
has a session, into its log as ``custom`` entries of type ``audit``. A sink
that raises is reported in the run's ``problems`` and the run goes on.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import logging
import os
import re
import reprlib
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from agentkit.plugin_api import AssistantMessage, Message, ToolResultMessage, ToolUseBlock
from agentkit.plugin_api._dataclass import dataclass

from .errors import ConfigError
from .sessions._entries import encode_line, now

_log = logging.getLogger("agentkit.host")


class SessionTrail(Protocol):
    """Where a run's audit records go in its session (the run's ``RunLog``): named by what it does, not imported."""

    def audit(self, record: dict[str, Any]) -> None: ...

    def sync(self) -> None: ...

#: The ``custom_type`` of the session entries that carry audit records.
AUDIT_ENTRY = "audit"

SESSION_START = "session_start"
TOOL_CALL = "tool_call"
SESSION_END = "session_end"
#: A plugin's own kinds and field names: lowercase identifiers (the host adds ``<plugin>.``).
_PLUGIN_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_SCALARS = (str, int, float, bool, type(None))
#: The fields the host stamps on a plugin's record; a plugin cannot set them.
_STAMPED = frozenset({"kind", "plugin", "session_id", "run_id", "timestamp", "tool_name", "tool_call_id"})

ALLOWED = "allowed"
BLOCKED = "blocked"
#: The call never reached authorization: unknown tool, invalid arguments, cut by the output limit, run stopped.
NOT_ASKED = "not_asked"
#: ``blocked_by`` when the embedder's ``AgentConfig.before_tool_call`` blocked the call.
BY_EMBEDDER = "before_tool_call"


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One line of the audit trail.

    :param kind: ``session_start``, ``tool_call`` or ``session_end``; or
        ``<plugin>.<kind>`` for a record a tool's plugin added (``mcp.call``).
    :param session_id: the agent's session id.
    :param run_id: the same for every record of one run.
    :param timestamp: UTC, ISO 8601 with milliseconds and ``Z``.
    :param model: the model the run uses (start and end records).
    :param tool_name: the tool the model called (tool call and plugin records).
    :param tool_call_id: the provider's id of the call.
    :param arguments_sha256: hex SHA-256 of the call's argument text, UTF-8
        encoded, exactly as the model sent it (and as the session log keeps
        it); the arguments themselves are never recorded.
    :param decision: ``allowed``, ``blocked`` or ``not_asked``.
    :param blocked_by: who blocked: ``before_tool_call`` (the embedder's), or
        ``plugin:<name>`` (an ``agentkit_before_tool_call`` hook).
    :param is_error: whether the call's result is an error.
    :param outcome: how the run ended (end records).
    :param error: the run's error text, if it ended with one.
    :param skills: start: the skills the agent has; end: those the run activated.
    :param mcp_servers: start: the MCP servers behind the agent's tools, one
        mapping each (``name``, and as known ``transport``, ``era``,
        ``protocol_version``), sorted by name.
    :param plugin: the plugin that added the record (plugin records; tools
        given in code are stamped ``embedder``).
    :param details: the plugin's own fields (plugin records), JSON scalars.
    """

    kind: str
    session_id: str
    run_id: str
    timestamp: str = field(default_factory=now)
    model: str | None = None
    tool_name: str | None = None
    tool_call_id: str | None = None
    arguments_sha256: str | None = None
    decision: str | None = None
    blocked_by: str | None = None
    is_error: bool | None = None
    outcome: str | None = None
    error: str | None = None
    skills: tuple[str, ...] | None = None
    mcp_servers: tuple[Mapping[str, Any], ...] | None = None
    plugin: str | None = None
    details: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data, fields that do not apply left out."""
        return {name: list(value) if isinstance(value, tuple) else value
                for name, value in dataclasses.asdict(self).items() if value is not None}


@runtime_checkable
class AuditSink(Protocol):
    """Where audit records go: an object with ``record``, or a plain function of one record.

    It is called on the event loop's thread as each record is made, so it
    should be quick; whatever it raises is reported and the run goes on.
    """

    def record(self, record: AuditRecord) -> object:
        """Keep ``record``."""


class JsonlAuditSink:
    """Appends each record as one JSON line to ``path`` (created user-only), flushed per record."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def record(self, record: AuditRecord) -> None:
        line = encode_line(record.to_dict()) + b"\n"
        with self._lock:
            descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(descriptor, line)
            finally:
                os.close(descriptor)


def describe(record: Mapping[str, Any]) -> str:
    """One line for a record as ``agentkit sessions show`` prints it (a record from a log: any field may be odd)."""
    kind = record.get("kind")
    if kind == TOOL_CALL:
        by = f" by {record['blocked_by']}" if record.get("blocked_by") else ""
        error = " error" if record.get("is_error") else ""
        digest = str(record.get("arguments_sha256") or "")[:12]
        return f"tool_call {record.get('tool_name')} {record.get('decision')}{by}{error} args sha256 {digest}"
    if kind == SESSION_END:
        return f"session_end {record.get('outcome')}" + (f": {record['error']}" if record.get("error") else "")
    if record.get("plugin"):
        details = record.get("details")
        if not isinstance(details, Mapping):
            details = {}
        shown = " ".join(f"{key}={value}" for key, value in details.items())
        return f"{kind} {record.get('tool_name')} {shown}".rstrip()
    return f"{kind} {record.get('model') or ''}".rstrip()


def arguments_sha256(arguments: object) -> str:
    """The hex SHA-256 of a call's argument text (UTF-8); anything not text is hashed as compact JSON."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def check_sink(sink: object) -> None:
    """Refuse, at construction, a sink that cannot be called synchronously."""
    target = getattr(sink, "record", sink)
    if not callable(target):
        raise ConfigError(f"AgentConfig.audit={sink!r} is neither callable nor has a record method")
    if inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(type(target).__call__):
        raise ConfigError(f"AgentConfig.audit={sink!r} is async; give a plain function or an object whose record is plain")


class RunAudit:
    """One run's audit: makes the records and hands them to the sink and the session log."""

    def __init__(self, sink: object, session_id: str, run_id: str, model: str,
                 report: Callable[[str], None]) -> None:
        self._sink: Callable[[AuditRecord], object] | None = None if sink is None else getattr(sink, "record", sink)  # type: ignore[arg-type]  # checked by check_sink
        self._session_id, self._run_id, self._model = session_id, run_id, model
        self._report = report
        self._calls: dict[str, ToolUseBlock] = {}
        self.log: SessionTrail | None = None
        self.started = False
        self.ended = False

    @property
    def kept(self) -> bool:
        """Whether anyone keeps this run's records (a sink, or the session log)."""
        return self._sink is not None or self.log is not None

    def start(self, skills: Mapping[str, Any], mcp_servers: Sequence[Mapping[str, Any]] = ()) -> None:
        self.started = True
        self._emit(SESSION_START, model=self._model, skills=tuple(sorted(skills)), mcp_servers=tuple(mcp_servers))

    def for_call(self, plugin: str, tool_name: str, call_id: str) -> Callable[..., None]:
        """``ToolContext.audit`` for one call of ``tool_name``: ``audit(kind, **fields)`` from any thread.

        Called on the run's loop; a record made on another thread is handed
        to that loop, so the sink is only ever called there and in order.
        """
        if not self.kept:
            return _unkept
        import asyncio  # here, not at the top: `agentkit sessions show` reads records without loading the loop

        loop, thread = asyncio.get_running_loop(), threading.get_ident()

        def audit(kind: str, /, **fields: Any) -> None:
            details = plugin_fields(kind, fields)
            if threading.get_ident() == thread:
                self._plugin_record(plugin, kind, tool_name, call_id, details)
                return
            try:
                loop.call_soon_threadsafe(self._plugin_record, plugin, kind, tool_name, call_id, details)
            except RuntimeError:  # the loop is closed: the run is long over
                _log.warning("a %s.%s audit record of %s came after its run ended and was dropped",
                             plugin, kind, tool_name)

        return audit

    def calls(self, plugin_of: Callable[[str], str]) -> Callable[[str, str], Callable[..., None]]:
        """The run's ``audit_for(tool name, call id)``: :meth:`for_call` with the tool's plugin. Whether
        anyone keeps the trail is settled before the first turn: for a trail nobody keeps, every call gets
        the same no-op without asking again."""
        if not self.kept:
            return lambda name, call_id: _unkept
        return lambda name, call_id: self.for_call(plugin_of(name), name, call_id)

    def _plugin_record(self, plugin: str, kind: str, tool_name: str, call_id: str, details: dict[str, Any]) -> None:
        if self.ended:  # an abandoned handler's late word: the trail of that run is closed
            _log.warning("a %s.%s audit record of %s came after its run ended and was dropped",
                         plugin, kind, tool_name)
            return
        self._emit(f"{plugin}.{kind}", plugin=plugin, tool_name=tool_name, tool_call_id=call_id, details=details)

    def observe(self, message: Message, decisions: dict[str, tuple[str, str | None]]) -> None:
        """A message joined the history: remember its calls, or record the call it answers.

        ``decisions`` is the batch's authorization by call id; a decision is
        taken out once recorded, so a later call reusing the id never inherits it.
        """
        if self._sink is None and self.log is None:
            return
        if isinstance(message, AssistantMessage):
            self._calls.update((call.id, call) for call in message.tool_calls)
        elif isinstance(message, ToolResultMessage):
            call = self._calls.pop(message.tool_use_id, None)
            decision, blocked_by = decisions.pop(message.tool_use_id, (NOT_ASKED, None))
            self._emit(TOOL_CALL, tool_name=message.tool_name, tool_call_id=message.tool_use_id,
                       arguments_sha256=arguments_sha256(call.arguments) if call is not None else None,
                       decision=decision, blocked_by=blocked_by, is_error=message.is_error)

    def end(self, outcome: str, error: str | None, skills: list[str]) -> None:
        self.ended = True
        self._emit(SESSION_END, model=self._model, outcome=outcome, error=error, skills=tuple(skills))
        if self.log is not None:
            self.log.sync()  # the end record is as durable as the run's last message

    def _emit(self, kind: str, **fields: Any) -> None:
        record = AuditRecord(kind, self._session_id, self._run_id, **fields)
        if self.log is not None:
            self.log.audit(record.to_dict())
        if self._sink is None:
            return
        try:
            self._sink(record)
        except BaseException as exc:  # the embedder's sink never takes the run down
            self._report(f"the audit sink raised {type(exc).__name__}: {exc}; the {kind} record was not kept")


def _unkept(kind: str, /, **fields: Any) -> None:
    """``ToolContext.audit`` of a run whose trail nobody keeps: misuse still raises, as it would elsewhere."""
    plugin_fields(kind, fields)


def plugin_fields(kind: object, fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` checked as a plugin's record may carry them; misuse raises ``ValueError`` in the plugin."""
    if not isinstance(kind, str) or not _PLUGIN_NAME.fullmatch(kind):
        raise ValueError(f"ToolContext.audit kind {kind!r}: give a lowercase identifier such as 'call'")
    for name, value in fields.items():
        if name in _STAMPED or not _PLUGIN_NAME.fullmatch(name):
            raise ValueError(f"ToolContext.audit field {name!r}: give a lowercase identifier that is not one the "
                             f"host stamps ({', '.join(sorted(_STAMPED))})")
        if not isinstance(value, _SCALARS):
            raise ValueError(f"ToolContext.audit field {name!r} is a {type(value).__name__}: give a JSON scalar "
                             "(str, int, float, bool or None), never the arguments")
    return dict(fields)


def server_descriptions(answers: Sequence[tuple[str, object]], report: Callable[[str], None]) -> list[dict[str, Any]]:
    """The ``mcp_servers`` of a start record from each plugin's ``agentkit_mcp_servers`` answer, sorted by name.

    An answer of another shape is reported and leaves that plugin's servers out.
    """
    servers: list[dict[str, Any]] = []
    for plugin, answer in answers:
        if answer is None:
            continue
        try:
            described = [dict(server) for server in answer]  # type: ignore[attr-defined]
            if not all(isinstance(server.get("name"), str) and all(isinstance(key, str) and isinstance(value, _SCALARS)
                                                                   for key, value in server.items())
                       for server in described):
                raise ValueError("each server is a mapping with a str 'name' and JSON scalar values")
        except (TypeError, ValueError) as exc:
            report(f"plugin {plugin}: agentkit_mcp_servers answered {reprlib.repr(answer)}: {exc}; its servers are "
                   "left out of the audit")
            continue
        servers.extend(described)
    return sorted(servers, key=lambda server: server["name"])
