"""The audit trail: what a run did, for whoever must answer for it.

Each run produces, in order, one ``session_start`` record, one ``tool_call``
record per tool call as its result is settled, and one ``session_end`` record,
on every exit (completed, error, aborted, max turns, a cancelled task). A tool
call's record carries its name, the SHA-256 of its argument bytes (never the
arguments), the decision (``allowed``, ``blocked`` and by whom, or
``not_asked`` when the call never reached authorization) and ``is_error``.

Records go to the embedder's sink (``AgentConfig.audit``) and, when the agent
has a session, into its log as ``custom`` entries of type ``audit``. A sink
that raises is reported in the run's ``problems`` and the run goes on.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from agentkit.plugin_api import AssistantMessage, Message, ToolResultMessage, ToolUseBlock

from .errors import ConfigError
from .sessions._entries import encode_line, now

if TYPE_CHECKING:
    from .sessions._recorder import RunLog

#: The ``custom_type`` of the session entries that carry audit records.
AUDIT_ENTRY = "audit"

SESSION_START = "session_start"
TOOL_CALL = "tool_call"
SESSION_END = "session_end"

ALLOWED = "allowed"
BLOCKED = "blocked"
#: The call never reached authorization: unknown tool, invalid arguments, cut by the output limit, run stopped.
NOT_ASKED = "not_asked"
#: ``blocked_by`` when the embedder's ``AgentConfig.before_tool_call`` blocked the call.
BY_EMBEDDER = "before_tool_call"


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One line of the audit trail.

    :param kind: ``session_start``, ``tool_call`` or ``session_end``.
    :param session_id: the agent's session id.
    :param run_id: the same for every record of one run.
    :param timestamp: UTC, ISO 8601 with milliseconds and ``Z``.
    :param model: the model the run uses (start and end records).
    :param tool_name: the tool the model called (tool call records).
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
    :param mcp_servers: the MCP servers the run could reach; always empty until
        agentkit connects to MCP servers, kept so consumers need no change then.
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
    mcp_servers: tuple[str, ...] | None = None

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
        self.log: RunLog | None = None
        self.started = False

    def start(self, skills: Mapping[str, Any]) -> None:
        self.started = True
        self._emit(SESSION_START, model=self._model, skills=tuple(sorted(skills)), mcp_servers=())

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
