"""Keeping credentials out of every text the host shows: errors, events, log records.

A secret is not only leaked whole. It comes back escaped (an exception's
``repr`` of the header, a JSON error body quoting it), cut (an error body
shortened to 500 characters), or percent-encoded (a query parameter).
:func:`scrub` therefore removes every run of :data:`FRAGMENT` or more
characters that belongs to a secret in any of those forms, not just exact
copies; a false positive only hides a few harmless characters.

The HTTP libraries log at DEBUG what they send and the errors they meet
(httpcore quotes an illegal header value in full). :func:`install_log_filter`
puts a filter on their loggers and on the runtime's own, which scrubs every
record of the secrets the runtime has resolved recently (:func:`remember`).
"""

from __future__ import annotations

import functools
import json
import logging
import threading
import traceback
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from urllib.parse import quote

from .headers import redact_secret

__all__ = ["FRAGMENT", "install_log_filter", "remember", "scrub"]

#: The shortest run of a secret's characters that is redacted wherever it appears.
FRAGMENT = 8
#: How many recently resolved secrets the log filter knows.
_REMEMBERED = 64
#: Loggers whose records may quote a request's headers or a credential error.
LOGGERS = (
    "httpx",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
    "agentkit.host.runtime",
)

_live: OrderedDict[str, None] = OrderedDict()
_live_lock = threading.Lock()


def _forms(secret: str) -> tuple[str, ...]:
    """The ways ``secret`` may be written in a text: as is, JSON-, repr- and URL-escaped."""
    forms = {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        repr(secret)[1:-1],
        repr(secret.encode("utf-8", "backslashreplace"))[2:-1],
        quote(secret, safe=""),
    }
    return tuple(sorted(forms, key=len, reverse=True))


@functools.lru_cache(maxsize=256)
def _grams(secrets: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...], tuple[str, ...]]:
    """Every FRAGMENT-long piece of every form, the long forms, and the short secrets."""
    grams: set[str] = set()
    whole: list[str] = []
    short: list[str] = []
    for secret in secrets:
        if not secret:
            continue
        if len(secret) < FRAGMENT:
            short.append(secret)
            continue
        for form in _forms(secret):
            whole.append(form)
            grams.update(form[i : i + FRAGMENT] for i in range(len(form) - FRAGMENT + 1))
    return frozenset(grams), tuple(whole), tuple(short)


def scrub(text: str, secrets: Sequence[str] | Iterable[str]) -> str:
    """``text`` with every secret, whole, escaped or in part (8+ characters), redacted.

    A whole secret becomes its :func:`redact_secret` form (first and last four
    characters, for telling keys apart); a fragment becomes ``***``.
    """
    grams, whole, short = _grams(tuple(secrets))
    for secret in short:
        text = text.replace(secret, redact_secret(secret))
    if not grams or len(text) < FRAGMENT:
        return text
    # Mark every position covered by a fragment, then cut the marked runs out.
    covered: list[tuple[int, int]] = []
    for i in range(len(text) - FRAGMENT + 1):
        if text[i : i + FRAGMENT] in grams:
            if covered and covered[-1][1] >= i:
                covered[-1] = (covered[-1][0], i + FRAGMENT)
            else:
                covered.append((i, i + FRAGMENT))
    if not covered:
        return text
    out: list[str] = []
    last = 0
    for start, end in covered:
        out.append(text[last:start])
        run = text[start:end]
        out.append(redact_secret(run) if run in whole else "***")
        last = end
    out.append(text[last:])
    return "".join(out)


def remember(secret: str) -> None:
    """Let the log filter know ``secret`` (the most recent :data:`_REMEMBERED` are kept)."""
    if not secret:
        return
    with _live_lock:
        _live[secret] = None
        _live.move_to_end(secret)
        while len(_live) > _REMEMBERED:
            _live.popitem(last=False)


def remembered() -> tuple[str, ...]:
    with _live_lock:
        return tuple(_live)


class SecretFilter(logging.Filter):
    """Scrubs a record's message (and its formatted traceback) of every remembered secret."""

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = remembered()
        if not secrets:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not format: leave it to logging
            return True
        scrubbed = scrub(message, secrets)
        if scrubbed != message:
            record.msg, record.args = scrubbed, None
        if record.exc_info and not record.exc_text:
            record.exc_text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
        if record.exc_text:
            record.exc_text = scrub(record.exc_text, secrets)
        return True


_FILTER = SecretFilter()


def install_log_filter() -> None:
    """Put the secret filter on the HTTP libraries' loggers and the runtime's (idempotent)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
