"""Request headers: who wins when several layers set the same one.

Precedence, lowest first:

1. attribution and protocol defaults (``User-Agent: agentkit/<version>``,
   ``Content-Type``, ``Accept``);
2. the provider: headers its :class:`WireRequest` carries, then the auth
   headers for the resolved credential;
3. the model's catalog row (:attr:`ModelInfo.headers`);
4. the request (``request.options["headers"]``), where a value of ``None``
   removes the header whatever layer set it.

Header names compare case-insensitively; the spelling of the highest layer
that set a header is kept. Attribution never carries a session id, a path,
a user or content, and ``AGENTKIT_TELEMETRY=0`` turns it off.
"""

from __future__ import annotations

from collections.abc import Mapping

from .._dist_info import host_version

__all__ = ["attribution_headers", "merge_headers", "redact_headers"]

# Header names that carry a credential on the wires we know; their values are
# redacted even when the value is not the resolved credential itself.
SENSITIVE_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie"}
)


def attribution_headers(*, enabled: bool = True) -> dict[str, str]:
    """The lowest layer: ``User-Agent: agentkit/<version>`` when attribution is on."""
    return {"User-Agent": f"agentkit/{host_version()}"} if enabled else {}


def merge_headers(*layers: Mapping[str, str | None] | None) -> dict[str, str]:
    """Merge header layers, later layers winning; ``None`` values delete.

    :returns: the merged headers, without the deleted ones.
    """
    merged: dict[str, tuple[str, str | None]] = {}
    for layer in layers:
        if not layer:
            continue
        for name, value in layer.items():
            if value is not None and not isinstance(value, str):
                raise TypeError(
                    f"header {name!r} must be a str or None (to remove it), not {type(value).__name__}"
                )
            merged[name.lower()] = (name, value)
    return {name: value for name, value in merged.values() if value is not None}


def redact_secret(value: str) -> str:
    """A secret as it may be shown: first four and last four characters at most."""
    if len(value) < 16:
        return "***"
    return f"{value[:4]}***{value[-4:]}"


def redact_headers(headers: Mapping[str, str], secrets: tuple[str, ...] = ()) -> dict[str, str]:
    """``headers`` with every credential-bearing value redacted."""
    out: dict[str, str] = {}
    for name, value in headers.items():
        if name.lower() in SENSITIVE_HEADERS:
            scheme, _, rest = value.partition(" ")
            out[name] = f"{scheme} {redact_secret(rest)}" if rest else redact_secret(value)
        else:
            for secret in secrets:
                if secret and secret in value:
                    value = value.replace(secret, redact_secret(secret))
            out[name] = value
    return out
