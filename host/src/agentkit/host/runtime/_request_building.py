"""Building the HTTP request for a provider: URL, body bytes, credentials and headers.

The provider encodes the canonical request into a :class:`WireRequest`; this
module turns it into exactly what goes on the network: the URL under the
model's ``base_url``, the body bytes, the credential's auth headers and the
headers' precedence (:mod:`.headers`). :meth:`ProviderRuntime.prepare` shows
the result, redacted, without sending it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from agentkit.plugin_api import Credential, Provider, ProviderRequest, WireRequest
from agentkit.plugin_api._dataclass import dataclass
from agentkit.plugin_api.codec import dumps
from agentkit.plugin_api.errors import ProviderError

from .credentials import CredentialResolver
from .errors import CredentialMissing
from .headers import attribution_headers, merge_headers

__all__ = ["ACCEPT", "BuiltRequest", "PreparedRequest", "RequestBuilder", "join_url"]

#: The ``Accept`` header for each framing the host reads.
ACCEPT = {"sse": "text/event-stream", "ndjson": "application/x-ndjson", "json": "application/json"}


@dataclass(frozen=True, slots=True)
class PreparedRequest:
    """Exactly what :meth:`ProviderRuntime.stream` would send, credentials redacted.

    :param missing_credential: why no credential could be found (the request
        would fail with this message), or ``None``.
    """

    method: str
    url: str
    headers_redacted: dict[str, str]
    body_bytes: bytes
    framing: str = "sse"
    missing_credential: str | None = None


class BuiltRequest:
    """The request to send, with what must never be shown (``secrets``) beside it.

    A plain class, not a dataclass: the runtime builds one per request and reads its fields, nothing
    compares or copies one, and declaring it a slotted dataclass (the class made twice) was 0.4 M
    instructions of a first use (``bench/_first_use.py`` under callgrind).
    """

    __slots__ = ("body", "framing", "headers", "method", "missing_credential", "secrets", "url")

    def __init__(self, method: str, url: str, headers: dict[str, str], body: bytes, framing: str,
                 secrets: tuple[str, ...] = (), missing_credential: str | None = None) -> None:
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.framing = framing
        self.secrets = secrets
        self.missing_credential = missing_credential


#: The header merges a builder keeps (a session sends a handful of header sets).
_MAX_MERGED = 64


def _items(layer: Mapping[str, str | None] | None) -> tuple[tuple[str, str | None], ...] | None:
    return tuple(layer.items()) if layer else None


def join_url(base_url: str, path: str) -> str:
    """``path`` under ``base_url``; an absolute ``path`` URL is used as it is."""
    if path.startswith(("http://", "https://")):
        return path
    if not path:
        return base_url
    return base_url.rstrip("/") + "/" + path.lstrip("/")


class RequestBuilder:
    """Builds each request's bytes and headers; one per runtime.

    :param credentials: where credentials are found (the store, then the environment).
    :param attribution: send ``User-Agent: agentkit/<version>``; ``None``: on
        unless ``AGENTKIT_TELEMETRY=0`` in ``env``.
    :param env: where ``AGENTKIT_TELEMETRY`` is read (default ``os.environ``).
    """

    def __init__(
        self, credentials: CredentialResolver, *, attribution: bool | None, env: Mapping[str, str] | None
    ) -> None:
        self.credentials = credentials
        self._attribution = attribution
        self._env = env
        self._merged: dict[tuple[object, ...], dict[str, str]] = {}  # see _headers

    def _attribution_on(self) -> bool:
        if self._attribution is not None:
            return self._attribution
        env = os.environ if self._env is None else self._env
        return env.get("AGENTKIT_TELEMETRY", "").strip() != "0"

    def _headers(
        self,
        wire: WireRequest,
        auth: Mapping[str, str | None],
        model: Mapping[str, str | None] | None,
        per_request: Mapping[str, str | None] | None,
    ) -> dict[str, str]:
        """The request's headers, every layer merged (:func:`.headers.merge_headers`).

        A provider sends the same layers on every turn, so the merge is kept by
        the layers' contents; a layer with a value that cannot be kept (not
        hashable) is merged every time, and merge_headers names a bad value.
        """
        enabled = self._attribution_on()
        key = (enabled, wire.framing, wire.body is not None,
               _items(wire.headers), _items(auth), _items(model), _items(per_request))
        try:
            merged = self._merged.get(key)
            keep = True
        except TypeError:  # an unhashable value
            merged, keep = None, False
        if merged is None:
            defaults: dict[str, str | None] = {**attribution_headers(enabled=enabled), "Accept": ACCEPT[wire.framing]}
            if wire.body is not None:
                defaults["Content-Type"] = "application/json"
            merged = merge_headers(defaults, wire.headers, auth, model, per_request)
            if keep:
                if len(self._merged) >= _MAX_MERGED:
                    self._merged.clear()
                self._merged[key] = merged
        return dict(merged)  # the caller's own: a kept merge is never handed out

    async def build(
        self,
        provider: Provider,
        request: ProviderRequest,
        credential: Credential | None,
        *,
        allow_missing_credential: bool = False,
    ) -> BuiltRequest:
        """The HTTP request for ``request``: ``provider``'s wire request, under its URL, with its credential.

        :param allow_missing_credential: build without auth headers when no
            credential is found, saying why in ``missing_credential`` (a dry run).
        :raises ProviderError: the provider could not encode the request, or
            produced a framing or body the host cannot send.
        :raises CredentialMissing: no credential, and ``allow_missing_credential`` is false.
        """
        api = getattr(provider, "api", "?")
        try:
            wire = provider.encode(request)
        except ProviderError:
            raise
        except Exception as exc:
            raise ProviderError(
                f"the {api!r} provider could not encode the request: {type(exc).__name__}: {exc}"
            ) from exc
        if wire.framing not in ACCEPT:
            raise ProviderError(
                f"the {api!r} provider asked for framing {wire.framing!r}; "
                f"the host frames {', '.join(map(repr, ACCEPT))}"
            )
        missing = None
        try:
            resolved = await self.credentials.resolve(
                provider, request.model.vendor, credential, request.model
            )
        except CredentialMissing as exc:
            if not allow_missing_credential:
                raise
            resolved, missing = None, str(exc)
        auth = provider.auth_headers(resolved) if resolved is not None else {}
        per_request = request.options.get("headers") if request.options else None
        headers = self._headers(wire, auth, request.model.headers, per_request)
        try:
            body = (
                b""
                if wire.body is None
                # A codec may hand over bytes it serialized itself (to reuse
                # an encoded transcript prefix): those go out untouched.
                else bytes(wire.body)
                if isinstance(wire.body, (bytes, bytearray))
                # The codecs' own serializer: bytes come out one way, whoever writes them.
                else dumps(wire.body)
            )
        except (TypeError, ValueError) as exc:
            raise ProviderError(
                f"the {api!r} provider produced a body that is not JSON: {exc}"
            ) from exc
        secrets = (resolved.value,) if resolved is not None else ()
        return BuiltRequest(
            wire.method.upper(),
            join_url(request.model.base_url, wire.path),
            headers,
            body,
            wire.framing,
            secrets,
            missing,
        )
