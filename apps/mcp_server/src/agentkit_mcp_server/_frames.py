"""Inbound JSON-RPC frames checked before they are parsed, and the errors for bad ones.

The checks run on the raw bytes, before any object is built: a frame over
the size limit is dropped as it streams in (never held whole), and one nested
deeper than the depth limit is refused by a scan that allocates nothing. A
frame that is not JSON gets ``-32700``; JSON that is not a JSON-RPC message
gets ``-32600`` (with the request's id when it has a usable one), and so
does a request whose id is not a string or an integer (answered with a null
id; the SDK would take it for a notification and never answer); never a
traceback.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.shared.message import SessionMessage

from ._limits import DEFAULT_MAX_DEPTH

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


class FrameError(Exception):
    """A frame refused before dispatch: the JSON-RPC error to answer with."""

    def __init__(self, code: int, message: str, request_id: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id

    def response(self) -> dict[str, Any]:
        """The JSON-RPC error response for this frame."""
        return {"jsonrpc": "2.0", "id": self.request_id, "error": {"code": self.code, "message": self.message}}


def too_large(limit: int) -> FrameError:
    return FrameError(INVALID_REQUEST, f"the message is larger than {limit} bytes; send smaller messages")


def depth_exceeds(frame: bytes | bytearray, limit: int) -> bool:
    """Whether arrays and objects nest deeper than ``limit`` in ``frame`` (strings skipped, nothing allocated)."""
    depth = 0
    in_string = escaped = False
    for byte in frame:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def parse_frame(frame: bytes, *, max_depth: int = DEFAULT_MAX_DEPTH) -> SessionMessage:
    """The message in one frame; :class:`FrameError` with the error to answer when it is malformed."""
    if depth_exceeds(frame, max_depth):
        raise FrameError(INVALID_REQUEST, f"the message nests deeper than {max_depth} levels")
    try:
        value = json.loads(frame)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise FrameError(PARSE_ERROR, "Parse error: the message is not valid JSON") from None
    if has_bad_id(value):  # the SDK's adapter would take it for a notification, and nobody would answer it
        raise FrameError(INVALID_REQUEST, "Invalid Request: an id is a string or an integer")
    try:
        message = types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except Exception:  # pydantic's ValidationError, or anything a hostile value makes it raise
        raise FrameError(INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message", _usable_id(value)) from None
    return SessionMessage(message)


def has_bad_id(value: Any) -> bool:
    """Whether ``value`` is a request whose ``id`` MCP does not allow: null, a float, a bool, an object, an array."""
    return isinstance(value, dict) and "method" in value and "id" in value and _usable_id(value) is None


def _usable_id(value: Any) -> Any:
    """The id of a malformed request when it is one JSON-RPC allows (a string or an integer), else null."""
    if isinstance(value, dict):
        request_id = value.get("id")
        if isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool)):
            return request_id
    return None
