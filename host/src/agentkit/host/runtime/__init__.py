"""The provider runtime: HTTP, framing, retries, credentials and headers for every wire.

:class:`ProviderRuntime` turns a provider codec and a canonical request into a
stream of canonical events; failures end the stream as an error message
rather than raising.
"""

from .. import _log  # noqa: F401 - unconfigured, the runtime's warnings go nowhere
from ._request_building import PreparedRequest
from ._runtime import ProviderRuntime, http_timeouts
from .credentials import CredentialStore
from .errors import (
    CredentialMissing,
    ModelUnavailable,
    ProviderConnectionError,
    ProviderHTTPError,
    RetryAbandoned,
)
from .limits import ResponseLimits
from .pricing import Pricing
from .retry import RetryPolicy

__all__ = [
    "CredentialMissing",
    "CredentialStore",
    "ModelUnavailable",
    "PreparedRequest",
    "Pricing",
    "ProviderConnectionError",
    "ProviderHTTPError",
    "ProviderRuntime",
    "ResponseLimits",
    "RetryAbandoned",
    "RetryPolicy",
    "http_timeouts",
]
