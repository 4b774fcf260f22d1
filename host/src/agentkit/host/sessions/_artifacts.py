"""Artifacts: tool outputs too large to inline, kept beside the session they belong to.

An artifact is the whole text of one tool result, stored as
``artifacts/<owner>/<id>.txt`` in the data directory (``$AGENTKIT_DATA_DIR``,
else the platform's user data directory), never in the workspace. The owner
is the session id (an agent without a session uses its own ``session_id``).
Folders are 0700 and files 0600, as for sessions: a tool's output may hold
anything the tools saw.

The artifacts of a run without a session belong to that process: it
claims its folder (:meth:`~ArtifactStore.claim`: ``.owner.json``, see
``_artifact_owners``), removes it when it exits, and :meth:`~ArtifactStore.reap`
removes those of processes that died without doing so.

An id is ``art_`` and 32 hexadecimal digits (a random UUID): unique across
sessions and machines, and never a path. A read names its owner, so one
session cannot read another's artifact even by guessing its id. An artifact
is written under a temporary name and renamed into place, so a concurrent
reader finds either nothing or the whole text.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from agentkit.plugin_api._dataclass import dataclass

from .._ids import random_hex
from ..errors import SessionNotFound
from ._artifact_owners import (
    OWNER_RECORD,
    UNKNOWN_OWNER_MAX_AGE,
    OwnerState,
    owner_state,
    read_record,
    record_age,
    write_record,
)
from ._paths import check_private, data_dir, private_dir

#: Every artifact id starts with this.
ARTIFACT_PREFIX = "art_"
_ARTIFACT_ID = re.compile(ARTIFACT_PREFIX + r"[0-9a-f]{32}")
#: The owners a store accepts: session ids (as the session store's), never a path.
_OWNER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
_SUFFIX = ".txt"


class ArtifactNotFound(SessionNotFound):
    """No artifact with that id belongs to the session asked about (or the id is no artifact id)."""


@dataclass(frozen=True)
class ArtifactInfo:
    """One stored artifact, as listed.

    :param size: its length in bytes (UTF-8).
    :param created: when it was written, in seconds since the epoch.
    """

    id: str
    size: int
    created: float


@dataclass(frozen=True)
class ArtifactOwner:
    """The artifacts of one owner, as ``agentkit artifacts list`` shows them.

    :param owner: a session's id, or the id of a run without a session.
    :param kind: ``"session"``, or ``"run"`` for a run without a session (its folder names its process).
    :param state: for a run, whether its process is ``running``, ``gone`` or ``unknown`` (recorded on
        another machine, or unreadable); ``None`` for a session.
    :param pid: the run's process id, when recorded.
    :param artifacts: how many artifacts it has.
    :param size: their total length in bytes.
    :param updated: when the newest was written (or the folder changed), in seconds since the epoch.
    """

    owner: str
    kind: str
    state: OwnerState | None
    pid: int | None
    artifacts: int
    size: int
    updated: float


def is_artifact_id(text: str) -> bool:
    """Whether ``text`` has the shape of an artifact id (``art_`` and 32 hex digits)."""
    return _ARTIFACT_ID.fullmatch(text) is not None


class ArtifactStore:
    """The artifacts of every session, one folder per session.

    :param directory: where the folders go; default ``artifacts/`` in the data
        directory. Nothing is created until the first artifact is written.
    """

    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory).expanduser() if directory is not None else data_dir() / "artifacts"
        #: The highest folder that must be the user's alone (docs/decisions/0027): the data directory, or ``directory``.
        self._top = self.directory if directory is not None else self.directory.parent

    def create(self, owner: str, text: str) -> str:
        """Store ``text`` as a new artifact of ``owner``; returns its id.

        :raises OSError: the data directory cannot be written.
        """

        def write(temporary: Path) -> None:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as file:
                file.write(text.encode("utf-8", errors="surrogatepass"))

        return self._place(owner, write)

    def adopt(self, owner: str, path: Path) -> str:
        """Store the UTF-8 text file ``path`` as a new artifact of ``owner``, moving it; returns its id.

        The file is renamed into place where it is on the same file system (a spooled output is
        never read whole), copied in pieces otherwise; either way ``path`` is gone afterwards.

        :raises OSError: the data directory cannot be written, or ``path`` read.
        """

        def move(temporary: Path) -> None:
            try:
                os.replace(path, temporary)
            except OSError:  # another file system: copy it, then drop the original
                fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as file, open(path, "rb") as source:
                    shutil.copyfileobj(source, file, 1024 * 1024)
                os.unlink(path)
            os.chmod(temporary, 0o600)

        return self._place(owner, move)

    def _place(self, owner: str, fill: Callable[[Path], None]) -> str:
        """A new artifact of ``owner``: ``fill`` makes its file at a temporary path, put in place whole; its id."""
        folder = private_dir(self._folder(owner), self._top)
        artifact_id = ARTIFACT_PREFIX + random_hex()
        temporary = folder / f".{artifact_id}.partial"
        try:
            fill(temporary)
            os.replace(temporary, folder / (artifact_id + _SUFFIX))  # readers see the whole text or nothing
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        return artifact_id

    def read(self, owner: str, artifact_id: str) -> str:
        """The whole text of one of ``owner``'s artifacts.

        :raises ArtifactNotFound: ``artifact_id`` is no artifact id, or ``owner`` has no such artifact.
        """
        if not is_artifact_id(artifact_id):
            raise ArtifactNotFound(f"{artifact_id!r} is not an artifact id (they look like "
                                   f"{ARTIFACT_PREFIX}0123456789abcdef0123456789abcdef)")
        check_private(self._folder(owner), self._top)
        try:
            data = (self._folder(owner) / (artifact_id + _SUFFIX)).read_bytes()
        except FileNotFoundError:
            raise ArtifactNotFound(f"no artifact {artifact_id} in session {owner}") from None
        return data.decode("utf-8", errors="surrogatepass")

    def list(self, owner: str) -> list[ArtifactInfo]:
        """``owner``'s artifacts, oldest first."""
        found = []
        check_private(self._folder(owner), self._top)
        with contextlib.suppress(FileNotFoundError):
            for path in self._folder(owner).iterdir():
                if path.suffix == _SUFFIX and is_artifact_id(path.stem):
                    with contextlib.suppress(FileNotFoundError):  # deleted meanwhile
                        status = path.stat()
                        found.append(ArtifactInfo(path.stem, status.st_size, status.st_mtime))
        return sorted(found, key=lambda item: (item.created, item.id))

    def copy(self, source: str, target: str) -> None:
        """Give ``target`` (a fork of ``source``) the artifacts of ``source``, whose history it carries.

        Each is linked where the file system allows (no second copy of the bytes), copied otherwise.
        """
        artifacts = self.list(source)
        if not artifacts:
            return
        folder = private_dir(self._folder(target), self._top)
        for item in artifacts:
            name = item.id + _SUFFIX
            try:
                os.link(self._folder(source) / name, folder / name, follow_symlinks=False)
            except FileExistsError:
                continue
            except OSError:
                with open(self._folder(source) / name, "rb") as original:
                    data = original.read()
                fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as file:
                    file.write(data)

    def delete(self, owner: str) -> None:
        """Remove every artifact of ``owner`` (nothing happens when it has none)."""
        folder = self._folder(owner)
        if folder.is_symlink():  # not ours: never follow it out of the store
            return
        shutil.rmtree(folder, ignore_errors=True)

    def claim(self, owner: str) -> None:
        """Make ``owner``'s folder, recording the calling process as its owner (a run without a session).

        Until the process exits and removes it, no other process reaps it; once the process is gone,
        :meth:`reap` does.
        """
        write_record(private_dir(self._folder(owner), self._top))

    def owners(self) -> builtins.list[ArtifactOwner]:
        """Every owner that has a folder here, the most recently changed first."""
        found = []
        for folder in self._folders():
            record = read_record(folder)
            claimed = record is not None or (folder / OWNER_RECORD).exists()
            items = self.list(folder.name)
            with contextlib.suppress(FileNotFoundError):
                updated = max([folder.stat().st_mtime, *(item.created for item in items)])
                found.append(ArtifactOwner(folder.name, "run" if claimed else "session",
                                           owner_state(record) if claimed else None,
                                           record.pid if record is not None else None,
                                           len(items), sum(item.size for item in items), updated))
        return sorted(found, key=lambda item: (item.updated, item.owner), reverse=True)

    def reap(self, max_age: float = UNKNOWN_OWNER_MAX_AGE) -> builtins.list[str]:
        """Remove the artifacts of runs whose process is gone; returns their owners.

        A run's folder is removed once its process is gone (no such pid, or another process under
        it, or a reboot since), or, when its process cannot be checked from here (another machine,
        an unreadable record), once its record is older than ``max_age`` seconds. A running owner's
        folder, and a session's, are never touched.
        """
        reaped = []
        for folder in self._folders():
            if not (folder / OWNER_RECORD).exists():
                continue  # a session's: deleted with the session
            state = owner_state(read_record(folder))
            age = record_age(folder)
            if state == "gone" or (state == "unknown" and age is not None and age > max_age):
                shutil.rmtree(folder, ignore_errors=True)
                reaped.append(folder.name)
        return reaped

    def _folders(self) -> builtins.list[Path]:
        check_private(self.directory, self._top)  # a shared folder's owners are not ours to list or reap
        try:
            entries = list(self.directory.iterdir())
        except (FileNotFoundError, NotADirectoryError):
            return []
        return [entry for entry in entries
                if _OWNER.fullmatch(entry.name) and not entry.is_symlink() and entry.is_dir()]

    def _folder(self, owner: str) -> Path:
        if not _OWNER.fullmatch(owner):
            raise ArtifactNotFound(f"{owner!r} is not a session id (letters, digits, '_', '-' and '.')")
        return self.directory / owner
