"""A PostgreSQL session store for agentkit: several worker processes share sessions.

:class:`PostgresSessionStore` implements the host's
:class:`~agentkit.host.sessions.SessionStore` protocol; pass it to
:meth:`Session.new <agentkit.host.sessions.Session.new>` or
:meth:`Session.open <agentkit.host.sessions.Session.open>`.

The ``agentkit`` command finds it by URL scheme (``--store postgresql://...``,
or ``AGENTKIT_SESSION_STORE``) through the ``agentkit.session_stores`` entry
points, which name :func:`from_url`.
"""

from ._store import PostgresSessionStore, from_url

__all__ = ["PostgresSessionStore", "from_url"]
