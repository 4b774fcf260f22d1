"""Errors of the provider runtime.

::

    ProviderError                 (agentkit.plugin_api.errors)
    ├── WireError ...             (agentkit.host.wire: the response bytes were bad)
    ├── CredentialMissing         no credential for a provider that needs one
    │   └── CredentialInvalid     the credential found holds characters no header can carry
    ├── ProviderHTTPError         the server answered with an error status
    ├── ProviderConnectionError   the server could not be reached, or the connection broke
    └── RetryAbandoned            the server asked to wait longer than the retry policy allows

The runtime never raises these out of :meth:`ProviderRuntime.stream`: each
one becomes the ``error_message`` of a message that ends with
``stop_reason=error``. They exist as types for :meth:`ProviderRuntime.prepare`,
for logging, and for tests.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentkit.plugin_api.errors import ProviderError

from ..wire import WireError, loads
from ._redact import scrub


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
