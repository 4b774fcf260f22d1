"""Opening paths beneath the workspace root so that no link, and no race, leads out of it.

Checking a path string and then doing I/O on the same string loses to anyone
who can rename things in the workspace: between the check and the I/O a
directory on the path can be swapped for a symbolic link to a directory
outside. So the check *is* the I/O here. :func:`locate` opens the root, then
every component relative to the descriptor of the directory before it, with
``O_NOFOLLOW``: a component that is a link is not followed by the kernel but
read (``readlink`` relative to the same descriptor) and resolved by this same
walk, so a link that stays inside works and one that leads out is refused. A
``..`` returns to a directory already held, never above the root. Whatever the
attacker swaps, each step lands on what a descriptor we already hold contains.
Files are then opened, created, renamed and listed relative to the descriptor
of their directory (:class:`~._directory.Directory`), again without following
a link.

What this does not cover: a directory moved out of the root (not swapped for
a link) while a call holds it open, which needs write access outside the root;
and hard links, which are the file itself.

Where the platform lacks the primitives (``dir_fd`` support, ``O_NOFOLLOW``,
``O_DIRECTORY``: Windows), :data:`._directory.DESCRIPTORS` is false and the same
walk runs over path strings: links are still resolved and checked component by
component, but a concurrent swap can win. The tools then report
``containment="best-effort"`` in their result metadata.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections import deque
from dataclasses import field
from pathlib import Path

from .._dataclass import dataclass
from .._tools import ToolError
from ._directory import (
    DESCRIPTORS,
    READ_FLAGS,
    Directory,
    WalkedFiles,
    is_link_error,
    open_relative_directory,
)
from ._paths import PATH_NOT_ALLOWED, normalize

__all__ = [
    "DESCRIPTORS",
    "Directory",
    "Located",
    "WalkedFiles",
    "locate",
    "open_relative_directory",
]

#: Links resolved in one path before giving up, as the kernel's limit.
MAX_LINKS = 40


def _outside(raw: str, real_root: Path, through: str | None = None) -> ToolError:
    how = f" through the link to {through}" if through else ""
    return ToolError(
        PATH_NOT_ALLOWED,
        f"{raw!r} leads outside the workspace root {real_root}{how}; use a path inside the root.",
    )


def _parts_below(absolute: str, roots: tuple[Path, ...]) -> list[str] | None:
    """The components of an absolute path below one of ``roots`` (spellings of the root)."""
    candidate = Path(absolute)
    for root in roots:
        if candidate == root or candidate.is_relative_to(root):
            return list(candidate.relative_to(root).parts)
    return None


def _absolute_parts(absolute: str, roots: tuple[Path, ...]) -> list[str] | None:
    """The components below the root of an absolute path, or None if it is elsewhere."""
    parts = _parts_below(absolute, roots)
    if parts is None:
        # Another spelling of a place inside (through a link to the root, say). The string
        # resolution only decides where the walk starts: what it finds is walked again below.
        parts = _parts_below(os.path.realpath(absolute), roots)
    return parts


@dataclass
class Located:
    """Where a path lands: an open directory inside the root and an entry name in it.

    ``name`` is None when the path names that directory itself (``.``, ``a/..``).
    ``parts`` are the directory's components below the root. Close it (or use
    it as a context manager) to release the descriptor.
    """

    root: Path
    parts: list[str]
    directory: Directory
    name: str | None
    _closed: bool = field(default=False, repr=False)

    @property
    def relative(self) -> str:
        """The path below the root, with ``/``; "" for the root itself."""
        return "/".join([*self.parts, self.name] if self.name is not None else self.parts)

    @property
    def shown(self) -> str:
        """The path as the model should write it back."""
        return self.relative or "."

    @property
    def path(self) -> Path:
        """The absolute path (for messages and lock keys; never for I/O)."""
        return self.root.joinpath(*self.parts, *([self.name] if self.name is not None else []))

    def lstat(self) -> os.stat_result | None:
        """The entry's own status (a link is not followed), or None if it does not exist."""
        if self.name is None:
            return (
                os.stat(self.directory.fd)
                if self.directory.fd is not None
                else os.stat(self.directory.path)
            )
        try:
            return self.directory.lstat(self.name)
        except FileNotFoundError:
            return None

    def open_directory(self) -> Directory:
        """The named directory, opened (the caller closes it; for ``.`` a second handle)."""
        if self.name is None:
            return (
                Directory.open_root(self.path)
                if self.directory.fd is None
                else Directory(os.dup(self.directory.fd), self.directory.path)
            )
        try:
            return self.directory.child(self.name)
        except FileNotFoundError:
            raise ToolError("not_found", f"{self.shown} does not exist.") from None
        except OSError as exc:
            if not is_link_error(exc):
                raise
            info = self.lstat()
            if info is None:
                raise ToolError("not_found", f"{self.shown} does not exist.") from None
            if stat.S_ISLNK(info.st_mode) or stat.S_ISDIR(info.st_mode):
                # A link (or, by now, a directory again): it was swapped between two steps.
                raise _changed(self.shown) from None
            raise ToolError(
                "not_a_directory", f"{self.shown} is a file; use read_file(path={self.shown!r})."
            ) from None

    def open_file(self, flags: int = READ_FLAGS) -> int:
        """Open the named regular file (never through a link); the caller closes the descriptor."""
        if self.name is None:
            raise ToolError("is_a_directory", f"{self.shown} is a directory; give a file path.")
        try:
            fd = self.directory.open(self.name, flags)
        except FileNotFoundError:
            raise ToolError("not_found", f"{self.shown} does not exist.") from None
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                raise _changed(self.shown) from None
            raise
        mode = os.fstat(fd).st_mode
        if stat.S_ISREG(mode):
            return fd
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise ToolError(
                "is_a_directory",
                f"{self.shown} is a directory; use list_files(path={self.shown!r}).",
            )
        raise ToolError(
            "not_a_regular_file", f"{self.shown} is not a regular file (a FIFO, socket or device)."
        )

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.directory.close()

    def __enter__(self) -> Located:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _changed(shown: str) -> ToolError:
    return ToolError(
        "path_changed",
        f"{shown} was renamed or replaced (by a symbolic link, say) while it was being opened; "
        "try again.",
    )


def _not_below(top: Directory, part: str, shown: str) -> ToolError:
    """Why nothing could be opened below ``part``: a file is in the way, or it changed meanwhile.

    Asked after the steps on ``part`` disagreed (it opened as a link, then did not read as
    one): what it is now says whether that was a file all along or a rename racing the walk.
    """
    try:
        info = top.lstat(part)
    except FileNotFoundError:
        return ToolError("not_found", f"{shown} does not exist.")
    except OSError:
        return _changed(shown)
    if stat.S_ISLNK(info.st_mode) or stat.S_ISDIR(info.st_mode):
        return _changed(shown)
    return ToolError("not_a_directory", f"{shown} is a file, so nothing can be below it.")


def locate(root: Path | str, raw: str, *, make_parents: bool = False) -> Located:
    """Walk ``raw`` from the root, one directory descriptor at a time, never leaving the root.

    :param root: the workspace root the embedder chose.
    :param raw: the path the model gave: relative, absolute, ``~/...`` or ``file://...``.
    :param make_parents: create missing directories on the way (inside the root).
    :returns: the open directory holding the target and the target's name in it;
        the target itself may not exist. Links on the way, the last one included,
        are resolved by the same walk.
    :raises ToolError: ``path_not_allowed`` when the path or a link on it leads
        outside the root; ``not_found`` / ``not_a_directory`` for a missing or
        non-directory component on the way; ``too_many_links``.
    """
    if not isinstance(raw, str) or "\x00" in raw:
        raise ToolError(PATH_NOT_ALLOWED, "The path contains a NUL byte; give a plain path.")
    real_root = Path(os.path.realpath(root))
    spellings = (real_root, Path(os.path.abspath(root)))
    normalized = normalize(raw.strip() if raw.strip() else ".")
    if os.path.isabs(normalized):
        parts = _absolute_parts(normalized, spellings)
        if parts is None:
            raise _outside(raw, real_root)
    else:
        parts = normalized.split("/") if os.sep == "/" else list(Path(normalized).parts)
    todo = deque(part for part in parts if part not in ("", "."))
    stack = [Directory.open_root(real_root)]
    names: list[str] = []
    links = 0

    def follow(link_name: str, top: Directory, *, seen_link: bool = False) -> None:
        nonlocal links
        links += 1
        if links > MAX_LINKS:
            raise ToolError("too_many_links", f"{raw!r} goes through more than {MAX_LINKS} links.")
        try:
            target = top.readlink(link_name)
        except OSError:
            shown = "/".join([*names, link_name])
            if seen_link:
                # lstat said link a step ago: renamed, or swapped for something else, since.
                raise _changed(shown) from None
            raise _not_below(top, link_name, shown) from None
        if os.path.isabs(target):
            below = _absolute_parts(target, spellings)
            if below is None:
                raise _outside(raw, real_root, target)
            while len(stack) > 1:
                stack.pop().close()
                names.pop()
        else:
            below = target.split("/")
        todo.extendleft(reversed([part for part in below if part not in ("", ".")]))

    def reenter(part: str) -> None:
        # Above the root is the embedder's, not the workspace's: a path that climbs out and
        # comes back ("../ws/a" in a root named ws) is resolved there by string, and what it
        # names inside is walked again from the root.
        nonlocal links
        links += 1
        if links > MAX_LINKS:
            raise ToolError("too_many_links", f"{raw!r} goes through more than {MAX_LINKS} links.")
        rest = os.path.realpath(os.path.join(real_root, part, *todo))
        below = _parts_below(rest, spellings)
        if below is None:
            raise _outside(raw, real_root)
        todo.clear()
        todo.extend(part for part in below if part not in ("", "."))

    try:
        while todo:
            part = todo.popleft()
            top = stack[-1]
            if part == ".." and not names:
                reenter(part)
                continue
            if part == "..":
                stack.pop().close()
                names.pop()
                continue
            if not todo:
                try:
                    info = top.lstat(part)
                except FileNotFoundError:
                    info = None
                if info is not None and stat.S_ISLNK(info.st_mode):
                    follow(part, top, seen_link=True)
                    continue
                return Located(real_root, list(names), stack.pop(), part)
            try:
                child = top.child(part)
            except FileNotFoundError:
                if not make_parents:
                    shown = "/".join([*names, part])
                    raise ToolError("not_found", f"{shown} does not exist.") from None
                with contextlib.suppress(FileExistsError):
                    top.mkdir(part)
                child = top.child(part)
            except OSError as exc:
                if not is_link_error(exc):
                    raise
                follow(part, top)
                continue
            stack.append(child)
            names.append(part)
        return Located(real_root, list(names), stack.pop(), None)
    finally:
        for directory in stack:
            directory.close()
