"""Directories held open by descriptor, and files opened through them, never through a link.

:class:`Directory` is the one primitive the file tools do I/O through: every
method takes an entry name and acts on it relative to the directory's
descriptor with ``O_NOFOLLOW`` (``os.open(..., dir_fd=)``, ``os.rename(...,
src_dir_fd=, dst_dir_fd=)``, ``os.scandir(fd)``), so what a name means cannot
be changed by swapping a directory higher up for a link. :func:`locate` in
:mod:`._beneath` builds on it to resolve a path the model gave;
:func:`open_relative_directory` and :class:`WalkedFiles` reopen paths a walk
already produced.

Where the platform lacks the primitives (``dir_fd`` support, ``O_NOFOLLOW``,
``O_DIRECTORY``: Windows), :data:`DESCRIPTORS` is false and a
:class:`Directory` holds a path instead: links are still refused entry by
entry, but a concurrent swap can win.
"""

from __future__ import annotations

import contextlib
import errno
import operator
import os
import secrets
import stat
from pathlib import Path

__all__ = [
    "DESCRIPTORS",
    "READ_FLAGS",
    "Directory",
    "WalkedFiles",
    "is_link_error",
    "open_relative_directory",
]

#: Whether opening relative to directory descriptors, without following links, is available.
DESCRIPTORS: bool = (
    hasattr(os, "O_NOFOLLOW")
    and hasattr(os, "O_DIRECTORY")
    and {os.open, os.stat, os.mkdir, os.readlink, os.rename, os.unlink} <= os.supports_dir_fd
    and os.scandir in os.supports_fd
)

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# Every open: not inherited by children, and binary (Windows would translate newlines).
_ALWAYS = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _ALWAYS
#: Flags to open a file for reading: no link, and a FIFO cannot block the open.
READ_FLAGS = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _ALWAYS


def is_link_error(exc: OSError) -> bool:
    """Whether ``exc`` is what opening a link with ``O_NOFOLLOW`` raises."""
    # O_NOFOLLOW on a link: ELOOP on Linux, EMLINK on FreeBSD, ENOTDIR with O_DIRECTORY on some.
    return exc.errno in (errno.ELOOP, errno.EMLINK, errno.ENOTDIR)


class Directory:
    """A directory held open: by descriptor, or by path where descriptors are unavailable.

    Every method takes a plain entry name (no ``/``) and never follows a link
    in it.
    """

    def __init__(self, fd: int | None, path: Path) -> None:
        self.fd = fd
        self.path = path

    @classmethod
    def open_root(cls, root: Path) -> Directory:
        """Open the workspace root itself (chosen by the embedder, so it may be reached by links)."""
        if not DESCRIPTORS:
            return cls(None, root)
        return cls(os.open(root, os.O_RDONLY | os.O_DIRECTORY | _ALWAYS), root)

    def _at(self, name: str) -> tuple[str, dict[str, int]]:
        if self.fd is None:
            return str(self.path / name), {}
        return name, {"dir_fd": self.fd}

    def child(self, name: str) -> Directory:
        """Open the subdirectory ``name``; raises OSError (ELOOP...) if it is a link."""
        if self.fd is None:
            if stat.S_ISLNK(self.lstat(name).st_mode):
                raise OSError(errno.ELOOP, "is a symbolic link", str(self.path / name))
            if not (self.path / name).is_dir():
                raise NotADirectoryError(errno.ENOTDIR, "not a directory", str(self.path / name))
            return Directory(None, self.path / name)
        return Directory(os.open(name, _DIR_FLAGS, dir_fd=self.fd), self.path / name)

    def open(self, name: str, flags: int, mode: int = 0o666) -> int:
        """``os.open`` of the entry ``name``, never following a link."""
        target, where = self._at(name)
        return os.open(target, flags | _NOFOLLOW | _ALWAYS, mode, **where)

    def lstat(self, name: str) -> os.stat_result:
        target, where = self._at(name)
        return os.stat(target, follow_symlinks=False, **where)

    def readlink(self, name: str) -> str:
        target, where = self._at(name)
        return os.readlink(target, **where)

    def mkdir(self, name: str) -> None:
        target, where = self._at(name)
        os.mkdir(target, **where)

    def unlink(self, name: str) -> None:
        target, where = self._at(name)
        os.unlink(target, **where)

    def rename(self, source: str, destination: str) -> None:
        """Rename within this directory; a link at ``destination`` is replaced, not followed."""
        if self.fd is None:
            os.replace(self.path / source, self.path / destination)
        else:
            os.rename(source, destination, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def entries(self) -> list[os.DirEntry[str]]:
        """The entries, sorted by name (their types are read without following links)."""
        with os.scandir(self.path if self.fd is None else self.fd) as found:
            return sorted(found, key=_NAME)

    def read_file(self, name: str, limit: int | None = None) -> bytes | None:
        """The bytes of the regular file ``name``; None if it is missing, a link or not a file."""
        try:
            fd = self.open(name, READ_FLAGS)
        except OSError:
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            with os.fdopen(fd, "rb", closefd=False) as handle:
                return handle.read() if limit is None else handle.read(limit)
        except OSError:
            return None
        finally:
            os.close(fd)

    def replace(self, name: str, data: bytes, mode: int | None) -> None:
        """Replace entry ``name`` with ``data`` atomically: readers see the old or the new file.

        The temporary file is created in this same directory, by descriptor,
        and renamed over ``name``; ``mode`` (the old file's permission bits)
        is kept, a new file gets the usual 0o666 less the umask.
        """
        # Not derived from ``name``: a name near the system's limit (255 bytes) must stay writable.
        temporary = f".agentkit-write-{secrets.token_hex(8)}.tmp"
        fd = self.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "wb", closefd=False) as handle:
                handle.write(data)
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
            os.close(fd)
            fd = -1
            self.rename(temporary, name)
        except BaseException:
            if fd != -1:
                os.close(fd)
            with contextlib.suppress(OSError):
                self.unlink(temporary)
            raise

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def open_relative_directory(root_directory: Directory, relative: str) -> Directory | None:
    """Open ``relative`` (components below ``root_directory``) refusing any link on the way.

    For paths a walk produced (already resolved), so a link where a directory
    was is a swap, not something to resolve: the answer is None, as for a
    missing directory.
    """
    current = root_directory
    opened: list[Directory] = []
    try:
        for part in relative.split("/") if relative else ():
            current = current.child(part)
            opened.append(current)
    except OSError:
        for directory in opened:
            directory.close()
        return None
    for directory in opened[:-1]:
        directory.close()
    return (
        current
        if opened
        else Directory(
            None if root_directory.fd is None else os.dup(root_directory.fd), root_directory.path
        )
    )


class WalkedFiles:
    """Opens files a walk listed, refusing any link on the way (they are already resolved).

    Files come in walk order, so the directories of the last file stay open
    and the next file of the same directory costs one ``open``. Use it as a
    context manager.
    """

    def __init__(self, root: Path) -> None:
        self._root = Directory.open_root(root)
        self._chain: list[tuple[str, Directory]] = []

    @property
    def root_fd(self) -> int | None:
        """The descriptor of the root (None where descriptors are unavailable)."""
        return self._root.fd

    def open(self, relative: str) -> int | None:
        """A descriptor of the regular file ``relative``; None if it is gone, a link or not a file."""
        *directories, name = relative.split("/")
        kept = 0
        while (
            kept < len(self._chain)
            and kept < len(directories)
            and self._chain[kept][0] == directories[kept]
        ):
            kept += 1
        for _, directory in self._chain[kept:]:
            directory.close()
        del self._chain[kept:]
        try:
            for part in directories[kept:]:
                parent = self._chain[-1][1] if self._chain else self._root
                self._chain.append((part, parent.child(part)))
            fd = (self._chain[-1][1] if self._chain else self._root).open(name, READ_FLAGS)
        except OSError:
            return None
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
        os.close(fd)
        return None

    def read(self, relative: str) -> bytes | None:
        """The bytes of the regular file ``relative``, or None (see :meth:`open`)."""
        fd = self.open(relative)
        if fd is None:
            return None
        with os.fdopen(fd, "rb") as handle:
            return handle.read()

    def close(self) -> None:
        for _, directory in self._chain:
            directory.close()
        self._chain.clear()
        self._root.close()

    def __enter__(self) -> WalkedFiles:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


_NAME = operator.attrgetter("name")
