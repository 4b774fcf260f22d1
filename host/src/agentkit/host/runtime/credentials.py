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
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, runtime_checkable

from agentkit.plugin_api import Credential, CredentialKind, ModelInfo, Provider

from .errors import CredentialMissing

__all__ = ["CredentialResolver", "CredentialStore"]

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

    def from_env(self, provider: Provider, model: ModelInfo | None = None) -> Credential | None:
        """The first credential set in the environment, in the provider's order."""
        env = os.environ if self._env is None else self._env
        for name, kind in credential_table(provider, model):
            value = env.get(name)
            if value:
                return Credential(kind, value)
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
            return explicit
        if self.store is not None:
            credential = await self.store.get(vendor)
            if credential is not None:
                if self._fresh(credential):
                    return credential
                return await self._refresh(vendor)
        credential = self.from_env(provider, model)
        table = credential_table(provider, model)
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
            if self._fresh(current):
                return current
            try:
                return await asyncio.wait_for(
                    self.store.refresh(vendor, current), timeout=self.refresh_timeout
                )
            except TimeoutError:
                raise CredentialMissing(
                    f"refreshing the credential for {vendor!r} took longer than "
                    f"{self.refresh_timeout:g} s"
                ) from None
            except Exception as exc:
                raise CredentialMissing(
                    f"refreshing the credential for {vendor!r} failed: {type(exc).__name__}: {exc}"
                ) from exc
