"""NDJSON RPC over an agent's sessions and events: the protocol behind ``agentkit rpc``.

See ``docs/rpc.md``. Requests (``agentkit.rpc.request/v1``) come one JSON
object per line; each gets one response (``agentkit.rpc.response/v1``) with
its id; the runs they start publish their events (``agentkit.event/v2``, with
``session_id`` and ``seq``) after writing each to the session log. An
embedder serves another stream by giving :class:`RpcServer` its own agent
factory and line writer.
"""

from ..sessions._entries import EVENT_ENTRY
from ._contracts import (
    MAX_LINE_BYTES,
    MAX_PENDING_BYTES,
    MAX_PENDING_LINES,
    METHODS,
    REQUEST_SCHEMA,
    RESPONSE_SCHEMA,
    ErrorCode,
    Method,
    RpcError,
)
from ._lines import Oversized, read_lines
from ._schemas import event_schema, request_schema, response_schema, schemas, write_schemas
from ._server import AgentFactory, LineWriter, RpcServer, last_seq

__all__ = [
    "EVENT_ENTRY",
    "MAX_LINE_BYTES",
    "MAX_PENDING_BYTES",
    "MAX_PENDING_LINES",
    "METHODS",
    "REQUEST_SCHEMA",
    "RESPONSE_SCHEMA",
    "AgentFactory",
    "ErrorCode",
    "LineWriter",
    "Method",
    "Oversized",
    "RpcError",
    "RpcServer",
    "event_schema",
    "last_seq",
    "read_lines",
    "request_schema",
    "response_schema",
    "schemas",
    "write_schemas",
]
