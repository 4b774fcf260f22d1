"""Where spill files live, and their removal when the run that made them ends.

During a run, a command's full output is spilled inside the workspace root,
under ``.agentkit/shell-output/<run directory>/``, so that the path in the
truncation marker is one ``read_file`` accepts (it reads only inside the
root). A ``.gitignore`` holding ``*`` keeps that directory out of git. The
run directory is removed by ``agentkit_session_end``.

A tool handler is not told which run it serves (``ToolContext`` carries no
session id), so the plugin counts the runs active on each root: the
directory of a root is removed when the last run on it ends. Runs that
overlap on one root therefore keep each other's spill files until both
have ended. Outside any run (a handler called directly, ``agentkit tool
run``), the spill goes to the system temporary directory as before, and the
caller owns it.

The workspace is not trusted: its directories are walked by descriptor
without following symlinks, and a symlink where ours should be sends the
spill to the temporary directory instead of through it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
import uuid
from pathlib import Path

SPILL_DIRECTORY = Path(".agentkit", "shell-output")
"""The spill directory, relative to the workspace root."""


class RunSpills:
    """The spill directories of the runs in progress, per workspace root; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active: dict[Path, int] = {}
        self._directories: dict[Path, Path] = {}

    def run_started(self, root: Path) -> None:
        key = _key(root)
        with self._lock:
            self._active[key] = self._active.get(key, 0) + 1

    def run_ended(self, root: Path) -> None:
        """Remove the root's spill directory once no run on it is left."""
        key = _key(root)
        with self._lock:
            left = self._active.get(key, 0) - 1
            if left > 0:
                self._active[key] = left
                return
            self._active.pop(key, None)
            directory = self._directories.pop(key, None)
            if directory is not None:
                # Under the lock: a run starting meanwhile must not see its new
                # directory's .gitignore removed.
                _remove(directory, key)

    def directory_for(self, root: Path) -> Path | None:
        """The directory a call in a run on ``root`` spills to (created on first use),
        or ``None`` outside any run or where the root cannot hold it."""
        key = _key(root)
        with self._lock:
            if key not in self._active:
                return None
            directory = self._directories.get(key)
            if directory is None:
                directory = _create(key)
                if directory is None:
                    return None
                self._directories[key] = directory
            return directory


def _key(root: Path) -> Path:
    return Path(os.path.realpath(root))


#: Directory descriptors never follow a symlink: a workspace is not trusted to point elsewhere.
_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
#: Where a directory can be created and opened by descriptor (everywhere but Windows).
_BY_DESCRIPTOR = {os.open, os.mkdir, os.rmdir, os.unlink} <= os.supports_dir_fd and shutil.rmtree.avoids_symlink_attacks


def _open_spill_parent(root: Path, *, create: bool) -> int:
    """A descriptor of ``<root>/.agentkit/shell-output``, walked without following a symlink.

    A workspace may hold ``.agentkit`` (or ``shell-output``) as a symlink out
    of the root: opening it then fails, and nothing is written through it.
    """
    fd = os.open(root, _DIRECTORY & ~getattr(os, "O_NOFOLLOW", 0))  # the root itself may be a symlink
    try:
        for part in SPILL_DIRECTORY.parts:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=fd)
            child = os.open(part, _DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _create(root: Path) -> Path | None:
    if not _BY_DESCRIPTOR:
        return None  # no descriptor-relative I/O: spill to the temporary directory
    # One directory per process and period of activity: another process
    # (or a later run) never shares or removes it.
    name = f"run-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    try:
        parent = _open_spill_parent(root, create=True)
        try:
            with contextlib.suppress(FileExistsError):  # whatever is there (even a symlink) is left as it is
                ignore = os.open(".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644,
                                 dir_fd=parent)
                with os.fdopen(ignore, "w") as out:
                    out.write("# Output of agentkit's shell tools, removed when the run ends.\n*\n")
            os.mkdir(name, 0o700, dir_fd=parent)
        finally:
            os.close(parent)
    except OSError:
        return None  # a read-only workspace, or one that points the directory elsewhere
    return root / SPILL_DIRECTORY / name


def _remove(directory: Path, root: Path) -> None:
    try:
        parent = _open_spill_parent(root, create=False)
    except OSError:
        return  # replaced by something that is not ours to remove
    try:
        shutil.rmtree(directory.name, dir_fd=parent, ignore_errors=True)
        # Leave no trace when nothing else is in there (another process's run may be).
        if sorted(os.listdir(parent)) == [".gitignore"]:
            os.unlink(".gitignore", dir_fd=parent)
        else:
            return
    except OSError:
        return
    finally:
        os.close(parent)
    with contextlib.suppress(OSError):
        os.rmdir(root / SPILL_DIRECTORY)
        os.rmdir(root / SPILL_DIRECTORY.parent)  # .agentkit, only if empty


SPILLS = RunSpills()
"""The process-wide registry the session hooks and the tools share."""
