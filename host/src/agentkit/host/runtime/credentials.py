"""Which credential a request carries, and keeping OAuth tokens fresh.

Resolution order for one request:

1. a :class:`Credential` passed to the call (``credential=`` on
   :meth:`ProviderRuntime.stream`, ``complete`` and ``prepare``). It is a
   keyword argument rather than a ``request.options`` entry on purpose:
   options are handed to the provider's encoder, and a secret has no business
   near a request body;
2. the app's :class:`CredentialStore`, when the runtime has one and it knows
   the vendor;
3. the environment: the provider's ``credential_env``, in the provider's order,
   the first variable set to a non-empty value wins (Anthropic declares its
   auth token, then its OAuth token, then its API key).

A provider whose ``credential_env`` is empty needs no credential. One that
needs one and has none fails with :class:`CredentialMissing`, naming the
variables to set.

Every credential is checked when it is loaded, whatever its source: a
trailing line ending or surrounding spaces (a ``.env`` file with Windows line
endings) are removed with a warning, and any other control or non-ASCII
character refuses the credential with :class:`CredentialInvalid`, whose message
says where it came from and never shows it. Such a value would otherwise go
out in a header, where httpx refuses it with an error that quotes it.

OAuth refresh is double-checked inside a per-vendor lock: N concurrent turns
that find the same token expiring wait on one lock, the first refreshes, the
others re-read the store and find the fresh token. Without the second check
each would post the same refresh token and the provider would rotate it N
times, leaving N-1 turns holding an invalidated credential. The first check,
outside the lock, keeps the common case (a valid token) from serializing
turns. ``expires_at=None`` means never expires.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, runtime_checkable

from agentkit.plugin_api import Credential, CredentialKind, ModelInfo, Provider

from ._redact import remember, scrub
from .errors import CredentialInvalid, CredentialMissing

__all__ = ["CredentialResolver", "CredentialStore"]

logger = logging.getLogger("agentkit.host.runtime")

#: Refresh a token when it has less than this many seconds left.
DEFAULT_VALIDITY_FLOOR = 60.0
#: The refresh holds the vendor's lock, so it must not be allowed to hang.
DEFAULT_REFRESH_TIMEOUT = 15.0


def credential_table(provider: Provider, model: ModelInfo | None = None) -> Sequence[tuple[str, CredentialKind]]:
    """The environment variables to read, in order, for ``model`` served by ``provider``.

    A catalog row may name its own (``ModelInfo.options["credential_env"]``), as
    vendors sharing one wire do (OpenRouter, DeepSeek and Groq speak OpenAI's);
    an empty list there means the row needs no credential (a local server).
    """
    if model is not None and "credential_env" in model.options:
        return tuple((str(name), kind) for name, kind in model.options["credential_env"])
    return tuple(provider.credential_env)


_TRIMMED = {"\r": "CR", "\n": "LF", " ": "space"}
_WHITESPACE = "".join(_TRIMMED)


def checked(credential: Credential, source: str) -> Credential:
    """``credential`` fit for a header: trailing line endings and spaces removed, nothing else odd.

    :param source: where it came from, for the messages (never the value).
    :raises CredentialInvalid: it holds a control or non-ASCII character.
    """
    value = credential.value
    if not isinstance(value, str):
        raise CredentialInvalid(f"the credential from {source} is a {type(value).__name__}, not a str")
    trimmed = value.strip(_WHITESPACE)
    if trimmed != value:
        ends = value[: len(value) - len(value.lstrip(_WHITESPACE))] + value[len(value.rstrip(_WHITESPACE)) :]
        logger.warning(
            "the credential from %s had surrounding whitespace (%s); it was removed. "
            "Check the line endings of the file it came from",
            source,
            " ".join(_TRIMMED[c] for c in ends),
        )
    # Printable ASCII, checked in C; the loop only finds what to name.
    for position, char in enumerate("" if trimmed.isascii() and trimmed.isprintable() else trimmed):
        if not " " <= char <= "~":
            kind = "a control character" if char.isascii() or not char.isprintable() else "a non-ASCII character"
            raise CredentialInvalid(
                f"the credential from {source} contains {kind} (U+{ord(char):04X} at position "
                f"{position}), which no HTTP header can carry; it was not used. Set it again "
                "without that character"
            )
    if not trimmed:
        raise CredentialInvalid(f"the credential from {source} is empty once its whitespace is removed")
    remember(trimmed)
    return credential if trimmed == value else dataclasses.replace(credential, value=trimmed)


@runtime_checkable
class CredentialStore(Protocol):
    """Credentials the application owns (a keychain, a config file, an OAuth login).

    The runtime only reads through :meth:`get` and writes through
    :meth:`refresh`, and calls ``refresh`` for one vendor at a time.
    """

    async def get(self, vendor: str) -> Credential | None:
        """The current credential for ``vendor``, or ``None`` to fall back to the environment."""
        ...

    async def refresh(self, vendor: str, credential: Credential) -> Credential:
        """Exchange the expiring ``credential`` for a fresh one, store it, return it.

        An exception fails the request that needed it (its message must not
        contain the credential).
        """
        ...


class CredentialResolver:
    """Resolves the credential of each request; one per runtime.

    :param store: the app's store, or ``None``.
    :param env: where environment variables are read (default ``os.environ``,
        read at each request).
    :param validity_floor: seconds before expiry at which a token is refreshed.
    :param refresh_timeout: seconds a refresh may take.
    :param clock: the current POSIX time (injectable for tests).
    """

    def __init__(
        self,
        store: CredentialStore | None = None,
        *,
        env: Mapping[str, str] | None = None,
        validity_floor: float = DEFAULT_VALIDITY_FLOOR,
        refresh_timeout: float = DEFAULT_REFRESH_TIMEOUT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self._env = env
        self.validity_floor = validity_floor
        self.refresh_timeout = refresh_timeout
        self._clock = clock
        self._locks: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Lock]] = {}
        # The environment's credential of the last request, checked: the next one reads the same
        # variable, and only a value that changed is checked again.
        self._from_env: tuple[str, CredentialKind, str, Credential] | None = None

    def _lock(self, vendor: str) -> asyncio.Lock:
        # An asyncio.Lock belongs to one event loop; a runtime may outlive a
        # loop (run_sync starts a fresh one per call).
        loop = asyncio.get_running_loop()
        entry = self._locks.get(vendor)
        if entry is None or entry[0] is not loop:
            entry = (loop, asyncio.Lock())
            self._locks[vendor] = entry
        return entry[1]

    def _fresh(self, credential: Credential) -> bool:
        return (
            credential.expires_at is None
            or credential.expires_at - self._clock() >= self.validity_floor
        )

    def from_env(
        self,
        provider: Provider,
        model: ModelInfo | None = None,
        table: Sequence[tuple[str, CredentialKind]] | None = None,
    ) -> Credential | None:
        """The first credential set in the environment, in the provider's order (or ``table``'s)."""
        env = os.environ if self._env is None else self._env
        for name, kind in credential_table(provider, model) if table is None else table:
            value = env.get(name)
            if value:
                last = self._from_env
                if last is not None and last[0] == name and last[1] == kind and last[2] == value:
                    remember(value)  # as checked() would: the log filter keeps the secrets used lately
                    return last[3]
                credential = checked(Credential(kind, value), f"the environment variable {name}")
                # Kept only when it needed no trimming: a value that did is warned about on every request.
                self._from_env = (name, kind, value, credential) if credential.value == value else None
                return credential
        return None

    async def resolve(
        self,
        provider: Provider,
        vendor: str,
        explicit: Credential | None = None,
        model: ModelInfo | None = None,
    ) -> Credential | None:
        """The credential for one request, or ``None`` when the provider needs none.

        :raises CredentialMissing: the provider needs one and none was found.
        """
        if explicit is not None:
            return checked(explicit, "the call (credential=)")
        if self.store is not None:
            credential = await self.store.get(vendor)
            if credential is not None:
                credential = checked(credential, f"the credential store for {vendor!r}")
                if self._fresh(credential):
                    return credential
                return await self._refresh(vendor)
        table = credential_table(provider, model)
        credential = self.from_env(provider, model, table)
        if credential is not None or not table:
            return credential
        names = tuple(name for name, _ in table)
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
        raise CredentialMissing(
            f"no credential for {vendor!r} (wire {provider.api!r}): set {listed} "
            "in the environment, or pass a credential",
            env=names,
        )

    async def _refresh(self, vendor: str) -> Credential:
        assert self.store is not None
        async with self._lock(vendor):
            # Second check: another turn may have refreshed while we waited.
            current = await self.store.get(vendor)
            if current is None:
                raise CredentialMissing(
                    f"the credential store dropped the credential for {vendor!r}"
                )
            current = checked(current, f"the credential store for {vendor!r}")
            if self._fresh(current):
                return current
            try:
                fresh = await asyncio.wait_for(
                    self.store.refresh(vendor, current), timeout=self.refresh_timeout
                )
            except TimeoutError:
                raise CredentialMissing(
                    f"refreshing the credential for {vendor!r} took longer than "
                    f"{self.refresh_timeout:g} s"
                ) from None
            except Exception as exc:
                # The store's error may quote the token it tried to refresh; the
                # original exception is not chained, since a traceback would show it.
                detail = scrub(f"{type(exc).__name__}: {exc}", (current.value,))
                raise CredentialMissing(
                    f"refreshing the credential for {vendor!r} failed: {detail}"
                ) from None
            return checked(fresh, f"the credential store's refresh for {vendor!r}")
