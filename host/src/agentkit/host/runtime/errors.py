"""Errors of the provider runtime.

::

    ProviderError                 (agentkit.plugin_api.errors)
    ├── WireError ...             (agentkit.host.wire: the response bytes were bad)
    ├── CredentialMissing         no credential for a provider that needs one
    │   └── CredentialInvalid     the credential found holds characters no header can carry
    ├── ProviderHTTPError         the server answered with an error status
    ├── ProviderConnectionError   the server could not be reached, or the connection broke
    ├── RetryAbandoned            the server asked to wait longer than the retry policy allows
    └── ModelUnavailable          a request that may go to a fallback model failed before its response began

The runtime never raises these out of :meth:`ProviderRuntime.stream`: each
one becomes the ``error_message`` of a message that ends with
``stop_reason=error``. The one exception is :class:`ModelUnavailable`, raised
only to a caller that asked for it (``stream_batches(..., fallback=True)``):
it has another model to try. They exist as types for :meth:`ProviderRuntime.prepare`,
for logging, and for tests.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentkit.plugin_api.errors import ProviderError

from ..wire import WireError, loads
from ._redact import scrub
from .retry import RETRYABLE_STATUS


class CredentialMissing(ProviderError):
    """No credential was found for a provider whose wire needs one.

    :param env: the environment variables that would have supplied one.
    """

    def __init__(self, message: str, *, env: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.env = env


class CredentialInvalid(CredentialMissing):
    """A credential holds a control or non-ASCII character; it was refused, and never echoed."""


class ProviderHTTPError(ProviderError):
    """The server answered with an error status; ``status`` is the HTTP status."""

    def __init__(self, message: str, *, status: int) -> None:
        super().__init__(message)
        self.status = status


class ProviderConnectionError(ProviderError):
    """The request did not get a response, or its body broke off."""


class RetryAbandoned(ProviderError):
    """A retryable failure whose server-requested delay exceeds the policy's maximum.

    Sleeping that long (or clamping the delay and retrying early, which the
    server will refuse again) would only hide the problem: the caller gets the
    failure now, with the delay the server asked for.

    :param delay: the delay the server asked for, in seconds.
    :param status: the HTTP status of the failure.
    """

    def __init__(self, message: str, *, delay: float, status: int) -> None:
        super().__init__(message)
        self.delay = delay
        self.status = status


class ModelUnavailable(ProviderError):
    """The model could not serve the request, and nothing of its response reached the caller.

    Raised by :meth:`ProviderRuntime.stream_batches` instead of an error
    message when the caller passed ``fallback=True``: the failure is one a
    retry might cure (a connection failure, 408, 409, 429, a 5xx such as 529
    overloaded, a ``Retry-After`` longer than the policy allows), the retries
    are spent, and not one event of the response was handed over. A failure
    that is the caller's (400, 401, 403, 404, a request the codec refused, a
    missing credential) is never this: another model would be asked the same.

    :param model: the ``vendor/model`` that failed.
    """

    def __init__(self, message: str, *, model: str) -> None:
        super().__init__(message)
        self.model = model


def worth_another_model(failure: BaseException) -> bool:
    """Whether ``failure``, once the retries are spent, may be cured by asking another model.

    The same classes of failure a retry may cure (:func:`.retry.should_retry`),
    judged by the status alone: a server's ``x-should-retry: false`` speaks of
    sending the same request to it again, not of sending it elsewhere.
    """
    if isinstance(failure, ProviderHTTPError):
        return failure.status in RETRYABLE_STATUS or failure.status >= 500
    return isinstance(failure, (ProviderConnectionError, RetryAbandoned))


def error_detail(body: bytes, secrets: Sequence[str] = ()) -> str:
    """The human part of an error body: JSON ``error.message`` when there is one.

    ``secrets`` are scrubbed before the text is shortened: cutting first could
    leave the beginning of a secret that no longer matches it whole.
    """
    try:
        data = loads(body)
    except WireError:
        data = None
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict):
            message = error.get("message")
            if isinstance(message, str) and message:
                kind = error.get("type") or error.get("code")
                return f"{message} ({kind})" if isinstance(kind, str) and kind else message
        if isinstance(error, str) and error:
            return error
        message = data.get("message")
        if isinstance(message, str) and message:
            return message
    text = scrub(body.decode("utf-8", "replace").strip(), secrets)
    return text[:500] + ("..." if len(text) > 500 else "")
