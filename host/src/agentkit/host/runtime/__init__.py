"""The provider runtime: HTTP, framing, retries, credentials and headers for every wire.

:class:`ProviderRuntime` turns a provider codec and a canonical request into a
stream of canonical events; failures end the stream as an error message
rather than raising.
"""

from agentkit.plugin_api._lazy import lazy_exports

from .. import _log  # noqa: F401 - unconfigured, the runtime's warnings go nowhere

# The names below load on first use (PEP 562), as in ``agentkit.host.sessions``: the configuration
# imports single modules of this package (credentials, limits, retry), and importing one runs this
# file first; an MCP server's tools never make a model request and need neither httpx nor the runtime.
TYPE_CHECKING = False
if TYPE_CHECKING:
    # `import X as X` marks each name as re-exported (PEP 484), for type checkers.
    # isort: off
    from ._request_building import PreparedRequest as PreparedRequest
    from ._runtime import ProviderRuntime as ProviderRuntime, http_timeouts as http_timeouts
    from .credentials import CredentialStore as CredentialStore
    from .errors import (
        CredentialMissing as CredentialMissing,
        ModelUnavailable as ModelUnavailable,
        ProviderConnectionError as ProviderConnectionError,
        ProviderHTTPError as ProviderHTTPError,
        RetryAbandoned as RetryAbandoned,
    )
    from .limits import ResponseLimits as ResponseLimits
    from .pricing import Pricing as Pricing
    from .retry import RetryPolicy as RetryPolicy
    # isort: on

#: Each public name with the module that defines it: the one list __all__ is made from.
_EXPORTS = {
    "CredentialMissing": ".errors",
    "CredentialStore": ".credentials",
    "ModelUnavailable": ".errors",
    "PreparedRequest": "._request_building",
    "Pricing": ".pricing",
    "ProviderConnectionError": ".errors",
    "ProviderHTTPError": ".errors",
    "ProviderRuntime": "._runtime",
    "ResponseLimits": ".limits",
    "RetryAbandoned": ".errors",
    "RetryPolicy": ".retry",
    "http_timeouts": "._runtime",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
