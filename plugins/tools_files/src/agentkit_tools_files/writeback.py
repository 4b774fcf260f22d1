"""Writing a file's new content: atomically by rename, or in place where the file has hard links.

A write normally goes to a temporary file renamed over the name, so that a
reader sees the old file or the new one, never half of each. A rename gives
the name a new inode, though, and a file with more than one hard link would
be silently split in two: the edited name gets the new text, every other link
keeps the old one. So a file whose link count is above one is written in
place, through the inode itself, and every link sees the change; this is what
vim does with ``backupcopy=auto`` and what VS Code does for every save. The
price is the rename's atomicity: a reader during the write may see part of it,
which the flock held across the edit (see :mod:`.locks`) keeps from other
agentkit writers, and ``fsync`` keeps short.
"""

from __future__ import annotations

import os

from agentkit.plugin_api import ToolError
from agentkit.plugin_api.workspace import Located

__all__ = ["write_back"]

_WRITE_FLAGS = os.O_WRONLY | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in cannot block the open


def write_back(target: Located, locked_fd: int | None, data: bytes) -> str:
    """Give ``target`` the content ``data``; the file (if any) is open and locked as ``locked_fd``.

    :returns: ``"in_place"`` for a file with hard links (same inode, every link sees it),
        else ``"replaced"`` (a new file renamed over the name, mode kept).
    :raises ToolError: ``path_changed`` if the name no longer holds the locked file.
    """
    info = None if locked_fd is None else os.fstat(locked_fd)
    if info is not None and info.st_nlink > 1:
        _write_in_place(target, info, data)
        return "in_place"
    mode = None if info is None else info.st_mode & 0o7777
    # The caller refused a directory, so the path names an entry (``name`` is set).
    target.directory.replace(target.name, data, mode)  # type: ignore[arg-type]  # see above
    return "replaced"


def _write_in_place(target: Located, locked: os.stat_result, data: bytes) -> None:
    fd = target.open_file(_WRITE_FLAGS)
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (locked.st_dev, locked.st_ino):
            raise ToolError(
                "path_changed", f"{target.shown} was replaced while it was being edited; try again."
            )
        view = memoryview(data)
        os.lseek(fd, 0, os.SEEK_SET)
        written = 0
        while written < len(data):
            written += os.write(fd, view[written:])
        # Written first, cut after: the file is never shorter than what it will hold.
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)
