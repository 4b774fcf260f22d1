"""Transport retries: which failures to send again, and how long to wait first.

This is the transport layer only (a status code, a broken connection, before
any output reached the caller). Retrying a response that already streamed
text would show the user the same words twice, so the runtime never does.

* Retryable: 408, 409, 429, every 5xx, and connection failures. The server's
  ``x-should-retry`` header overrides the status both ways (``true`` forces a
  retry, ``false`` forbids one).
* Delay: the server's wins when it gives one: ``retry-after-ms``, then
  ``Retry-After`` in seconds, then ``Retry-After`` as an HTTP date. Otherwise
  exponential backoff ``min(initial * 2**attempt, max_backoff)`` with up to
  ``jitter`` of it taken off (downward only, so the cap really caps).
* A server delay above ``max_server_delay`` abandons with
  :class:`RetryAbandoned`: sleeping minutes inside a turn hides the problem,
  and clamping the delay retries early into a refusal.
* Off by default (``max_retries=0``): retrying is the application's choice.
"""

from __future__ import annotations

import email.utils
import random
from collections.abc import Callable, Mapping

from agentkit.plugin_api._dataclass import dataclass

__all__ = ["RETRYABLE_STATUS", "RetryPolicy", "backoff_delay", "server_delay", "should_retry"]

#: The statuses below 500 worth sending again (every 5xx is).
RETRYABLE_STATUS = frozenset({408, 409, 429})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How the runtime retries a failed request.

    :param max_retries: retries after the first attempt; 0 never retries.
    :param initial_backoff: seconds before the first retry, when the server names no delay.
    :param max_backoff: the cap of the exponential backoff, in seconds.
    :param jitter: the largest fraction taken off a backoff at random (0 to 1).
    :param max_server_delay: the longest server-requested delay honoured, in
        seconds; a longer one abandons the request.
    """

    max_retries: int = 0
    initial_backoff: float = 0.5
    max_backoff: float = 8.0
    jitter: float = 0.25
    max_server_delay: float = 60.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, not {self.max_retries}")
        if not 0 <= self.jitter <= 1:
            raise ValueError(f"jitter must be between 0 and 1, not {self.jitter}")
        if self.initial_backoff < 0 or self.max_backoff < 0 or self.max_server_delay < 0:
            raise ValueError("retry delays must not be negative")


def should_retry(status: int | None, headers: Mapping[str, str] | None = None) -> bool:
    """Whether a failure may be retried.

    :param status: the HTTP status, or ``None`` for a connection failure.
    :param headers: the response headers (case-insensitive mapping), if any.
    """
    if headers is not None:
        verdict = (headers.get("x-should-retry") or "").strip().lower()
        if verdict == "true":
            return True
        if verdict == "false":
            return False
    if status is None:
        return True
    return status in RETRYABLE_STATUS or status >= 500


def server_delay(headers: Mapping[str, str], *, now: float) -> float | None:
    """The delay the server asked for, in seconds, or ``None`` when it named none.

    :param now: the current POSIX time, to turn an HTTP date into a delay.
    """
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis)
        except ValueError:
            value = -1.0
        if value >= 0:
            return value / 1000.0
    after = headers.get("retry-after")
    if after is None:
        return None
    after = after.strip()
    try:
        seconds = float(after)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(after)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            return None
        return max(0.0, when.timestamp() - now)
    return seconds if seconds >= 0 else None


def backoff_delay(
    attempt: int, policy: RetryPolicy, *, rand: Callable[[], float] = random.random
) -> float:
    """The backoff before retry number ``attempt`` (0 for the first retry)."""
    growth: int = 2**attempt  # typeshed: int ** int may be a float (a negative exponent)
    base = min(policy.initial_backoff * growth, policy.max_backoff)
    return base * (1 - policy.jitter * rand())
