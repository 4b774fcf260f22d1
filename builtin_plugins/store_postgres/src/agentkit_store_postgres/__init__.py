"""A PostgreSQL session store for agentkit: several worker processes share sessions.

:class:`PostgresSessionStore` implements the host's
:class:`~agentkit.host.sessions.SessionStore` protocol; pass it to
:meth:`Session.new <agentkit.host.sessions.Session.new>` or
:meth:`Session.open <agentkit.host.sessions.Session.open>`.
"""

from ._store import PostgresSessionStore

__all__ = ["PostgresSessionStore"]
