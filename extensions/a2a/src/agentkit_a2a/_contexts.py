"""Each A2A context is a session in the store: a conversation continues across requests and restarts.

The context id is the session id. A context the store does not hold yet is a
new session, marked as an A2A conversation by its first entry; a stored
session without that mark (one ``agentkit run`` or ``chat`` wrote) is refused,
so that a caller who guesses or learns an id cannot continue a conversation
the user held elsewhere. One agent per context is kept while the server runs;
after a restart it is built again from the stored session, history included.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from agentkit.host.errors import SessionNotFound
from agentkit.host.sessions import CUSTOM, Entry, Session, SessionStore

if TYPE_CHECKING:
    from agentkit.host import Agent

#: Builds the agent of a session, as ``agentkit run --session`` would.
AgentFactory: TypeAlias = Callable[[Session], "Agent"]
#: The ``custom_type`` of the entry that marks a session as an A2A conversation.
CONTEXT_ENTRY = "a2a.context"
#: The ``custom_type`` of the entry recording each A2A task the session served (its id, for the audit).
TASK_ENTRY = "a2a.task"
#: Conversations whose agent is kept open at once; past it the one used least recently (and not running)
#: is closed, to be built again from its session when its context comes back.
MAX_OPEN_CONTEXTS = 256
#: What a context id may be: what the session store takes as a session id.
CONTEXT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


class ContextRefused(Exception):
    """A context id that cannot name a conversation here; the message says why and what to send."""


class Contexts:
    """The agents of the open conversations, each written to its context's session.

    :param make_agent: builds a session's agent (see :data:`AgentFactory`).
    :param store: where the sessions are kept.
    :param cwd: the directory new sessions record as theirs.
    :param max_open: conversations kept open at once (see :data:`MAX_OPEN_CONTEXTS`).
    """

    def __init__(self, make_agent: AgentFactory, store: SessionStore, cwd: Path, *,
                 max_open: int = MAX_OPEN_CONTEXTS) -> None:
        self._make_agent = make_agent
        self.max_open = max_open
        self.store = store
        self.cwd = cwd
        self._open: dict[str, Agent] = {}
        #: The executor running the conversations' tasks (set by the app that serves them).
        self.executor: Any = None

    def agent_for(self, context_id: str) -> Agent:
        """The agent of the conversation ``context_id``, its session opened or created.

        :raises ContextRefused: an id the store cannot take, or a session that is no A2A conversation.
        """
        agent = self._open.pop(context_id, None)
        if agent is not None:
            self._open[context_id] = agent  # the most recently used is the last
            return agent
        if not CONTEXT_ID.fullmatch(context_id):
            raise ContextRefused(f"contextId {context_id[:80]!r} cannot name a conversation here: use 1-128 "
                                 "letters, digits, '_', '.' or '-' (or send none, and the server makes one)")
        session = self._session(context_id)
        try:
            agent = self._make_agent(session)
        except BaseException:
            session.close()
            raise
        self._open[context_id] = agent
        self._close_idle_past_the_cap()
        return agent

    def _close_idle_past_the_cap(self) -> None:
        running = set(map(id, self.executor.running_agents())) if self.executor is not None else set()
        for context_id in [key for key, agent in self._open.items() if id(agent) not in running]:
            if len(self._open) <= self.max_open:
                return
            agent = self._open.pop(context_id)
            if agent.session is not None:
                agent.session.close()

    def _session(self, context_id: str) -> Session:
        try:
            self.store.load(context_id)  # the exact id: Session.open alone would take a prefix of another's
        except SessionNotFound:
            session = Session.new(self.store, cwd=self.cwd, id=context_id)
            session.append_custom(CONTEXT_ENTRY, {"context_id": context_id})
            return session
        session = Session.open(context_id, self.store)
        if not _is_a2a(session.entries):
            session.close()
            raise ContextRefused(f"contextId {context_id!r} names a session that is not an A2A conversation: "
                                 "send another contextId (or none)")
        return session

    def record(self, context_id: str, custom_type: str, data: Any) -> bool:
        """Append a custom entry to the conversation ``context_id``'s session; whether there was one to take it.

        The open agent's session takes it (the one writer of that session);
        a conversation closed meanwhile is opened for the entry and closed
        again. A context that names no A2A conversation (a refused id) has none.
        """
        agent = self._open.get(context_id)
        if agent is not None and agent.session is not None:
            agent.session.append_custom(custom_type, data)
            return True
        if not CONTEXT_ID.fullmatch(context_id):
            return False
        try:
            session = Session.open(context_id, self.store)
        except SessionNotFound:
            return False
        try:
            if not _is_a2a(session.entries):
                return False
            session.append_custom(custom_type, data)
            return True
        finally:
            session.close()

    def entries(self, context_id: str) -> list[Entry]:
        """The entries of the conversation ``context_id``'s session (none for a context that names none)."""
        agent = self._open.get(context_id)
        if agent is not None and agent.session is not None:
            return list(agent.session.entries)
        if not CONTEXT_ID.fullmatch(context_id):
            return []
        try:
            entries = self.store.load(context_id).entries
        except SessionNotFound:
            return []
        return entries if _is_a2a(entries) else []

    def close(self) -> None:
        """Close every open conversation's session (the server is stopping)."""
        for agent in self._open.values():
            if agent.session is not None:
                agent.session.close()
        self._open.clear()


def _is_a2a(entries: Iterable[Entry]) -> bool:
    """Whether a session's entries mark it as an A2A conversation."""
    return any(entry.type == CUSTOM and entry.data.get("custom_type") == CONTEXT_ENTRY for entry in entries)
