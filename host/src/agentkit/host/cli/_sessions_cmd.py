"""``agentkit sessions list|show|fork|export|delete``: the sessions kept in the data directory.

Sessions live in ``sessions/`` under ``$AGENTKIT_DATA_DIR`` (else the
platform's user data directory), or in the store ``--store URL`` (else
``$AGENTKIT_SESSION_STORE``) names, see :mod:`..sessions._selection`. An id may be shortened to any unique
prefix. ``show`` renders the current branch of a session for reading (control
characters of model and tool text removed), ``--json`` gives every entry as
stored; both list the session's artifacts. ``delete`` removes a session and
its artifacts. What loading repaired is printed to stderr, one line each.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from agentkit.plugin_api.errors import UsageError

from .._audit import AUDIT_ENTRY, describe
from .._terminal import visible, visible_line
from ..errors import SessionConflict
from ..sessions import ArtifactStore, LoadedLog, find_session, open_store
from ..sessions._entries import EVENT_ENTRY, SUBAGENT_ENTRY, Entry
from ..sessions._store import iso_utc
from .support import add_store_option, open_session

#: How much of one message ``show`` prints before it cuts the rest.
_SHOWN_CHARS = 2000


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sessions = commands.add_parser("sessions")
    actions = sessions.add_subparsers(dest="action", metavar="ACTION", parser_class=type(sessions))
    listing = actions.add_parser("list", help="list the stored sessions, the most recent first")
    listing.add_argument("--json", action="store_true", help="print the list as JSON")
    show = actions.add_parser("show", help="show a session's current branch")
    show.add_argument("id", help="the session's id, or a unique prefix of it")
    show.add_argument("--json", action="store_true", help="print the header, the repairs and every entry as JSON")
    fork = actions.add_parser("fork", help="copy a session's branch into a new session; prints the new id")
    fork.add_argument("id", help="the session's id, or a unique prefix of it")
    fork.add_argument("--entry", default=None, help="fork at this entry (default: the current leaf)")
    export = actions.add_parser("export", help="write a session's log (repaired) as JSON Lines")
    export.add_argument("id", help="the session's id, or a unique prefix of it")
    export.add_argument("--output", "-o", default=None, help="a file to write (default: stdout)")
    delete = actions.add_parser("delete", help="delete a session and its artifacts")
    delete.add_argument("id", help="the session's id, or a unique prefix of it")
    delete.set_defaults(handler=delete_session)
    for action in (listing, show, fork, export, delete):
        add_store_option(action)
    listing.set_defaults(handler=list_sessions)
    show.set_defaults(handler=show_session)
    fork.set_defaults(handler=fork_session)
    export.set_defaults(handler=export_session)
    sessions.set_defaults(handler=lambda args: sessions.error(
        "say what to do: 'agentkit sessions list', 'show ID', 'fork ID', 'export ID' or 'delete ID'"))


#: The columns of ``sessions list``, as ``docker ps`` and ``kubectl get`` head theirs.
_COLUMNS = ("ID", "STARTED", "UPDATED", "CWD")


def list_sessions(args: argparse.Namespace) -> int:
    store = open_store(args.store)
    rows = sorted(store.list_sessions(), key=lambda item: (item.updated, item.started, item.id), reverse=True)
    if args.json:  # the field names of SessionListing, both times as the table shows them
        print(json.dumps([row.record() for row in rows], indent=2, ensure_ascii=False))
        return 0
    if not rows:
        where = getattr(store, "directory", None) or getattr(store, "where", None) or "the store"
        print(f"no sessions in {where}; start one with 'agentkit run --session new ...'", file=sys.stderr)
        return 0
    records = [row.record() for row in rows]
    table = [_COLUMNS, *(tuple(visible_line(record[key]) for key in ("id", "started", "updated", "cwd"))
                         for record in records)]
    widths = [max(len(line[column]) for line in table) for column in range(len(_COLUMNS) - 1)]
    for line in table:
        print("  ".join([*(cell.ljust(width) for cell, width in zip(line, widths, strict=False)), line[-1]]))
    return 0


def show_session(args: argparse.Namespace) -> int:
    session = open_session(args.id, open_store(args.store))
    if args.json:
        print(json.dumps({
            "header": json.loads(session.header.raw),
            "repairs": session.repairs,
            "leaf_id": session.leaf_id,
            "leaves": [leaf.id for leaf in session.leaves()],
            "entries": [dict(entry.data) for entry in session.entries],
            "artifacts": [{"id": item.id, "size": item.size, "created": iso_utc(item.created)}
                          for item in ArtifactStore().list(session.id)],
        }, indent=2, ensure_ascii=False))
        return 0
    header = session.header
    print(f"session {visible_line(header.id)}  started {visible_line(str(header.timestamp))}  in {visible_line(header.cwd)}")
    if header.parent_session:
        print(f"forked from {visible_line(header.parent_session)}")
    events = 0
    for entry in session.path():
        if entry.type == "custom" and entry.data.get("custom_type") == EVENT_ENTRY:  # what agentkit rpc published
            events += 1
            continue
        for line in _render(entry):
            print(line)
    if events:
        print(f"{events} published events on this branch (see --json)")
    others = [leaf.id for leaf in session.leaves() if leaf.id != session.leaf_id]
    if others:
        print(f"other branches end at: {visible_line(', '.join(others))} "
              f"(see 'agentkit sessions fork {visible_line(header.id)} --entry ID')")
    for item in ArtifactStore().list(header.id):
        print(f"artifact {visible_line(item.id)}  {item.size} bytes  {iso_utc(item.created)}")
    return 0


def delete_session(args: argparse.Namespace) -> int:
    store = open_store(args.store)
    delete = getattr(store, "delete", None)
    if delete is None:
        raise UsageError(f"the session store {type(store).__name__} cannot delete sessions")
    session_id = find_session(store, args.id).id  # a unique prefix is enough; SessionNotFound names the fix
    try:
        delete(session_id)
    except SessionConflict as exc:
        raise UsageError(f"{exc}; it cannot be deleted while it is in use") from None
    ArtifactStore().delete(session_id)
    print(f"deleted session {visible_line(session_id)} and its artifacts")
    return 0


def fork_session(args: argparse.Namespace) -> int:
    session = open_session(args.id, open_store(args.store))
    try:
        forked = session.fork(args.entry) if args.entry is not None else session.fork()
    except KeyError as exc:
        raise UsageError(f"--entry: {exc.args[0]}") from None
    forked.close()
    print(forked.id)
    return 0


def export_session(args: argparse.Namespace) -> int:
    session = open_session(args.id, open_store(args.store))
    data = LoadedLog(session.header, session.entries).to_bytes()
    if args.output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:  # the user's alone, as the session itself
        try:
            fd = os.open(args.output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        except OSError as exc:
            raise UsageError(f"--output {args.output}: {exc.strerror}") from None
        with os.fdopen(fd, "wb") as file:
            file.write(data)
    return 0


def _render(entry: Entry) -> list[str]:
    """The lines ``show`` prints for one entry."""
    tag = visible_line(entry.id[:8])
    if entry.damaged or not entry.known:
        return [f"{tag} [{visible_line(entry.type)}] (kept as stored, not shown to the model)"]
    if entry.type == "model_change":
        return [f"{tag} [model] {visible_line(str(entry.data['model']))}"]
    if entry.type == "thinking_level_change":
        return [f"{tag} [thinking] {visible_line(str(entry.data['thinking_level'] or 'default'))}"]
    if entry.type == "branch_summary":
        return [f"{tag} [branch] came back from {visible_line(str(entry.data['from_id'] or 'the root'))}"
                + (f": {_cut(entry.data['summary'])}" if entry.data["summary"] else "")]
    if entry.type == "compaction":
        return [f"{tag} [compaction] {_cut(entry.data['summary'])}"]
    if entry.type == "custom" and entry.data["custom_type"] == AUDIT_ENTRY and isinstance(entry.data.get("data"), dict):
        return [f"{tag} [audit] {_cut(describe(entry.data['data']))}"]
    if entry.type == "custom" and entry.data["custom_type"] == SUBAGENT_ENTRY and isinstance(entry.data.get("data"), dict):
        link = entry.data["data"]
        return [f"{tag} [subagent {visible_line(str(link.get('agent')))}] "
                f"session {visible_line(str(link.get('session_id')))}"]
    if entry.type == "custom":
        return [f"{tag} [custom {visible_line(str(entry.data['custom_type']))}]"]
    return _render_message(tag, entry.message.to_dict() if entry.message is not None else {})


def _render_message(tag: str, message: dict[str, Any]) -> list[str]:
    role = message.get("role", "?")
    if role == "tool_result":
        role = f"{'tool error' if message.get('is_error') else 'tool result'} {message.get('tool_name', '')}"
    lines = [f"{tag} [{visible_line(str(role))}]"]
    for block in message.get("content", []):
        kind = block.get("type")
        if kind == "text":
            lines.append(_indent(_cut(block["text"])))
        elif kind == "thinking":
            lines.append(_indent("(thinking) " + _cut(block["thinking"])))
        elif kind == "tool_use":
            lines.append(_indent(f"-> {visible_line(str(block['name']))} {_cut(block['arguments'])}"))
        elif kind in ("image", "document", "audio"):
            shown = block.get("url") or block.get("name") or block.get("mime_type", "")
            lines.append(_indent(f"({kind} {visible_line(str(shown))})"))
    if message.get("error_message"):
        lines.append(_indent(f"({visible_line(str(message.get('stop_reason')))}: {_cut(message['error_message'])})"))
    return lines


def _cut(text: str) -> str:
    text = visible(text)
    return text if len(text) <= _SHOWN_CHARS else f"{text[:_SHOWN_CHARS]}... ({len(text) - _SHOWN_CHARS} more characters)"


def _indent(text: str) -> str:
    return "    " + text.replace("\n", "\n    ")


