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
file, NUL or not. So ripgrep first only counts each file's matching lines
(``--count``: one short line per matching file, however binary), which says
where the page fills and so where the scan stops; each counted file is read
here (through :class:`WalkedFiles`), a binary one is dropped, and at the end
the lines of the text files the page shows are matched in the bytes read here
where the pattern has a native translation (decision 0025), else ripgrep is
asked for them, no more per file than the page needs.

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
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from agentkit.plugin_api.workspace import WalkedFiles, descriptors_available

from .dialect import PatternError, UntranslatablePattern
from .native import NativeScanner, shown
from .query import Match, Outcome, Query, TooLarge, line_text, read_listed

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
#: Files in the first invocation (a page often fills there)...
FIRST_CHUNK = 64
#: ...or, when the first files were read here (the head, below), as many as the head may read:
#: the pages that fill early were answered there, and each start of ripgrep compiles the regex
#: again (3 to 5 ms of CPU for a regex with ``\w``, as much as counting 700 small files).
FIRST_CHUNK_AFTER_HEAD = 512
#: Each next invocation is this many times larger,
CHUNK_GROWTH = 8
#: up to this many: the walk lists a chunk while ripgrep scans the one before, so the last
#: chunk, scanned after the walk ends, is kept small.
MAX_CHUNK = 8192
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
#: Where that translation exists, the lines of the files the page shows are matched here too,
#: in the bytes already read to drop binary files: asking ripgrep for them cost a second start
#: of ripgrep (its regex compiled again) after every count was in.
NATIVE_LINES = True
#: Most files whose lines one ripgrep call reports.
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


def _options(query: Query, threads: int) -> list[str]:
    case = "--ignore-case" if query.ignore_case else "--case-sensitive"
    return [*_COMMON, "--encoding", "none", "--threads", str(threads), case]


def _count_command(rg: str, query: Query) -> list[str]:
    """ripgrep counting each file's matching lines: one line of output per matching file.

    A count stops at one past the page: a file holding that many fills the page
    by itself, so where the scan stops is the same, and ripgrep never reads on
    through a file given by path (one holding a NUL included: given a path,
    ripgrep searches it to the end) once the page is settled there.
    """
    # --with-filename: given one file, ripgrep would print its count alone.
    command = [rg, "--count", "--with-filename", "--null", "--stats", *_options(query, THREADS)]
    return [*command, "--max-count", str(query.needed + 1), "-e", query.pattern, "--"]


def _lines_command(rg: str, query: Query, threads: int, max_count: int) -> list[str]:
    """ripgrep printing matching lines, no more per file than the page needs."""
    command = [rg, "--json", *_options(query, threads), "--max-count", str(max_count)]
    return [*command, "-e", query.pattern, "--"]


_SEARCHED = re.compile(rb"^(\d+) files searched$", re.MULTILINE)


def _read_counts(out: bytes) -> tuple[dict[str, int], int]:
    """``--count --null --stats`` output: each file's matching lines, and the files searched."""
    counts: dict[str, int] = {}
    position = 0
    while (nul := out.find(b"\0", position)) >= 0:  # the statistics hold no NUL; a path ends at one
        end = out.index(b"\n", nul)
        counts[os.fsdecode(out[position:nul])] = int(out[nul + 1 : end])
        position = end + 1
    searched = _SEARCHED.search(out, position)
    if searched is None:
        raise RipgrepError("ripgrep printed no statistics (is it ripgrep?)")
    return counts, int(searched.group(1))


def _chunks(files: Iterable[str], first: int) -> Iterator[tuple[int, list[str]]]:
    """``files`` in pieces growing from ``first`` up to MAX_CHUNK files or CHUNK_BYTES of paths."""
    source = iter(files)
    start, step = 0, max(1, first)
    while True:
        chunk: list[str] = []
        size = 0
        for relative in islice(source, step):  # the walk runs here, a file at a time
            chunk.append(relative)
            size += len(relative.encode(_FS_ENCODING, _FS_ERRORS)) + 1
            if size >= CHUNK_BYTES:
                break
        if not chunk:
            return
        yield start, chunk
        start, step = start + len(chunk), min(step * CHUNK_GROWTH, MAX_CHUNK)


_FS_ENCODING, _FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()


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

    def count(self, chunk: list[str]) -> subprocess.Popen[bytes]:
        """ripgrep counting the matching lines of each file of ``chunk``, started.

        It runs while the walk lists the next chunk. A count is one line of output
        per matching file: a binary file costs no more, however many of its lines match.
        """
        return _start(_count_command(self.rg, self.query) + chunk, self.cwd, self.keep)

    @staticmethod
    def counted(search: subprocess.Popen[bytes]) -> tuple[dict[str, int], int]:
        """The counts ripgrep found in its chunk, and how many of its files it read."""
        return _read_counts(_finish(search))

    def start_lines(self, files: list[str], need: int) -> subprocess.Popen[bytes]:
        return _start(_lines_command(self.rg, self.query, THREADS, need) + files, self.cwd, self.keep)

    @staticmethod
    def collect(search: subprocess.Popen[bytes]) -> tuple[dict[str, _Reported], int]:
        """ripgrep's reported lines, and how many files it read."""
        try:
            return _read_reports(search)
        except BaseException:
            search.kill()
            raise
        finally:
            _finish(search)

    def read(self, relative: str, outcome: Outcome) -> bytes | None:
        """The bytes of ``relative`` as we reach it (never through a link); None if it is gone,
        or if it has grown past the size limit since the walk (then noted in ``outcome``)."""
        try:
            return read_listed(self.files, relative, self.query.max_file_bytes)
        except OSError:
            return None
        except TooLarge as exc:
            outcome.oversize.append((relative, exc.size))
            return None

    def lines_of(self, candidates: list[tuple[str, bytes]], need: int) -> list[list[Match]]:
        """The matches of text files ripgrep said match, each shown from the bytes we read.

        ripgrep is asked again for their lines, at most ``need`` per file.
        """
        search = self.start_lines([relative for relative, _ in candidates], need)
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
                    data = handle.read(self.query.max_file_bytes + 1)
                if len(data) > self.query.max_file_bytes:
                    return []  # grown past the limit while ripgrep read it: never shown
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
        command = [*_lines_command(self.rg, self.query, 1, need), name]
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


def _native_scanner(query: Query) -> NativeScanner | None:
    """The pattern's native translation, where one exists: the dialect is one (decision
    0006), so its answers are ripgrep's."""
    try:
        return NativeScanner(query)
    except (PatternError, UntranslatablePattern):
        return None


def _native_head(
    query: Query, scanner: NativeScanner | None, files: WalkedFiles, source: Iterator[str], outcome: Outcome
) -> bool:
    """Scan the first files of ``source`` here; True if that answered the whole search."""
    if NATIVE_HEAD_FILES <= 0 or scanner is None:
        return False
    budget, texts = NATIVE_HEAD_BYTES, NATIVE_HEAD_FILES
    for _ in range(NATIVE_HEAD_ANY):
        relative = next(source, None)
        if relative is None:
            return True  # the list ended within the head
        scanned = scanner.read_and_scan(files, relative, outcome)
        if scanned is None:
            continue
        data, text = scanned
        if len(outcome.matches) > query.needed:
            return True
        if text:
            budget, texts = budget - len(data), texts - 1
            if budget <= 0 or texts <= 0:
                return False
    return False


def _stop(process: subprocess.Popen[bytes] | None) -> None:
    if process is not None and process.poll() is None:
        process.kill()
    if process is not None:
        process.communicate()


def _page(
    session: _Session, scanner: NativeScanner | None, shown: list[tuple[str, bytes]], outcome: Outcome
) -> None:
    """Add the matches of ``shown`` (text files, in list order, with the bytes read here)."""
    need = session.query.needed + 1
    if NATIVE_LINES and scanner is not None:
        page = Outcome(matches=outcome.matches)  # its files_searched is not this search's
        for relative, data in shown:
            if len(outcome.matches) >= need:
                break
            scanner.scan(relative, data, page)
        del outcome.matches[need:]
        return
    for first in range(0, len(shown), LINES_BATCH):
        if len(outcome.matches) >= need:
            break
        found = session.lines_of(shown[first : first + LINES_BATCH], need - len(outcome.matches))
        for matches in found:
            outcome.matches.extend(matches)
    del outcome.matches[need:]


def search_rg(query: Query, rg: str) -> Outcome:
    """Scan ``query.files`` with ripgrep; same contract as :func:`.native.search_native`.

    ripgrep first counts each chunk's matching lines per file: that says where the
    page fills (files holding a NUL are dropped when read here) and so where the
    scan stops, with one short line per matching file. The lines of the text files
    the page shows are found at the end: in the bytes read here, with the pattern's
    native translation where it has one, else by ripgrep.

    :raises RipgrepRefused: ripgrep refused the pattern.
    :raises RipgrepError: ripgrep could not run.
    """
    outcome = Outcome(backend="rg")
    with WalkedFiles(query.root) as files:
        source = iter(query.files)
        scanner = _native_scanner(query) if NATIVE_HEAD_FILES > 0 or NATIVE_LINES else None
        headed = NATIVE_HEAD_FILES > 0 and scanner is not None
        if _native_head(query, scanner, files, source, outcome):
            return outcome
        session = _Session(query, rg, files)
        shown: list[tuple[str, bytes]] = []  # the text files that match, up to the page's end
        expected = len(outcome.matches)  # the matches found so far, by ripgrep's counts
        chunks = _chunks(source, FIRST_CHUNK_AFTER_HEAD if headed else FIRST_CHUNK)
        current = next(chunks, None)
        running = session.count(current[1]) if current else None
        try:
            while current is not None and running is not None:
                _, chunk = current
                following = next(chunks, None)  # walked while ripgrep scans ``chunk``
                counts, searched = session.counted(running)
                running = None
                if following is not None and expected + sum(counts.values()) <= query.needed:
                    # This chunk cannot fill the page: the next one is scanned while it is read.
                    running = session.count(following[1])
                gone = 0  # counted by ripgrep, gone (or swapped) when opened here
                for index, relative in enumerate(chunk):
                    if not counts.get(relative):
                        continue
                    data = session.read(relative, outcome)
                    if data is None:
                        gone += 1
                        continue
                    if b"\x00" in data:
                        continue  # binary: never shown
                    shown.append((relative, data))
                    expected += counts[relative]
                    if expected > query.needed:
                        # Every file up to this one was scanned: the native backend's stop.
                        outcome.files_searched += index + 1 - gone
                        current = None
                        break
                else:
                    outcome.files_searched += searched - gone
                    current = following
                    if running is None and following is not None:
                        running = session.count(following[1])
        finally:
            _stop(running)
        _page(session, scanner, shown, outcome)
    return outcome
