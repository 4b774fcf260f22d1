"""Which session store a command uses: the file store, or the store an installed distribution provides for a URL.

``agentkit run --store URL`` and ``agentkit sessions --store URL ...`` choose,
else ``$AGENTKIT_SESSION_STORE``, else the default:

* nothing, a directory, or a ``file:`` URL: the :class:`JsonlSessionStore`
  (in the data directory, or in that directory);
* a URL of any other scheme (``postgresql://user@host/db``): the store that an
  installed distribution declares for that scheme under the
  ``agentkit.session_stores`` entry points, ``SCHEME = "module:function"``,
  where ``function(url)`` returns a :class:`SessionStore`. The host imports it
  then and only then: it never imports a store's driver (psycopg) itself.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from importlib import import_module
from pathlib import Path
from urllib.parse import unquote, urlsplit

from agentkit.plugin_api.errors import UsageError

from .._entry_points import DISABLE_ENV, SESSION_STORES_GROUP, contributed_entry_points
from ._store import JsonlSessionStore, SessionStore

__all__ = ["STORE_ENV", "open_store", "passwords", "redacted", "without_password"]

#: The environment variable that chooses the store when ``--store`` is not given.
STORE_ENV = "AGENTKIT_SESSION_STORE"

#: The distributions we know provide a scheme's store: named in the error when none is installed.
KNOWN_STORES = {"postgresql": "agentkit-store-postgres", "postgres": "agentkit-store-postgres"}

# A scheme of two letters or more: "C:\sessions" is a Windows path, not a URL.
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+)://")


def open_store(url: str | None = None, env: Mapping[str, str] | None = None) -> SessionStore:
    """The store ``url`` names (default: ``$AGENTKIT_SESSION_STORE``, else the file store in the data directory).

    :raises UsageError: no installed distribution serves the URL's scheme (the
        error names the one to install), or its store failed to load.
    """
    env = os.environ if env is None else env
    chosen = url if url else env.get(STORE_ENV, "")
    match = _SCHEME.match(chosen)
    if not chosen:
        return JsonlSessionStore()
    if match is None:
        return JsonlSessionStore(Path(chosen).expanduser())
    scheme = match.group(1).lower()
    if scheme == "file":
        return JsonlSessionStore(Path(unquote(urlsplit(chosen).path)))
    ep = contributed_entry_points(SESSION_STORES_GROUP, "session_stores", env).get(scheme)
    if ep is None:
        raise UsageError(_not_installed(scheme, env))
    origin = f"{ep.dist.name} {ep.dist.version}" if ep.dist else ep.value
    module_name, _, attribute = ep.value.partition(":")
    try:
        factory = import_module(module_name.strip())
        for part in attribute.strip().split(".") if attribute.strip() else ():
            factory = getattr(factory, part)
    except Exception as exc:  # a broken distribution: one line, never a traceback
        raise UsageError(f"the session store for {scheme}:// URLs from {origin} failed to load "
                         f"({type(exc).__name__}: {exc}); reinstall it") from None
    try:
        return factory(chosen)  # type: ignore[operator,no-any-return]
    except Exception as exc:  # the URL itself is wrong: say so, without its password
        message = without_password(str(exc), chosen)
        if isinstance(exc, UsageError):  # the store's own words, which name the fix
            raise UsageError(message) from None
        raise UsageError(f"the session store {redacted(chosen)} cannot be used: {type(exc).__name__}: "
                         f"{message}") from None


def redacted(url: str) -> str:
    """``url`` with ``***`` for each password it holds: what messages may show of it. Never raises."""
    for password in passwords(url):
        url = url.replace(password, "***")
    return url


def passwords(url: str) -> tuple[str, ...]:
    """Every password ``url`` holds, as written and decoded, longest first: what no message may quote.

    Read without validating, so that a URL no parser accepts (``[bad`` for a
    host) still gives up its password: the user information ends at the last
    ``@`` of the authority, or, when the authority has none, at the last ``@``
    of all (a password holding a ``/`` cuts the authority short); a
    ``password=`` query parameter counts too.
    """
    rest = url.partition("://")[2]
    userinfo = _AUTHORITY_END.split(rest, maxsplit=1)[0].rpartition("@")[0] or rest.rpartition("@")[0]
    found = {userinfo.partition(":")[2]} if ":" in userinfo else set()
    found.update(match.group(1) for match in _QUERY_PASSWORD.finditer(rest))
    found |= {unquote(password) for password in found}
    return tuple(sorted(found - {""}, key=len, reverse=True))


def without_password(text: str, url: str) -> str:
    """``text`` (an error about ``url``) with the URL shown redacted and no trace of its passwords."""
    secrets = passwords(url)
    if not secrets:
        return text
    from ..runtime._redact import scrub  # on the error path only

    return scrub(text.replace(url, redacted(url)), secrets)


_AUTHORITY_END = re.compile(r"[/?#]")
_QUERY_PASSWORD = re.compile(r"[?&;]password=([^&#]*)", re.IGNORECASE)


def _not_installed(scheme: str, env: Mapping[str, str]) -> str:
    where = f"--store (or {STORE_ENV})"
    known = KNOWN_STORES.get(scheme)
    if known is None:
        return (f"{where} names a {scheme}:// URL, and no installed distribution provides a session store for it "
                f"(under the {SESSION_STORES_GROUP} entry points); leave {where} unset for the file store")
    state = f"not installed (or switched off by {DISABLE_ENV})" if env.get(DISABLE_ENV) else "not installed"
    return (f"{where} names a {scheme}:// URL, whose session store comes with {known}, which is {state}: "
            f"install it with 'pip install {known}'")
