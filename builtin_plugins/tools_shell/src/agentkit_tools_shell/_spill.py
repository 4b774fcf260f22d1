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


def _create(root: Path) -> Path | None:
    parent = root / SPILL_DIRECTORY
    try:
        parent.mkdir(parents=True, exist_ok=True)
        ignore = parent / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# Output of agentkit's shell tools, removed when the run ends.\n*\n")
        # One directory per process and period of activity: another process
        # (or a later run) never shares or removes it.
        directory = parent / f"run-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        directory.mkdir()
    except OSError:
        return None  # a read-only workspace: spill to the temporary directory instead
    return directory


def _remove(directory: Path, root: Path) -> None:
    shutil.rmtree(directory, ignore_errors=True)
    parent = root / SPILL_DIRECTORY
    # Leave no trace when nothing else is in there (another process's run may be).
    with contextlib.suppress(OSError):
        if [entry.name for entry in parent.iterdir()] == [".gitignore"]:
            (parent / ".gitignore").unlink()
            parent.rmdir()
            parent.parent.rmdir()  # .agentkit, only if empty


SPILLS = RunSpills()
"""The process-wide registry the session hooks and the tools share."""
