"""Reading a session log back: repair what is damaged, say what was repaired, refuse only a log with no header.

A log is written as the run happens, so a crash or a full disk can leave it
damaged. The loader never gives up on the entries it can read:

* a last line cut short (no newline, not JSON) is dropped: a write torn by a crash;
* a line in the middle that is not an entry is skipped, and when a torn write
  was glued to the next entry's line, that entry is recovered: a torn write
  never swallows the next entry;
* an entry of a type this version does not know is kept verbatim, written back
  unchanged, and left out of the conversation; so is a known entry whose
  payload cannot be read;
* an entry whose parent is missing (the parent's line was lost) is re-parented
  to the last entry before it, the nearest ancestor left;
* a repeated entry id keeps its first entry;
* a line longer than :data:`MAX_LINE_BYTES` is skipped unread.

Loading costs time in proportion to the log's size, whatever its lines hold:
each line is decoded once, and a damaged one at most three times more (see
:func:`_decode` and :func:`_salvage`).

Each repair is one line of :attr:`LoadedLog.repairs`. A log that needs none is
written back (:meth:`LoadedLog.to_bytes`) byte for byte as it was read.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import field
from typing import Any

from agentkit.plugin_api import message_from_dict
from agentkit.plugin_api._dataclass import dataclass

from ..errors import SessionLoadError
from ._entries import (
    ENTRY_TYPES,
    MESSAGE,
    SESSION_VERSION,
    Entry,
    SessionHeader,
    loaded_entry,
    read_payload,
    reparented,
)

#: How a line written by agentkit begins: a torn line is searched for it.
_ENTRY_START = b'{"id":'

#: The longest line a log is read with (32 MiB): an entry holds one message, and no provider
#: takes a request that large. A longer line is skipped without being decoded.
MAX_LINE_BYTES = 32 * 1024 * 1024

#: Read backwards (see :func:`_last_object_start`): everything up to the next bracket outside a string. A
#: string read backwards runs from its closing quote to the first quote that no odd run of backslashes
#: escapes (read backwards, the run follows the quote). Possessive: each byte is read once.
_UP_TO_A_BRACKET = re.compile(rb'(?:[^"\[\]{}]++|"(?:[^"]++|"(?=\\(?:\\\\)*+(?!\\)))*+")*+')
_BRACKETS = re.compile(rb"[\[\]{}]+")


@dataclass
class LoadedLog:
    """A parsed session log: its header, its entries in file order, and the repairs made on the way."""

    header: SessionHeader
    entries: list[Entry] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)

    def to_bytes(self) -> bytes:
        """The log as lines: what was read, less what the repairs dropped."""
        return b"".join(line + b"\n" for line in (self.header.raw, *(entry.raw for entry in self.entries)))


#: The C scanner ``json.loads`` ends in, called without the three Python frames around it (see :func:`_decode`).
_SCAN_ONCE: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def parse_log(data: bytes, name: str = "session log", *, max_line_bytes: int = MAX_LINE_BYTES) -> LoadedLog:
    """Parse and repair the bytes of a session log.

    :param name: how reports name the log (its path).
    :param max_line_bytes: a longer line is skipped (reported as a repair) without being decoded.
    :raises SessionLoadError: the first line is not a session header; nothing else raises.
    """
    # Loading builds a few objects per entry and no reference cycle, yet the cyclic collector, counting
    # allocations, walked every object built so far again and again: 150 of the 270 ms of CPU that
    # loading 10,000 entries took (bench/bench_sessions.py). It is paused while the log is read, and
    # what was built joins the oldest generation without a walk (freeze, then unfreeze), where the
    # first collection after the pause spent 35 ms walking it once more; unless the process froze
    # objects of its own, which unfreezing would release.
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        return _parse(data, name, max_line_bytes)
    finally:
        if collecting:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _parse(data: bytes, name: str, max_line_bytes: int) -> LoadedLog:
    lines = data.split(b"\n")
    ends_cleanly = lines[-1] == b""
    if ends_cleanly:
        lines.pop()
    if not lines:
        raise SessionLoadError(f"{name} is empty: it is not a session log")
    if len(lines[0]) > max_line_bytes:
        raise SessionLoadError(f"{name} is not a session log: its first line has {len(lines[0])} bytes, over the "
                               f"limit of {max_line_bytes} bytes for one line")
    header = _header(lines[0], name)
    log = LoadedLog(header)
    if len(lines) == 1 and not ends_cleanly:
        log.repairs.append("line 1: the header had no newline; added")
    seen: set[str] = set()
    last = len(lines)
    for number, line in enumerate(lines[1:], start=2):
        last_unterminated = number == last and not ends_cleanly
        if len(line) > max_line_bytes:
            log.repairs.append(f"line {number}: {len(line)} bytes, over the limit of {max_line_bytes} bytes for "
                               "one line; skipped")
            continue
        entry, problem, unreadable = _entry(line)
        if entry is None and not last_unterminated:
            entry, problem, unreadable = _salvage(line, problem)
        if entry is None:
            if last_unterminated:
                log.repairs.append(f"line {number}: a truncated last line ({len(line)} bytes) was dropped")
            else:
                log.repairs.append(f"line {number}: {problem}; skipped")
            continue
        if problem:
            log.repairs.append(f"line {number}: {problem}")
        elif last_unterminated:
            log.repairs.append(f"line {number}: the last entry had no newline; added")
        if entry.id in seen:
            log.repairs.append(f"line {number}: entry {entry.id} repeats an earlier id; skipped")
            continue
        if entry.parent_id is not None and entry.parent_id not in seen:
            nearest = log.entries[-1].id if log.entries else None
            log.repairs.append(f"line {number}: entry {entry.id} names a missing parent {entry.parent_id}; "
                               f"re-parented to {nearest or 'the root'}")
            entry = reparented(entry, nearest)
        if unreadable:
            log.repairs.append(f"line {number}: entry {entry.id} ({entry.type}): {unreadable}; "
                               "kept as it is, left out of the conversation")
        elif entry.type not in ENTRY_TYPES:  # not entry.known: a property call less per entry
            log.repairs.append(f"line {number}: entry {entry.id} has a type this version does not know "
                               f"({entry.type!r}); kept as it is")
        seen.add(entry.id)
        log.entries.append(entry)
    return log


def _decode(line: bytes) -> Any:
    """The JSON value of a line, or ``None`` when it is not one: what ``json.loads`` of the line gives.

    A line agentkit wrote is one JSON value from its first byte to its last, which the scanner
    ``json.loads`` ends in reads alone; any other line (whitespace around the value, more after it,
    no value) is left to ``json.loads`` itself, so both ways accept exactly the same lines.
    """
    try:
        text = line.decode("utf-8")
    except ValueError:  # UnicodeDecodeError
        return None
    try:
        value, end = _SCAN_ONCE(text, 0)
        if end == len(text):
            return value
    except (StopIteration, ValueError, RecursionError):
        pass
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _header(line: bytes, name: str) -> SessionHeader:
    data = _decode(line)
    if not isinstance(data, dict) or data.get("type") != "session" or not _is_id(data.get("id")):
        raise SessionLoadError(f"{name} is not a session log: its first line is not a session header")
    version = data.get("version")
    parent = data.get("parent_session")
    return SessionHeader(
        data["id"], _text(data.get("timestamp")), _text(data.get("cwd")),
        version if isinstance(version, int) and not isinstance(version, bool) else SESSION_VERSION,
        parent if isinstance(parent, str) else None, line,
    )


def _entry(line: bytes) -> tuple[Entry | None, str, str]:
    """The entry a line holds with its payload read, or ``None`` and what is wrong with the line.

    The third value says why a known payload cannot be read (the entry is then marked damaged).
    """
    if not line.strip():
        return None, "a blank line", ""
    try:  # _decode's first way, inline: a call less per entry
        text = line.decode("utf-8")
        data, end = _SCAN_ONCE(text, 0)
        if end != len(text):
            data = _decode(line)
    except (ValueError, StopIteration, RecursionError):
        data = _decode(line)
    if data is None:
        return None, "not JSON (a torn write?)", ""
    if type(data) is not dict:
        return None, "not an entry (it needs a string id and type)", ""
    entry_id, kind, parent = data.get("id"), data.get("type"), data.get("parent_id")
    if not (type(entry_id) is str and entry_id and type(kind) is str):  # json gives exact str and dict
        return None, "not an entry (it needs a string id and type)", ""
    if kind == "session":
        return None, "a second session header", ""
    if parent is not None and not (type(parent) is str and parent):
        return None, "not an entry (its parent_id is neither a string id nor null)", ""
    message, unreadable = None, ""
    payload = data.get("message")
    if kind == MESSAGE and type(payload) is dict:  # read_payload's first case, inline: a call less per entry
        try:
            message = message_from_dict(payload)
        except Exception as exc:  # as read_payload words it
            unreadable = f"its message cannot be read ({type(exc).__name__}: {exc})"
    elif kind in ENTRY_TYPES:
        try:
            message = read_payload(kind, data)
        except ValueError as exc:
            unreadable = str(exc)
    fields: Mapping[str, Any] = data if message is None else _LineFields(line)
    return (loaded_entry(entry_id, parent, kind, data.get("timestamp"), fields, line, message, bool(unreadable)),
            "", unreadable)


class _LineFields(Mapping[str, Any]):
    """The fields of a message entry's line, decoded again when first asked for.

    The message itself was read from them at load; keeping the decoded fields as well held every
    message twice, and loading 10,000 entries took 110 ms of CPU with them kept, 91 without
    (bench/bench_sessions.py). They are asked for only to show or rewrite a line.
    """

    __slots__ = ("_fields", "_line")

    def __init__(self, line: bytes) -> None:
        self._line = line
        self._fields: dict[str, Any] | None = None

    def _decoded(self) -> Any:
        if self._fields is None:
            self._fields = _decode(self._line)  # the line was decoded to a JSON object once already
        return self._fields

    def __getitem__(self, key: str) -> Any:
        return self._decoded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded())

    def __len__(self) -> int:
        return len(self._decoded())


def _salvage(line: bytes, problem: str) -> tuple[Entry | None, str, str]:
    """An entry glued after the bytes of a torn write, if the line holds one.

    Only one place can hold it: where the JSON object that ends the line
    begins (see :func:`_last_object_start`). Decoding from every entry start
    instead costs the square of the line's length on a line of nothing but
    entry starts.
    """
    start = _last_object_start(line)
    if start > 0 and line.startswith(_ENTRY_START, start):
        entry, _, unreadable = _entry(line[start:])
        if entry is not None:
            return entry, f"{start} bytes of a torn write before entry {entry.id}; dropped, the entry kept", unreadable
    return None, problem, ""


def _last_object_start(line: bytes) -> int:
    """Where the line's last JSON value begins, when it is an object; -1 when no object ends the line.

    Read backwards, a JSON text that ends a line can be split only one way:
    a quote preceded by an odd number of backslashes is inside a string, any
    other closes one, and outside strings the brackets nest. So if any suffix
    of the line is one JSON object, it starts where this reading, from the
    end, first closes every bracket it opened. What comes before that point
    (a torn write) is never read, and each byte after it is read once.
    """
    backwards = line[::-1]
    depth, position, end = 0, 0, len(backwards)
    while True:
        position = _UP_TO_A_BRACKET.match(backwards, position).end()  # type: ignore[union-attr]  # matches ""
        run = _BRACKETS.match(backwards, position)
        if run is None:
            return -1  # the end of the line, or a string never opened: no object
        brackets = run.group()
        opening = brackets.count(b"[") + brackets.count(b"{")
        for index, bracket in enumerate(brackets):
            if depth > opening:  # what is left of the run cannot close every bracket: counted, not walked
                depth += len(brackets) - index - 2 * opening
                break
            if bracket in b"]}":
                depth += 1
                continue
            depth, opening = depth - 1, opening - 1
            if depth == 0:
                return end - 1 - position - index if bracket == ord("{") else -1
            if depth < 0:
                return -1
        position = run.end()


def _is_id(value: object) -> bool:
    return isinstance(value, str) and value != ""


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
