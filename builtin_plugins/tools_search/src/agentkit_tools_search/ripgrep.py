"""The ripgrep backend: ``rg --json`` over exactly the files the ignore engine chose.

ripgrep never walks or filters here. It is handed our file list, relative to
the root, with its own ignore handling and globbing off: its rules about when
a ``.gitignore`` counts differ from git's, and a post-filter cannot bring back
a file it was told not to open. Lists are handed over in chunks that grow
(a search that stops early has not scanned thousands of files) up to a cap
(the walk lists the next chunk while ripgrep scans one, so little is left to
scan when the walk ends), each searched by several threads; answers are put
back in list order per file.

The first files are not handed over at all when the pattern has a native
translation (decision 0013): reading a few small files here costs less than
starting ripgrep, and a page that fills among them is answered without it.

Binary files: given a path explicitly, ripgrep prints every matching line of a
file, NUL or not. So each chunk is scanned in two steps: ripgrep reports at
most one line per file (``--max-count 1``: which files match, one line however
binary the file), each of those files is read here (through
:class:`WalkedFiles`), a binary one is dropped, and ripgrep is asked for the
lines of the text ones only, no more per file than the page still needs.

Containment: ripgrep opens the paths it is given itself, and the kernel follows
a link on the way, so a directory swapped for a link to the outside between
our walk and its open could be read. Nothing ripgrep read reaches the answer
unchecked: every file it reports is opened here again through
:class:`WalkedFiles` (never through a link), and the lines shown are taken from
those bytes. If the lines ripgrep reported are not the lines of that file, it
read something else: the file is searched again by ripgrep through the
descriptor we hold (``/proc/self/fd/N``), which names exactly that file.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agentkit.plugin_api.workspace import WalkedFiles, descriptors_available

from .dialect import PatternError, UntranslatablePattern
from .native import NativeScanner, shown
from .query import Match, Outcome, Query, line_text

__all__ = ["RipgrepError", "RipgrepRefused", "find_rg", "search_rg"]


def _argument_room() -> int:
    try:
        limit = os.sysconf("SC_ARG_MAX")
    except (AttributeError, ValueError, OSError):
        limit = -1
    # A quarter of the limit: the environment and ripgrep's own arguments share it.
    return max(32 * 1024, min(1024 * 1024, limit // 4)) if limit > 0 else 32 * 1024


#: Bytes of paths per ripgrep invocation, well below the argument-length limit.
CHUNK_BYTES = _argument_room()
#: Files in the first invocation (a page often fills there); each next one is four times larger,
FIRST_CHUNK = 64
#: up to this many: the walk lists a chunk while ripgrep scans the one before, so the last
#: chunk, scanned after the walk ends, is kept small.
MAX_CHUNK = 2048
#: Threads each ripgrep uses (it orders nothing: answers are reordered here).
THREADS = max(1, min(4, os.cpu_count() or 1))
#: The first files are read here, not by ripgrep, when the native translation of the pattern
#: exists (it answers as ripgrep does): a page that fills among them never pays ripgrep's start.
#: At most this many text files (the regex runs on them here, slower than in ripgrep)...
NATIVE_HEAD_FILES = 64
#: ...and this many bytes of them, among at most this many files in all (a binary file costs
#: a read and a look for its NUL, which ripgrep pays too, given a path).
NATIVE_HEAD_BYTES = 1024 * 1024
NATIVE_HEAD_ANY = 512
#: Most files whose lines one ripgrep call reports (each is held open meanwhile).
LINES_BATCH = 256


class RipgrepError(RuntimeError):
    """ripgrep could not run, or answered something this backend cannot read."""


class RipgrepRefused(RipgrepError):
    """ripgrep refused the pattern; its message says why."""


def find_rg(explicit: str | None = None) -> str | None:
    """The ``rg`` executable to use: an explicit path, else ``rg`` on PATH, else None."""
    found = (
        (explicit if Path(explicit).is_file() else shutil.which(explicit))
        if explicit
        else shutil.which("rg")
    )
    # Absolute, because ripgrep runs with the workspace root as its directory.
    return str(Path(found).resolve()) if found else None


def _bytes(field: dict) -> bytes:
    if "text" in field:
        return field["text"].encode("utf-8")
    return base64.b64decode(field["bytes"])


_COMMON = ["--no-config", "--no-ignore", "--hidden", "--no-messages"]


def _search_command(rg: str, query: Query, threads: int, max_count: int) -> list[str]:
    command = [rg, "--json", *_COMMON, "--encoding", "none", "--threads", str(threads)]
    # Per file: one match tells a file worth reading; no file needs more lines than the page.
    command += ["--max-count", str(max_count)]
    command.append("--ignore-case" if query.ignore_case else "--case-sensitive")
    return [*command, "-e", query.pattern, "--"]


def _chunks(files: Iterable[str], first: int) -> Iterator[tuple[int, list[str]]]:
    """``files`` in pieces growing fourfold from ``first`` up to MAX_CHUNK files or CHUNK_BYTES of paths."""
    source = iter(files)
    start, step = 0, max(1, first)
    while True:
        chunk: list[str] = []
        size = 0
        while len(chunk) < step and size < CHUNK_BYTES:
            relative = next(source, None)
            if relative is None:
                break
            chunk.append(relative)
            size += len(os.fsencode(relative)) + 1
        if not chunk:
            return
        yield start, chunk
        start, step = start + len(chunk), min(step * 4, MAX_CHUNK)


@dataclass
class _Reported:
    """What ripgrep said about one file: its matching lines, by number, as bytes."""

    hits: dict[int, bytes] = field(default_factory=dict)


def _start(command: list[str], cwd: str | Path, keep: list[int]) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(
            command,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            pass_fds=keep,
        )
    except OSError as exc:
        raise RipgrepError(f"could not run {command[0]}: {exc}") from exc


def _finish(process: subprocess.Popen[bytes]) -> bytes:
    """Wait for ``process`` and return the rest of its output; raise if ripgrep failed."""
    out, err = process.communicate()
    message = err.decode("utf-8", errors="replace").strip()
    if process.returncode == 2 and message:
        if "regex" in message or "literal" in message or "pattern" in message:
            raise RipgrepRefused(message)
        raise RipgrepError(message)
    return out


def _read_reports(process: subprocess.Popen[bytes]) -> tuple[dict[str, _Reported], int]:
    """Every file ripgrep reported a match in, and how many files it searched."""
    reports: dict[str, _Reported] = {}
    searched = 0
    assert process.stdout is not None
    for raw in process.stdout:
        event = json.loads(raw)
        kind, data = event["type"], event["data"]
        if kind == "match":
            path = os.fsdecode(_bytes(data["path"]))
            line = _bytes(data["lines"])
            reports.setdefault(path, _Reported()).hits[data["line_number"]] = line
        elif kind == "summary":
            searched = data["stats"]["searches"]
    return reports, searched


class _Session:
    """One search: the root held open, and ripgrep run against it chunk by chunk."""

    def __init__(self, query: Query, rg: str, files: WalkedFiles) -> None:
        self.query = query
        self.rg = rg
        self.files = files
        root_fd = files.root_fd
        fd_directory = next((d for d in ("/proc/self/fd", "/dev/fd") if os.path.isdir(d)), None)
        self.fd_directory = fd_directory if descriptors_available() else None
        if self.fd_directory and root_fd is not None:
            # ripgrep starts in the directory we hold, whatever the root's path names by now.
            self.cwd: str | Path = f"{self.fd_directory}/{root_fd}"
            self.keep = [root_fd]
        else:
            self.cwd, self.keep = query.root, []

    def start(self, chunk: list[str], max_count: int = 1) -> subprocess.Popen[bytes]:
        """ripgrep scanning ``chunk``, started (it runs while the walk lists the next chunk).

        With ``max_count`` 1 it reports at most one line per file: enough to tell which
        files match, and a binary file costs one line, however many of its lines match.
        """
        command = _search_command(self.rg, self.query, THREADS, max_count)
        return _start(command + chunk, self.cwd, self.keep)

    @staticmethod
    def collect(search: subprocess.Popen[bytes]) -> tuple[dict[str, _Reported], int]:
        """ripgrep's reports for its chunk, and how many of its files it read."""
        try:
            return _read_reports(search)
        except BaseException:
            search.kill()
            raise
        finally:
            _finish(search)

    def read(self, relative: str) -> bytes | None:
        """The bytes of ``relative`` as we reach it (never through a link); None if it is gone."""
        try:
            return self.files.read(relative)
        except OSError:
            return None

    def lines_of(self, candidates: list[tuple[str, bytes]], need: int) -> list[list[Match]]:
        """The matches of text files ripgrep said match, each shown from the bytes we read.

        ripgrep is asked again for their lines, at most ``need`` per file.
        """
        search = self.start([relative for relative, _ in candidates], max_count=need)
        reports, _ = self.collect(search)
        return [
            self.verified(relative, data, reports.get(relative, _Reported()), need)
            for relative, data in candidates
        ]

    def verified(self, relative: str, data: bytes, reported: _Reported, need: int) -> list[Match]:
        """The matches ripgrep reported for ``relative``, checked against the bytes we read."""
        lines = data.split(b"\n")
        if lines[-1] == b"":
            lines.pop()
        hits = reported.hits
        if any(n > len(lines) or lines[n - 1] != _unterminated(h) for n, h in hits.items()):
            # Not the lines of the file we read: ripgrep read another one (a swap won the
            # race). Ask it again about exactly the file we hold, and show that one.
            fd = self.files.open(relative)
            if fd is None:
                return []
            try:
                with os.fdopen(os.dup(fd), "rb") as handle:
                    data = handle.read()
                hits = {} if b"\x00" in data else self.rescan(fd, need)
            finally:
                os.close(fd)
            lines = data.split(b"\n")
            if lines[-1] == b"":
                lines.pop()
        # A file rewritten meanwhile may have lost lines ripgrep saw: show what is there.
        return self.matches(relative, lines, sorted(n for n in hits if n <= len(lines)))

    def rescan(self, fd: int, need: int) -> dict[int, bytes]:
        if self.fd_directory is None:
            return {}
        name = f"{self.fd_directory}/{fd}"
        command = [*_search_command(self.rg, self.query, 1, need), name]
        search = _start(command, self.cwd, [*self.keep, fd])
        reports, _ = _read_reports(search)
        _finish(search)
        return reports[name].hits if name in reports else {}

    def matches(self, relative: str, lines: list[bytes], numbers: list[int]) -> list[Match]:
        context = self.query.context_lines

        def text(number: int) -> str:
            return shown(line_text(lines[number - 1].decode("utf-8", "surrogateescape")))

        return [
            Match(
                relative,
                number,
                text(number),
                tuple(text(n) for n in range(max(1, number - context), number)),
                tuple(text(n) for n in range(number + 1, min(len(lines), number + context) + 1)),
            )
            for number in numbers
        ]


def _unterminated(line: bytes) -> bytes:
    return line[:-1] if line.endswith(b"\n") else line


def _native_head(query: Query, files: WalkedFiles, source: Iterator[str], outcome: Outcome) -> bool:
    """Scan the first files of ``source`` here; True if that answered the whole search.

    Only where the native translation of the pattern exists: the dialect is one
    (decision 0006), so its answers are ripgrep's.
    """
    if NATIVE_HEAD_FILES <= 0:
        return False
    try:
        scanner = NativeScanner(query)
    except (PatternError, UntranslatablePattern):
        return False
    budget, texts = NATIVE_HEAD_BYTES, NATIVE_HEAD_FILES
    for _ in range(NATIVE_HEAD_ANY):
        relative = next(source, None)
        if relative is None:
            return True
        try:
            data = files.read(relative)
        except OSError:
            continue
        if data is None:
            continue
        scanner.scan(relative, data, outcome)
        if len(outcome.matches) > query.needed:
            return True
        if b"\x00" not in data:
            budget, texts = budget - len(data), texts - 1
            if budget <= 0 or texts <= 0:
                break
    return False


def _stop(process: subprocess.Popen[bytes] | None) -> None:
    if process is not None and process.poll() is None:
        process.kill()
    if process is not None:
        process.communicate()


def _read_chunk(
    session: _Session, chunk: list[str], candidates: set[str], outcome: Outcome
) -> tuple[int | None, int]:
    """Add the matches of ``chunk``'s candidates (the files ripgrep found a match in), in order.

    :returns: the files of ``chunk`` searched if the page filled within it (the native
        backend's stop: every file up to that one; else None), and how many candidates
        were gone when opened here.
    """
    query = session.query
    gone = 0  # reported by ripgrep, gone (or swapped) when opened here
    pending: list[tuple[int, str, bytes]] = []  # text files whose lines ripgrep is asked for
    gone_before: dict[int, int] = {}  # by a pending file's index in the chunk

    def flush() -> int | None:
        need = query.needed + 1 - len(outcome.matches)
        found = session.lines_of([(relative, data) for _, relative, data in pending], need)
        for (index, _, _), matches in zip(pending, found, strict=True):
            outcome.matches.extend(matches)
            if len(outcome.matches) > query.needed:
                del outcome.matches[query.needed + 1 :]
                return index + 1 - gone_before[index]
        pending.clear()
        return None

    for index, relative in enumerate(chunk):
        if relative not in candidates:
            continue
        data = session.read(relative)
        if data is None:
            gone += 1
            continue
        if b"\x00" in data:
            continue  # binary: never shown
        gone_before[index] = gone
        pending.append((index, relative, data))
        # Each holds at least one match: these are all the page can still take.
        if len(pending) >= min(LINES_BATCH, query.needed + 1 - len(outcome.matches)):
            stopped = flush()
            if stopped is not None:
                return stopped, gone
    return (flush() if pending else None), gone


def search_rg(query: Query, rg: str) -> Outcome:
    """Scan ``query.files`` with ripgrep; same contract as :func:`.native.search_native`.

    :raises RipgrepRefused: ripgrep refused the pattern.
    :raises RipgrepError: ripgrep could not run.
    """
    outcome = Outcome(backend="rg")
    with WalkedFiles(query.root) as files:
        source = iter(query.files)
        if _native_head(query, files, source, outcome):
            return outcome
        session = _Session(query, rg, files)
        chunks = _chunks(source, FIRST_CHUNK)
        current = next(chunks, None)
        running = session.start(current[1]) if current else None
        while current is not None and running is not None:
            _, chunk = current
            following = next(chunks, None)  # walked while ripgrep scans ``chunk``
            reports, searched = session.collect(running)
            running = None
            if following is not None and len(outcome.matches) + len(reports) <= query.needed:
                # Few files matched: the page likely stays open, so the next chunk is scanned
                # while this one's lines are read (and stopped if the page fills after all).
                running = session.start(following[1])
            try:
                stopped, gone = _read_chunk(session, chunk, set(reports), outcome)
            except BaseException:
                _stop(running)
                raise
            if stopped is not None:
                _stop(running)
                outcome.files_searched += stopped
                return outcome
            outcome.files_searched += searched - gone
            current = following
            if running is None and following is not None:
                running = session.start(following[1])
    return outcome
