"""What the embedder plugs into the MCP client: where audit records go, and who answers a server's questions.

Both are process-wide, set once by the application that embeds agentkit
(``agentkit run`` sets neither: audit records go to the ``agentkit.mcp.audit``
logger and servers' questions are declined). A call's records also join the
audit trail of the agent that made it (``ToolContext.audit``: kinds ``mcp.call``,
and ``mcp.input`` and ``mcp.sampling`` for the server's questions during it),
whatever is set here.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._json import one_shot

_audit_log = logging.getLogger("agentkit.mcp.audit")

MAX_INPUT_ROUNDS = 3
"""How many times one call may come back ``input_required`` before it fails."""


@dataclass(frozen=True, slots=True)
class McpAuditRecord:
    """One MCP event worth answering for.

    :param kind: ``connect`` (a connection was made: era and version),
        ``call`` (a ``tools/call``), ``sampling`` (the server asked for a
        completion: allowed or refused), ``input`` (the server asked the embedder a question).
    :param server: the configured server name.
    :param tool: the server's own tool name (``call``; ``input`` and ``sampling``: the call that asked, when known).
    :param qualified_name: the name the agent knows the tool by, ``server__tool``.
    :param arguments_sha256: hex SHA-256 of the arguments as compact sorted JSON; never the arguments.
    :param is_error: whether the call's result (or the request) was an error.
    :param era: ``modern`` or ``legacy``.
    :param protocol_version: the negotiated version, e.g. ``2026-07-28`` or ``2025-11-25``.
    :param detail: a short reason (refusals, failures); for ``input``, the question's method.
    :param request_sha256: hex SHA-256 of the server's question (``input``, ``sampling``) as compact
        sorted JSON; never the question or the answer.
    """

    kind: str
    server: str
    tool: str | None = None
    qualified_name: str | None = None
    arguments_sha256: str | None = None
    is_error: bool | None = None
    era: str | None = None
    protocol_version: str | None = None
    detail: str | None = None
    request_sha256: str | None = None

    def to_dict(self) -> dict[str, Any]:
        # Every field is a string or a bool: asdict's deep copy of each value would copy nothing, slowly (one
        # record per call, bench/bench_mcp_client.py).
        return {name: value for name in _RECORD_FIELDS if (value := getattr(self, name)) is not None}


_RECORD_FIELDS = tuple(field.name for field in dataclasses.fields(McpAuditRecord))


@dataclass(frozen=True, slots=True)
class InputRequest:
    """A server's question in the middle of a call (an MCP ``input_required`` round, or a legacy server request).

    :param server: the configured server name.
    :param method: ``elicitation/create`` or ``sampling/createMessage``.
    :param params: the request's parameters as JSON data (``message`` and
        ``requestedSchema`` for elicitation; ``messages``, ``maxTokens``... for sampling).
    """

    server: str
    method: str
    params: Mapping[str, Any] = field(default_factory=dict)


InputHandler = Callable[[InputRequest], "Mapping[str, Any] | Awaitable[Mapping[str, Any]]"]
"""Answers an :class:`InputRequest` with the MCP result as JSON data: ``{"action": "accept",
"content": {...}}`` for an elicitation, a ``CreateMessageResult`` for sampling."""

AuditSink = Callable[[McpAuditRecord], object]
#: Where one call's records go besides the sink: the agent's audit trail (``ToolContext.audit`` itself), as
#: ``report(kind, **fields)``: the record's other fields that are set, as :meth:`McpAuditRecord.to_dict` has them.
Reporter = Callable[..., None]

_state: dict[str, Any] = {"audit": None, "input": None}


def set_audit_sink(sink: AuditSink | None) -> None:
    """Send MCP audit records to ``sink`` (a plain function of one record); ``None`` restores the logger."""
    if sink is not None and not callable(sink):
        raise TypeError(f"set_audit_sink({sink!r}): give a function of one McpAuditRecord, or None")
    _state["audit"] = sink


def set_input_handler(handler: InputHandler | None) -> None:
    """Let ``handler`` answer servers' questions (elicitation, and sampling for servers allowed to sample)."""
    if handler is not None and not callable(handler):
        raise TypeError(f"set_input_handler({handler!r}): give a function of one InputRequest, or None")
    _state["input"] = handler


def audit(kind: str, fields: dict[str, Any], report: Reporter | None = None) -> None:
    """Hand a record to ``report`` and to the embedder's sink, or log it; a failure is logged, never propagated.

    ``fields`` are the :class:`McpAuditRecord` fields after ``kind`` that are
    set (``server`` always): the record is made only for a sink, as a run's
    trail takes the fields (a record per ``tools/call``; decision 0058).
    """
    if report is not None:
        try:
            report(kind, **fields)
        except Exception:  # the trail never takes a call down
            _audit_log.exception("the MCP call's record could not join the agent's audit trail: %s",
                                 {"kind": kind, **fields})
    sink = _state["audit"]
    if sink is None:
        if _audit_log.isEnabledFor(logging.INFO):  # the record is encoded only for a logger that keeps it
            _audit_log.info("%s", json.dumps({"kind": kind, **fields}, sort_keys=True))
        return
    record = McpAuditRecord(kind, **fields)
    try:
        sink(record)
    except Exception:  # the embedder's sink never takes a call down
        _audit_log.exception("the MCP audit sink raised; record: %s", record.to_dict())


async def ask(request: InputRequest) -> Mapping[str, Any] | None:
    """The embedder's answer to ``request``, or ``None`` when no handler is set."""
    handler = _state["input"]
    if handler is None:
        return None
    answer = handler(request)
    if inspect.isawaitable(answer):
        answer = await answer
    return answer


def arguments_sha256(arguments: Mapping[str, Any]) -> str:
    return hashlib.sha256(_sorted_json(arguments).encode("utf-8", "surrogatepass")).hexdigest()


#: The compact sorted JSON that is hashed: ``json.dumps(..., sort_keys=True, separators=(",", ":"),
#: ensure_ascii=False, default=str)``, the same text.
_sorted_json = one_shot(json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str))
