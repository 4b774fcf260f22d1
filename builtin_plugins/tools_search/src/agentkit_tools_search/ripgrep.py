"""The ripgrep backend: ``rg --json`` over exactly the files the ignore engine chose.

ripgrep never walks or filters here. It is handed our file list in order
(one thread, so its output follows that order) with its own ignore handling
and globbing off: its dialect and its rules about when a ``.gitignore``
counts differ from git's, and a post-filter cannot bring back a file it was
told not to open. Binary files are found with a second pattern, ``\\x00``, in
text mode: every file holding a NUL reports at least one line with one, so
binary files that do not match are still seen and left out of
``files_searched``. Context lines are rebuilt per match from every line
ripgrep printed, because it prints each line once: two matches a line apart
would otherwise lose each other from their context.

ripgrep opens the paths it is given itself, and the kernel follows every link
on the way: a directory swapped for a link to the outside between our walk and
its open would be searched. So where descriptors are available each file is
opened here, through :class:`WalkedFiles` (never through a link), and ripgrep
is handed ``/proc/self/fd/N`` (or ``/dev/fd/N``), which reopens exactly that
file. Chunks are sized to
stay well below the process's descriptor limit.
"""

from __future__ import annotations

import base64
import bisect
import contextlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

from agentkit_tools_files import directory
from agentkit_tools_files.directory import WalkedFiles

from .query import Match, Outcome, Query, line_text

__all__ = ["RipgrepError", "find_rg", "search_rg"]

#: Paths per ripgrep invocation, far below any argument-length limit.
CHUNK = 2000
#: Files opened for the first invocation when they are handed over as descriptors.
FIRST_CHUNK = 250


class RipgrepError(RuntimeError):
    """ripgrep refused the search (for example a pattern its regex engine rejects)."""


def find_rg(explicit: str | None = None) -> str | None:
    """The ``rg`` executable to use: an explicit path, else ``rg`` on PATH, else None."""
    found = (
        (explicit if Path(explicit).is_file() else shutil.which(explicit))
        if explicit
        else shutil.which("rg")
    )
    # Absolute, because ripgrep runs with the workspace root as its directory.
    return str(Path(found).resolve()) if found else None


def _text(field: dict) -> str:
    if "text" in field:
        return field["text"]
    return base64.b64decode(field["bytes"]).decode("utf-8", errors="replace")


def _path(field: dict) -> str:
    # A file name that is not UTF-8 comes back as bytes: decode it the way
    # os.scandir named it, so it maps back onto our file list.
    if "text" in field:
        return field["text"]
    return os.fsdecode(base64.b64decode(field["bytes"]))


def _command(rg: str, query: Query, files: list[str]) -> list[str]:
    command = [
        rg,
        "--json",
        "--no-config",
        "--no-ignore",
        "--hidden",
        "--text",
        "--encoding",
        "none",
        "--threads",
        "1",
        "--no-messages",
    ]
    if query.context_lines:
        command += ["--context", str(query.context_lines)]
    command.append("--ignore-case" if query.ignore_case else "--case-sensitive")
    command += ["-e", query.pattern, "-e", "\\x00", "--", *files]
    return command


def _chunks(files: list[str], size: int, first: int) -> Iterator[tuple[int, list[str]]]:
    """``files`` in pieces growing from ``first`` to ``size``: a search that stops early
    (the page is full) has not opened thousands of files it never scans."""
    start, step = 0, min(first, size)
    while start < len(files):
        yield start, files[start : start + step]
        start += step
        step = min(step * 2, size)


def _chunk_size(by_descriptor: bool) -> int:
    """Files per invocation: each is an open descriptor while ripgrep runs, when passed so."""
    if not by_descriptor:
        return CHUNK
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return 64
    if soft == resource.RLIM_INFINITY:
        return CHUNK
    return max(16, min(CHUNK, (soft - 256) // 2))


def _events(rg: str, query: Query, files: list[str], descriptors: list[int]) -> Iterator[dict]:
    try:
        process = subprocess.Popen(
            _command(rg, query, files),
            cwd=query.root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            pass_fds=descriptors,
        )
    except OSError as exc:
        raise RipgrepError(f"could not run {rg}: {exc}") from exc
    finished = False
    try:
        assert process.stdout is not None
        for raw in process.stdout:
            yield json.loads(raw)
        finished = True
    finally:
        if not finished:
            process.kill()
        process.stdout.close()  # type: ignore[union-attr]
        stderr = process.stderr.read().decode("utf-8", errors="replace") if process.stderr else ""
        if process.stderr:
            process.stderr.close()
        code = process.wait()
    if finished and code == 2 and stderr.strip():
        raise RipgrepError(stderr.strip())


def _file_matches(path: str, lines: dict[int, str], hits: list[int], context: int) -> list[Match]:
    matches = []
    for number in hits:
        before = [lines[n] for n in range(max(1, number - context), number) if n in lines]
        after = []
        for n in range(number + 1, number + 1 + context):
            if n not in lines:
                break
            after.append(lines[n])
        matches.append(Match(path, number, lines[number], tuple(before), tuple(after)))
    return matches


def search_rg(query: Query, rg: str) -> Outcome:
    """Scan ``query.files`` with ripgrep; same contract as :func:`search_native`."""
    # /proc/self/fd saves ripgrep a link per stat it makes (five per file) where it exists.
    fd_directory = next((d for d in ("/proc/self/fd", "/dev/fd") if os.path.isdir(d)), None)
    by_descriptor = directory.DESCRIPTORS and fd_directory is not None
    with WalkedFiles(query.root) if by_descriptor else contextlib.nullcontext() as opener:
        return _search_rg(query, rg, opener, fd_directory, _chunk_size(by_descriptor))


def _search_rg(
    query: Query, rg: str, opener: WalkedFiles | None, fd_directory: str | None, size: int
) -> Outcome:
    outcome = Outcome(backend="rg")
    position = {path: index for index, path in enumerate(query.files)}
    binary = 0
    unopened: list[int] = []  # positions of files gone or swapped for a link since the walk
    last_done = -1
    for start, chunk in _chunks(query.files, size, first=FIRST_CHUNK if opener else size):
        descriptors: list[int] = []
        named: dict[str, str] = {}  # what ripgrep is given -> the file it stands for
        for index, relative in enumerate(chunk, start=start):
            if opener is None:
                named[relative] = relative
                continue
            fd = opener.open(relative)
            if fd is None:
                unopened.append(index)
                continue
            descriptors.append(fd)
            named[f"{fd_directory}/{fd}"] = relative
        lines: dict[int, str] = {}
        hits: list[int] = []
        is_binary = False
        stop = False
        try:
            events = closing(_events(rg, query, list(named), descriptors)) if named else None
            with events or contextlib.nullcontext(()) as stream:
                for event in stream:
                    kind, data = event["type"], event["data"]
                    if kind == "begin":
                        lines, hits, is_binary = {}, [], False
                    elif kind in ("match", "context"):
                        raw = _text(data["lines"])
                        if "\x00" in raw:
                            is_binary = True
                            continue
                        text = line_text(raw[:-1] if raw.endswith("\n") else raw)
                        lines[data["line_number"]] = text
                        if kind == "match":
                            hits.append(data["line_number"])
                    elif kind == "end":
                        given = _path(data["path"])
                        if given not in named:
                            raise RipgrepError(f"rg reported a file it was not given: {given!r}")
                        path = named[given]
                        last_done = position[path]
                        if is_binary:
                            binary += 1
                            continue
                        outcome.matches.extend(
                            _file_matches(path, lines, hits, query.context_lines)
                        )
                        if len(outcome.matches) > query.needed:
                            stop = True
                            break
        finally:
            for fd in descriptors:
                os.close(fd)
        if stop:
            # Every text file up to this one was scanned (ripgrep goes in order).
            skipped = bisect.bisect_right(unopened, last_done)
            outcome.files_searched = last_done + 1 - binary - skipped
            return outcome
    outcome.files_searched = len(query.files) - binary - len(unopened)
    return outcome
