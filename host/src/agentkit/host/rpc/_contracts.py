"""The RPC's contracts: their version stamps, its methods, and the errors it answers with.

The method table is the one source of the request and response schemas
(:mod:`._schemas`) and of the checks the server makes on each request: a
method's ``params`` are validated against the schema written here before it
runs, so the published schema and the server cannot disagree.

Versioning: consumers ignore fields they do not know, so adding a field (to
params, results or events) or a method keeps a contract at its version;
removing a field or changing what one means takes a new version.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from agentkit.plugin_api._dataclass import dataclass

#: The stamp of every request line.
REQUEST_SCHEMA = "agentkit.rpc.request/v1"
#: The stamp of every response line.
RESPONSE_SCHEMA = "agentkit.rpc.response/v1"

#: The longest request line read, in bytes, its newline not counted; a longer one is answered
#: ``line_too_long`` and skipped without being held in memory.
MAX_LINE_BYTES = 1024 * 1024
#: The most request lines read from the client and not yet answered; past it (or past
#: :data:`MAX_PENDING_BYTES`) the server stops reading its input until answers drain them.
MAX_PENDING_LINES = 64
#: The most bytes of request lines read and not yet answered (a line of up to :data:`MAX_LINE_BYTES`
#: is always taken when nothing else waits).
MAX_PENDING_BYTES = 4 * MAX_LINE_BYTES


class ErrorCode(StrEnum):
    """What an error response's ``error.code`` says went wrong."""

    #: The line is longer than :data:`MAX_LINE_BYTES`.
    LINE_TOO_LONG = "line_too_long"
    #: The line is not a JSON object with a ``schema``, an ``id`` and a ``method``.
    MALFORMED = "malformed"
    #: The request's ``schema`` is not :data:`REQUEST_SCHEMA`.
    UNSUPPORTED_VERSION = "unsupported_version"
    #: No method has this name.
    UNKNOWN_METHOD = "unknown_method"
    #: The params do not fit the method's schema, or name something that does not exist (a model).
    INVALID_PARAMS = "invalid_params"
    #: No session has this id (among those the server has open, or stored).
    SESSION_NOT_FOUND = "session_not_found"
    #: The session is running a turn: steer or abort it, or wait for its ``agent_end``.
    BUSY = "busy"
    #: The session log could not be written; the run was aborted and its events stop.
    SESSION_WRITE_FAILED = "session_write_failed"
    #: ``runs.answer``: no such durable run, it has ended, or it waits for another call (or other arguments).
    RUN_NOT_WAITING = "run_not_waiting"
    #: ``runs.answer``: durable runs need the agentkit-durable extension, which is not installed.
    DURABLE_NOT_INSTALLED = "durable_not_installed"
    #: ``runs.answer``: the durable runs' database cannot be reached or used (its password is never shown).
    DURABLE_UNAVAILABLE = "durable_unavailable"
    #: A defect of the server; the message says what raised.
    INTERNAL = "internal"


class RpcError(Exception):
    """A request that gets an error response; ``code`` and ``str(self)`` are what the client sees."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Method:
    """One method: what it does, and the JSON Schemas of its ``params`` and of its ``result``."""

    name: str
    summary: str
    params: dict[str, Any]
    result: dict[str, Any]


def _object(required: dict[str, Any] | None = None, optional: dict[str, Any] | None = None) -> dict[str, Any]:
    """An object schema; unknown members are allowed, as consumers ignore what they do not know."""
    properties = {**(required or {}), **(optional or {})}
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


_SESSION_ID = {"type": "string", "minLength": 1, "description": "a session's id, or a unique prefix of one"}
_TEXT = {"type": "string", "description": "the user's message"}
_SESSION = _object({
    "session_id": {"type": "string"},
    "model": {"type": "string", "description": "vendor/model the session runs with"},
    "next_seq": {"type": "integer", "minimum": 1, "description": "the seq its next event will carry"},
})

METHODS: dict[str, Method] = {method.name: method for method in (
    Method("session.start", "start a new session; its events are numbered from 1",
           _object(optional={"model": {"type": "string", "description": "vendor/model (default: the server's)"}}),
           _SESSION),
    Method("session.continue", "open a stored session (or one this server has open) to send it prompts",
           _object({"session_id": _SESSION_ID},
                   {"model": {"type": "string", "description": "vendor/model (default: the session's)"}}),
           _SESSION),
    Method("session.close", "abort the session's running turn, wait for its end, and let go of the session",
           _object({"session_id": _SESSION_ID}), _object({"session_id": {"type": "string"}})),
    Method("prompt", "send a prompt: a turn starts, and its events follow this response",
           _object({"session_id": _SESSION_ID, "text": _TEXT}),
           _object({"session_id": {"type": "string"}})),
    Method("steer", "queue a message for the running turn (added before its next request), or for the next prompt",
           _object({"session_id": _SESSION_ID, "text": _TEXT}),
           _object({"session_id": {"type": "string"}, "running": {"type": "boolean"}})),
    Method("abort", "abort the session's running turn; its agent_end (outcome aborted) follows",
           _object({"session_id": _SESSION_ID}),
           _object({"session_id": {"type": "string"}, "running": {"type": "boolean"}})),
    Method("sessions.list", "the stored sessions, most recently written first",
           _object(),
           _object({"sessions": {"type": "array", "items": _object({
               "id": {"type": "string"},
               "started": {"type": "string", "description": "when it was started: ISO 8601, UTC, to the second"},
               "updated": {"type": "string", "description": "when it was last written: ISO 8601, UTC, to the second"},
               "cwd": {"type": "string"},
               "location": {"type": "string", "description": "where the store keeps it (the file store: its path)"},
               "open": {"type": "boolean", "description": "whether this server has it open"},
           })}})),
    Method("runs.answer", "approve or deny the call a parked durable run waits for (agentkit runs approve|deny)",
           _object({"run_id": {"type": "string", "minLength": 1, "description": "the durable run's id"},
                    "call_id": {"type": "string", "minLength": 1, "description": "the call it waits for"},
                    "approved": {"type": "boolean", "description": "true: the call runs; false: it is denied"},
                    "arguments_sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$",
                                         "description": "the SHA-256 of the arguments shown to the person (the "
                                                        "run's agentkit.waiting event has it): any other is refused"}},
                   {"reason": {"type": "string", "description": "why, for the model to read"}}),
           _object({"run_id": {"type": "string"}, "call_id": {"type": "string"}, "tool": {"type": "string"},
                    "approved": {"type": "boolean"}})),
    Method("tools.list", "the tools a session has (with session_id), else those a new session would have",
           _object(optional={"session_id": _SESSION_ID}),
           _object({"tools": {"type": "array", "items": _object({
               "name": {"type": "string"}, "description": {"type": "string"},
               "input_schema": {"type": "object"},
           })}})),
)}
