"""Decoding bytes from a model provider: strict JSON, SSE and NDJSON framing.

Everything here treats its input as untrusted: sizes are bounded before
buffering or parsing, and every failure is a :class:`WireError` subclass of
:class:`agentkit.plugin_api.errors.ProviderError` saying what and where.
Provider codec tests use these to decode recorded traffic exactly as the
runtime does.
"""

from agentkit.plugin_api._lazy import lazy_exports

from .errors import FrameTooLarge, TruncatedStream, WireDecodeError, WireError
from .json import loads

# The stream decoders load on first use (PEP 562): a provider that answers in JSON needs neither.
TYPE_CHECKING = False  # spelled out: typing costs more than this package
if TYPE_CHECKING:
    from .ndjson import NDJSONDecoder as NDJSONDecoder
    from .sse import SSEDecoder as SSEDecoder
    from .sse import SSEMessage as SSEMessage

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

__getattr__, __dir__ = lazy_exports(
    __name__, {"NDJSONDecoder": ".ndjson", "SSEDecoder": ".sse", "SSEMessage": ".sse"}, globals()
)
