"""Decoding bytes from a model provider: strict JSON, SSE and NDJSON framing.

Everything here treats its input as untrusted: sizes are bounded before
buffering or parsing, and every failure is a :class:`WireError` subclass of
:class:`agentkit.plugin_api.errors.ProviderError` saying what and where.
Provider codec tests use these to decode recorded traffic exactly as the
runtime does.
"""

from .errors import FrameTooLarge, TruncatedStream, WireDecodeError, WireError
from .json import loads
from .ndjson import NDJSONDecoder
from .sse import SSEDecoder, SSEMessage

__all__ = [
    "FrameTooLarge",
    "NDJSONDecoder",
    "SSEDecoder",
    "SSEMessage",
    "TruncatedStream",
    "WireDecodeError",
    "WireError",
    "loads",
]
