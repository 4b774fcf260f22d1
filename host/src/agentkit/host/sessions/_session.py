"""A session: an append-only log in a store, its tree of entries, and what resuming it gives."""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import Message

from ..errors import SessionNotFound
from ._artifacts import ArtifactStore
from ._entries import (
    BRANCH_SUMMARY,
    COMPACTION,
    CUSTOM,
    MODEL_CHANGE,
    THINKING_LEVEL_CHANGE,
    Entry,
    SessionHeader,
    message_entry,
    new_entry,
)
from ._store import JsonlSessionStore, SessionListing, SessionStore
from ._tree import Resume, Tree, fold

if TYPE_CHECKING:
    from .._config import AgentConfig

_LEAF: Any = object()


class Session:
    """A session log: read it, resume it, append to it, branch it, fork it.

    Make one with :meth:`new` (nothing is written until its first entry) or
    :meth:`open`; hand it to :class:`~agentkit.host.Agent` (``session=``) and
    every run is written to it as it happens. Appends go after the *leaf*,
    the current position in the tree (after a load, the last entry written).

    :param store: where the log is kept; default a :class:`JsonlSessionStore`
        in the data directory.
    """

    def __init__(self, store: SessionStore, header: SessionHeader, entries: list[Entry] | None = None,
                 repairs: list[str] | None = None, *, stored: bool = True) -> None:
        self.store = store
        self.header = header
        #: Every entry, in the order written.
        self.entries: list[Entry] = list(entries or ())
        #: What loading repaired, one line each (empty for a sound log, and for a new session).
        self.repairs: list[str] = list(repairs or ())
        self._tree = Tree(self.entries)
        self._stored = stored
        self.leaf_id: str | None = self.entries[-1].id if self.entries else None
        # The last fold, by (leaf, entries): opening a session and resuming it folded the branch twice.
        self._resumed: tuple[tuple[str | None, int], Resume] | None = None
        self._settings = self.resume()

    # -- making and finding ----------------------------------------------------------

    @classmethod
    def new(cls, store: SessionStore | None = None, *, cwd: str | os.PathLike[str] | None = None,
            id: str | None = None) -> Session:
        """A new, empty session in ``cwd`` (default: the current directory); stored at its first entry."""
        header = SessionHeader.new(os.fspath(cwd) if cwd is not None else os.getcwd(), id=id)
        return cls(store if store is not None else JsonlSessionStore(), header, stored=False)

    @classmethod
    def open(cls, session_id: str, store: SessionStore | None = None) -> Session:
        """Load a stored session, repairing what is damaged (see :attr:`repairs`).

        ``session_id`` may be a unique prefix of the id.

        :raises SessionNotFound: no session has this id, or the prefix is ambiguous.
        """
        store = store if store is not None else JsonlSessionStore()
        try:
            log = store.load(session_id)
        except SessionNotFound:
            log = store.load(find_session(store, session_id).id)
        return cls(store, log.header, log.entries, log.repairs)

    @classmethod
    def most_recent(cls, store: SessionStore | None = None) -> Session | None:
        """The session written to last, or ``None`` when there is none."""
        store = store if store is not None else JsonlSessionStore()
        listings = store.list_sessions()
        if not listings:
            return None
        latest = max(listings, key=lambda item: (item.updated, item.started, item.id))
        return cls.open(latest.id, store)

    # -- reading ---------------------------------------------------------------------

    @property
    def id(self) -> str:
        return self.header.id

    def entry(self, entry_id: str) -> Entry:
        """The entry with this id (a unique prefix is enough).

        :raises KeyError: no entry, or more than one, matches.
        """
        if entry_id in self._tree.by_id:
            return self._tree.by_id[entry_id]
        matches = [entry for entry in self.entries if entry.id.startswith(entry_id)] if entry_id else []
        if len(matches) != 1:
            raise KeyError(f"session {self.id} has {'no' if not matches else 'more than one'} entry {entry_id!r}")
        return matches[0]

    def path(self, entry_id: str | None = _LEAF) -> list[Entry]:
        """The entries from the root to ``entry_id`` (default: the leaf), in order."""
        if entry_id is _LEAF:
            return self._tree.path(self.leaf_id)
        return self._tree.path(None if entry_id is None else self.entry(entry_id).id)

    def leaves(self) -> list[Entry]:
        """The entries no other entry continues: the ends of the branches, in the order written."""
        return self._tree.leaves(self.entries)

    def resume(self) -> Resume:
        """The fold of the current branch: model, thinking level and conversation to continue with."""
        key = (self.leaf_id, len(self.entries))
        if self._resumed is None or self._resumed[0] != key:
            self._resumed = key, fold(self.path())
        kept = self._resumed[1]
        return dataclasses.replace(kept, messages=list(kept.messages))  # the caller's own, to change at will

    def messages(self) -> list[Message]:
        """The conversation of the current branch."""
        return self.resume().messages

    def config_for(self, config: AgentConfig) -> AgentConfig:
        """``config`` with the model and thinking level the session left off with (where it recorded them)."""
        resume = self._settings
        changes: dict[str, Any] = {}
        if resume.model is not None:
            changes["model"] = resume.model
        if resume.thinking_level_changed:
            changes["reasoning"] = resume.thinking_level
        return dataclasses.replace(config, **changes)

    @property
    def model(self) -> str | None:
        """The model the current branch last ran with, as the fold finds it."""
        return self._settings.model

    @property
    def thinking_level(self) -> str | None:
        return self._settings.thinking_level

    # -- appending -------------------------------------------------------------------

    def append_message(self, message: Message) -> Entry:
        """Append a message at the leaf."""
        return self._append(message_entry(message, self.leaf_id))

    def set_model(self, model: str) -> Entry:
        """Record that the conversation goes on with ``model`` (``vendor/model``)."""
        return self._append(new_entry(MODEL_CHANGE, self.leaf_id, {"model": model}))

    def set_thinking_level(self, level: str | None) -> Entry:
        """Record that the conversation goes on with thinking level ``level`` (``None``: the model's default)."""
        return self._append(new_entry(THINKING_LEVEL_CHANGE, self.leaf_id, {"thinking_level": level}))

    def append_compaction(self, summary: str, first_kept_entry_id: str) -> Entry:
        """Record a compaction: ``summary`` stands for the entries before ``first_kept_entry_id``, which stay."""
        return self._append(new_entry(COMPACTION, self.leaf_id,
                                      {"summary": summary, "first_kept_entry_id": first_kept_entry_id}))

    def append_custom(self, custom_type: str, data: Any = None) -> Entry:
        """Record an application's own entry (never shown to the model); ``data`` must be JSON."""
        return self._append(new_entry(CUSTOM, self.leaf_id, {"custom_type": custom_type, "data": data}))

    def branch(self, entry_id: str | None, summary: str = "") -> Entry | None:
        """Move the leaf to ``entry_id`` (``None``: the root), leaving the current branch.

        A ``branch_summary`` entry is appended there: it records the leaf left
        (``from_id``), and a non-empty ``summary`` of the branch left is shown
        to the model when the conversation goes on. Branching to the leaf
        itself does nothing and returns ``None``.
        """
        target = None if entry_id is None else self.entry(entry_id).id
        if target == self.leaf_id:
            return None
        return self._append(new_entry(BRANCH_SUMMARY, target, {"from_id": self.leaf_id, "summary": summary}))

    def fork(self, entry_id: str | None = _LEAF, store: SessionStore | None = None) -> Session:
        """A new session holding the branch from the root to ``entry_id`` (default: the leaf), its lines as they are.

        Its header names this session as ``parent_session``, and it has the artifacts of this
        one (see ``docs/artifacts.md``): its history names them.
        """
        path = self.path(entry_id)
        header = SessionHeader.new(self.header.cwd, parent_session=self.id)
        forked = Session(store if store is not None else self.store, header, path, stored=False)
        forked._store_header()
        if path:
            forked.store.append(forked.id, path, expected_last=None)
        ArtifactStore().copy(self.id, forked.id)
        return forked

    def checkpoint(self) -> None:
        """Make what was appended durable now, when the store defers it (``Durability.TURN``)."""
        if self._stored:
            self.store.checkpoint(self.id)

    def close(self) -> None:
        """Let go of the file (and its lock) the store holds for appending; appending again reopens it."""
        if self._stored:
            self.store.close(self.id)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _store_header(self) -> None:
        self.store.create(self.header)
        self._stored = True

    def _append(self, entry: Entry) -> Entry:
        if not self._stored:
            self._store_header()
        self.store.append(self.id, [entry], expected_last=self.entries[-1].id if self.entries else None)
        self.entries.append(entry)
        self._tree.add(entry)
        self.leaf_id = entry.id
        if entry.type == BRANCH_SUMMARY:
            self._settings = fold(self.path())
        elif entry.type == MODEL_CHANGE:
            self._settings.model = entry.data["model"]
        elif entry.type == THINKING_LEVEL_CHANGE:
            self._settings.thinking_level, self._settings.thinking_level_changed = entry.data["thinking_level"], True
        return entry


def find_session(store: SessionStore, session_id: str) -> SessionListing:
    """The stored session whose id is ``session_id``, or the one it is a unique prefix of.

    :raises SessionNotFound: none, or several, match.
    """
    listings = store.list_sessions()
    exact = [item for item in listings if item.id == session_id]
    matches = exact or [item for item in listings if session_id and item.id.startswith(session_id)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise SessionNotFound(f"no session {session_id!r}; see 'agentkit sessions list'")
    shown = ", ".join(sorted(item.id for item in matches)[:_CANDIDATES_SHOWN])
    more = f" and {len(matches) - _CANDIDATES_SHOWN} more" if len(matches) > _CANDIDATES_SHOWN else ""
    raise SessionNotFound(f"{session_id!r} is the start of {len(matches)} session ids ({shown}{more}); "
                          "give more of it")


#: How many of the sessions an ambiguous prefix matches its error names.
_CANDIDATES_SHOWN = 5
