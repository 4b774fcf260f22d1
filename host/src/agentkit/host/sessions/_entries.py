"""The lines of a session log: one header, then entries.

A session log is JSON Lines, append-only::

    {"type":"session","version":1,"id":"…","timestamp":"2026-…Z","cwd":"/work"}
    {"id":"…","parent_id":null,"type":"model_change","timestamp":"…","model":"anthropic/claude-sonnet-4-6"}
    {"id":"…","parent_id":"…","type":"message","timestamp":"…","message":{"role":"user",…}}

Every entry names its parent, so the entries form a tree (see :mod:`._tree`).
Each entry keeps the exact bytes of its line (``raw``): what is loaded is
written back byte for byte, tool-call argument text, thinking signatures and
numbers included, and an entry of a type this version does not know survives
a load and a fork unchanged.
"""

from __future__ import annotations

import datetime
import json
import secrets
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from agentkit.plugin_api import Message, message_from_dict
from agentkit.plugin_api._dataclass import dataclass

#: The log format this host writes; it reads this one.
SESSION_VERSION = 1

MESSAGE = "message"
MODEL_CHANGE = "model_change"
THINKING_LEVEL_CHANGE = "thinking_level_change"
COMPACTION = "compaction"
BRANCH_SUMMARY = "branch_summary"
CUSTOM = "custom"
#: The ``custom_type`` of the entry that links a subagent's session from its parent's log.
SUBAGENT_ENTRY = "subagent"
#: The ``custom_type`` of the entry that keeps an event ``agentkit rpc`` published.
EVENT_ENTRY = "event"
#: The entry types of format version 1; any other is kept verbatim and otherwise ignored.
ENTRY_TYPES = frozenset({MESSAGE, MODEL_CHANGE, THINKING_LEVEL_CHANGE, COMPACTION, BRANCH_SUMMARY, CUSTOM})


def now() -> str:
    """A UTC timestamp as entries carry it: ISO 8601, milliseconds, ``Z``."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_id() -> str:
    """A fresh entry or session id: 16 random hex digits."""
    return secrets.token_hex(8)


def encode_line(value: Mapping[str, Any]) -> bytes:
    """One JSON line (without its newline), compact, UTF-8.

    Text is kept as UTF-8 rather than ``\\u`` escapes; a string holding a
    lone surrogate (which UTF-8 cannot carry) falls back to escapes.
    """
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, separators=(",", ":")).encode("ascii")


@dataclass(frozen=True, slots=True)
class SessionHeader:
    """The first line of a log: what the session is, where and when it began.

    :param parent_session: the session this one was forked from, if any.
    :param raw: the exact bytes of the line.
    """

    id: str
    timestamp: str
    cwd: str
    version: int = SESSION_VERSION
    parent_session: str | None = None
    raw: bytes = field(default=b"", repr=False)

    @classmethod
    def new(cls, cwd: str, *, id: str | None = None, parent_session: str | None = None) -> SessionHeader:
        """A header for a new session in ``cwd``."""
        data: dict[str, Any] = {"type": "session", "version": SESSION_VERSION, "id": id or new_id(),
                                "timestamp": now(), "cwd": cwd}
        if parent_session is not None:
            data["parent_session"] = parent_session
        return cls(data["id"], data["timestamp"], cwd, SESSION_VERSION, parent_session, encode_line(data))


@dataclass(frozen=True, slots=True)
class Entry:
    """One line after the header.

    :param data: every field of the line, as parsed.
    :param raw: the exact bytes of the line, without its newline.
    :param message: for a ``message`` entry, the message.
    :param damaged: a known type whose payload could not be read: kept, written
        back, and left out of the conversation.
    """

    id: str
    parent_id: str | None
    type: str
    timestamp: Any
    data: Mapping[str, Any] = field(repr=False)
    raw: bytes = field(repr=False)
    message: Message | None = field(default=None, repr=False)
    damaged: bool = False

    @property
    def known(self) -> bool:
        """Whether this version of agentkit knows the entry's type (an unknown one is only kept)."""
        return self.type in ENTRY_TYPES


#: The slot setters of :class:`Entry`, in field order (see :func:`loaded_entry`).
_ENTRY_SLOTS = tuple(Entry.__dict__[name].__set__ for name in
                     ("id", "parent_id", "type", "timestamp", "data", "raw", "message", "damaged"))


def loaded_entry(id: str, parent_id: str | None, type: str, timestamp: Any, data: Mapping[str, Any], raw: bytes,
                 message: Message | None, damaged: bool) -> Entry:
    """``Entry(...)`` for the loader, which makes one per line: the frozen dataclass's ``__init__`` sets each
    field through ``object.__setattr__``, 0.85 us an entry where the slots' own setters take 0.53 us
    (10,000 entries: 3 of the 80 ms that loading them costs, bench/bench_sessions.py)."""
    entry = object.__new__(Entry)
    set_id, set_parent_id, set_type, set_timestamp, set_data, set_raw, set_message, set_damaged = _ENTRY_SLOTS
    set_id(entry, id)
    set_parent_id(entry, parent_id)
    set_type(entry, type)
    set_timestamp(entry, timestamp)
    set_data(entry, data)
    set_raw(entry, raw)
    set_message(entry, message)
    set_damaged(entry, damaged)
    return entry


def new_entry(type: str, parent_id: str | None, fields: Mapping[str, Any], message: Message | None = None) -> Entry:
    """A new entry of ``type`` under ``parent_id``, with its payload ``fields``."""
    data = {"id": new_id(), "parent_id": parent_id, "type": type, "timestamp": now(), **fields}
    return Entry(data["id"], parent_id, type, data["timestamp"], data, encode_line(data), message)


def message_entry(message: Message, parent_id: str | None) -> Entry:
    return new_entry(MESSAGE, parent_id, {"message": message.to_dict()}, message)


def reparented(entry: Entry, parent_id: str | None) -> Entry:
    """``entry`` under another parent: the one repair that rewrites a line."""
    data = {**entry.data, "parent_id": parent_id}
    return Entry(entry.id, parent_id, entry.type, entry.timestamp, data, encode_line(data), entry.message)


def read_payload(kind: str, data: Mapping[str, Any]) -> Message | None:
    """Check the payload of a known entry type; the message of a ``message`` entry.

    :raises ValueError: the payload is not what the type says (any other
        exception of the message decoder is turned into this one).
    """
    if kind == MESSAGE:
        payload = data.get("message")
        if not isinstance(payload, dict):
            raise ValueError("a message entry without a message object")
        try:
            return message_from_dict(payload)
        except Exception as exc:  # the canonical decoder's KeyError, TypeError...: a damaged message
            raise ValueError(f"its message cannot be read ({type(exc).__name__}: {exc})") from exc
    expected: dict[str, tuple[tuple[str, tuple[type, ...]], ...]] = {
        MODEL_CHANGE: (("model", (str,)),),
        THINKING_LEVEL_CHANGE: (("thinking_level", (str, type(None))),),
        COMPACTION: (("summary", (str,)), ("first_kept_entry_id", (str,))),
        BRANCH_SUMMARY: (("summary", (str,)), ("from_id", (str, type(None)))),
        CUSTOM: (("custom_type", (str,)),),
    }
    for name, allowed in expected.get(kind, ()):
        if not isinstance(data.get(name), allowed):
            raise ValueError(f"field {name!r} is missing or not a {' or '.join(k.__name__ for k in allowed)}")
    return None
