"""How much of one response the runtime accepts, and for how long it waits.

A response is the model's output, and a server (or anything between it and
us) decides how much of it there is. Without a bound, a server streaming valid
deltas forever makes the host keep all of them. Three bounds apply to each
response, counted in UTF-8 bytes of the deltas:

* ``text_bytes``: the visible text of every text block;
* ``thinking_bytes``: the reasoning of every thinking block;
* ``argument_bytes``: the argument text of every tool call.

Each block also counts 256 bytes, and each delta 8, toward its kind's limit
(what keeping them costs beyond their text), so that a server opening empty
blocks or sending one-character deltas forever is bounded too.

Past any of them the response ends with ``stop_reason=error``, keeping what
arrived up to the limit. The defaults follow the model's catalog row:
``max_output`` tokens times :data:`BYTES_PER_TOKEN` (a token is 3 to 4 bytes of
English, 32 is far above anything a tokenizer produces), and never less than
:data:`MIN_RESPONSE_BYTES`. For a model with ``max_output=128_000`` that is
4 MiB of each kind.

Memory: while a response streams, the runtime holds at most its limits' bytes
twice (the decoder's parts, then the final message they are joined into) plus
the framing buffers, :data:`FRAMING_BYTES` (an SSE line is at most 1 MiB and an
event's data 8 MiB; an NDJSON line 8 MiB). For the 4 MiB default above that is
at most 2 x 12 MiB + 16 MiB, whatever the server sends; a test streams 1 GB of
valid deltas and of keep-alive traffic against this bound.

Time is bounded by the request deadline (``request_timeout``): from the moment
the request is built to the end of its response, retries included. It is a
total, not an idle timeout, so keep-alive comments cannot extend it.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from agentkit.plugin_api import ModelInfo
from agentkit.plugin_api._dataclass import dataclass

__all__ = [
    "BYTES_PER_TOKEN",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_READ_TIMEOUT",
    "DEFAULT_REQUEST_TIMEOUT",
    "FRAMING_BYTES",
    "MIN_RESPONSE_BYTES",
    "ResponseLimits",
]

#: Bytes allowed per token of the model's ``max_output``, for the default limits.
BYTES_PER_TOKEN = 32
#: The smallest default limit of each kind, whatever the model's ``max_output``.
MIN_RESPONSE_BYTES = 1024 * 1024
#: The most the framing buffers of one response hold (SSE: a 1 MiB line and
#: an 8 MiB event, with their decoded copies).
FRAMING_BYTES = 16 * 1024 * 1024
#: Seconds one request may take from start to ``message_end``, retries included.
#: Fifteen minutes fits 64k output tokens at a slow 70 tokens a second.
DEFAULT_REQUEST_TIMEOUT = 900.0
#: Seconds to open a connection.
DEFAULT_CONNECT_TIMEOUT = 10.0
#: Seconds without a single byte from the server (a reasoning model may think
#: silently for minutes on some wires).
DEFAULT_READ_TIMEOUT = 300.0


@dataclass(frozen=True, slots=True)
class ResponseLimits:
    """The most of one response accepted, in UTF-8 bytes per kind of content.

    ``None`` in a field means the model's default (see the module docstring).

    :param text_bytes: text blocks, all of them together.
    :param thinking_bytes: thinking blocks, all of them together.
    :param argument_bytes: tool-call arguments, all of them together.
    """

    text_bytes: int | None = None
    thinking_bytes: int | None = None
    argument_bytes: int | None = None

    def __post_init__(self) -> None:
        for name in ("text_bytes", "thinking_bytes", "argument_bytes"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(f"ResponseLimits.{name} must be a positive int or None, not {value!r}")

    def resolve(self, model: ModelInfo) -> ResponseLimits:
        """These limits with every ``None`` replaced by the default for ``model``."""
        limits, max_output, kept = _LAST[0]
        if limits is self and max_output == model.max_output:  # a runtime's own limits, response after response
            resolved: ResponseLimits = kept
            return resolved
        resolved = _resolved(self, model.max_output)
        _LAST[0] = (self, model.max_output, resolved)  # one assignment: a thread sees the old entry or the new
        return resolved


#: The limits resolved last, by identity: the cache below hashes and compares the dataclass by value, in Python.
_LAST: list[tuple[object, int, Any]] = [(None, -1, None)]


@functools.lru_cache(maxsize=64)
def _resolved(limits: ResponseLimits, max_output: int) -> ResponseLimits:
    """Kept per limits and output limit: every response resolves the same few (they are immutable)."""
    default = max(MIN_RESPONSE_BYTES, max_output * BYTES_PER_TOKEN)
    return dataclasses.replace(
        limits,
        text_bytes=limits.text_bytes or default,
        thinking_bytes=limits.thinking_bytes or default,
        argument_bytes=limits.argument_bytes or default,
    )
