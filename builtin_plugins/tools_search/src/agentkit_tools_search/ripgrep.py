"""The ripgrep backend: ``rg --json`` over exactly the files the ignore engine chose.

ripgrep never walks or filters here. It is handed our file list, relative to
the root, with its own ignore handling and globbing off: its rules about when
a ``.gitignore`` counts differ from git's, and a post-filter cannot bring back
a file it was told not to open. Lists are handed over in chunks that grow
(a search that stops early has not scanned thousands of files), each searched
by several threads; answers are put back in list order per file.

Binary files: ripgrep searches an explicitly named file whole and marks it
binary if it holds a NUL; it prints only matching lines, never a binary file's
other lines, so binary detection adds nothing to its output. A binary file that
matches is dropped here (its NUL is seen when the file is read again, below).

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

from .native import shown
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
#: Files in the first invocation (a page often fills there); each next one is four times larger.
FIRST_CHUNK = 64
#: Threads each ripgrep uses (it orders nothing: answers are reordered here).
THREADS = max(1, min(4, os.cpu_count() or 1))


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


def _search_command(rg: str, query: Query, threads: int) -> list[str]:
    command = [rg, "--json", *_COMMON, "--encoding", "none", "--threads", str(threads)]
    command.append("--ignore-case" if query.ignore_case else "--case-sensitive")
    return [*command, "-e", query.pattern, "--"]


def _chunks(files: Iterable[str], first: int) -> Iterator[tuple[int, list[str]]]:
    """``files`` in pieces growing fourfold from ``first`` up to CHUNK_BYTES of paths."""
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
        start, step = start + len(chunk), step * 4


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

    def start(self, chunk: list[str]) -> subprocess.Popen[bytes]:
        """ripgrep scanning ``chunk``, started (it runs while the walk lists the next chunk)."""
        return _start(_search_command(self.rg, self.query, THREADS) + chunk, self.cwd, self.keep)

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

    def verified(self, relative: str, reported: _Reported) -> list[Match] | None:
        """The matches of ``relative``, shown from the file we hold; None if it is gone.

        A binary file has no matches (an empty list).
        """
        fd = self.files.open(relative)
        if fd is None:
            return None
        try:
            with os.fdopen(os.dup(fd), "rb") as handle:
                data = handle.read()
            if b"\x00" in data:
                return []
            lines = data.split(b"\n")
            if lines[-1] == b"":
                lines.pop()
            hits = reported.hits
            if any(n > len(lines) or lines[n - 1] != _unterminated(h) for n, h in hits.items()):
                # Not the lines of the file we hold: ripgrep read another one (a swap won
                # the race). Ask it again about exactly this file.
                hits = self.rescan(fd)
        finally:
            os.close(fd)
        # A file rewritten meanwhile may have lost lines ripgrep saw: show what is there.
        return self.matches(relative, lines, sorted(n for n in hits if n <= len(lines)))

    def rescan(self, fd: int) -> dict[int, bytes]:
        if self.fd_directory is None:
            return {}
        name = f"{self.fd_directory}/{fd}"
        command = [*_search_command(self.rg, self.query, 1), name]
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


def search_rg(query: Query, rg: str) -> Outcome:
    """Scan ``query.files`` with ripgrep; same contract as :func:`.native.search_native`.

    :raises RipgrepRefused: ripgrep refused the pattern.
    :raises RipgrepError: ripgrep could not run.
    """
    outcome = Outcome(backend="rg")
    with WalkedFiles(query.root) as files:
        session = _Session(query, rg, files)
        chunks = _chunks(query.files, FIRST_CHUNK)
        current = next(chunks, None)
        running = session.start(current[1]) if current else None
        while current is not None and running is not None:
            start, chunk = current
            following = next(chunks, None)  # walked while ripgrep scans ``chunk``
            reports, searched = session.collect(running)
            gone = 0  # reported by ripgrep, gone (or swapped) when opened here
            for index, relative in enumerate(chunk, start=start):
                if relative not in reports:
                    continue
                found = session.verified(relative, reports[relative])
                if found is None:
                    gone += 1
                    continue
                outcome.matches.extend(found)
                if len(outcome.matches) > query.needed:
                    # Every file up to this one was scanned: the native backend's stop.
                    outcome.files_searched += index - start + 1 - gone
                    return outcome
            outcome.files_searched += searched - gone
            current = following
            running = session.start(following[1]) if following else None
    return outcome
