"""Errors of the wire layer: bytes from a peer that could not be decoded.

::

    ProviderError                 (agentkit.plugin_api.errors)
    └── WireError                 the bytes of a response could not be decoded
        ├── WireDecodeError       not one strict JSON text (carries the byte offset)
        ├── FrameTooLarge         a line or an event went past its bound
        └── TruncatedStream       the stream ended in the middle of a frame

Every one of them means the same to the runtime: the response is broken, and
the message ends with ``stop_reason=error`` and this error's text.
"""

from __future__ import annotations

from agentkit.plugin_api.errors import ProviderError


class WireError(ProviderError):
    """The bytes of a response could not be decoded."""


class WireDecodeError(WireError):
    """The input is not one strict JSON text.

    :param offset: the byte offset (in the UTF-8 input) where decoding failed,
        or ``None`` when no one place is (the input is too large, or it needs
        a part of the decoder that can no longer be loaded because the
        interpreter is shutting down).
    """

    def __init__(self, message: str, *, offset: int | None = None) -> None:
        super().__init__(message)
        self.offset = offset


class FrameTooLarge(WireError):
    """A line or an event is larger than the decoder's bound.

    The decoder refuses to buffer more, so a peer cannot make us hold an
    unbounded amount of memory by never ending a line.
    """


class TruncatedStream(WireError):
    """The stream ended in the middle of a line or an event; the partial frame was discarded."""
