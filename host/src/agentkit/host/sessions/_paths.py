"""Where agentkit keeps the user's data: ``$AGENTKIT_DATA_DIR``, else the platform's user data directory.

The lookup is the small part of ``platformdirs`` agentkit needs, so the host
takes no dependency for it: Linux and other Unixes follow the XDG base
directory specification (``$XDG_DATA_HOME``, else ``~/.local/share``), macOS
uses ``~/Library/Application Support``, Windows ``%LOCALAPPDATA%`` (else
``%APPDATA%``). What agentkit creates there is the user's alone (folders
0700, files 0600): sessions hold everything the model and the tools saw.

An existing folder there is used only when it is the user's alone too
(OpenSSH's ``StrictModes``, docs/decisions/0027): owned by the effective user
and not writable by group or others; else :class:`UnsafeDataDirError`.
Another user who can write it could plant a session to resume or read what
the model saw.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path

from ..errors import UnsafeDataDirError

#: Overrides the data directory (sessions live in its ``sessions/`` folder).
DATA_DIR_ENV = "AGENTKIT_DATA_DIR"
_APP = "agentkit"


def data_dir(environ: Mapping[str, str] | None = None, platform: str | None = None) -> Path:
    """The directory agentkit keeps the user's data in (not created here).

    :param environ: the environment to read (default ``os.environ``).
    :param platform: ``sys.platform`` to answer for (default this one's).
    """
    env = os.environ if environ is None else environ
    override = env.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    platform = sys.platform if platform is None else platform
    if platform == "win32":
        base = env.get("LOCALAPPDATA") or env.get("APPDATA")
        return Path(base) / _APP if base else Path.home() / "AppData" / "Local" / _APP
    if platform == "darwin":
        return Path.home() / "Library" / "Application Support" / _APP
    xdg = env.get("XDG_DATA_HOME")
    # The specification says a relative value is invalid and must be ignored.
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / _APP
    return Path.home() / ".local" / "share" / _APP


def private_dir(path: Path, top: Path | None = None) -> Path:
    """Create ``path`` and its missing parents, each readable by the user alone, after checking what exists.

    :param top: the highest folder checked (default: ``path``): each existing
        folder from ``top`` down to ``path`` must be the user's alone.
    :raises UnsafeDataDirError: one of them is not.
    """
    check_private(path, top)
    missing = [folder for folder in (path, *path.parents) if not folder.exists()]
    for folder in reversed(missing):  # ``mkdir(parents=True)`` would give the parents the umask's mode
        folder.mkdir(mode=0o700, exist_ok=True)
    return path


def check_private(path: Path, top: Path | None = None) -> None:
    """Refuse an existing folder from ``top`` (default: ``path``) down to ``path`` that is not the user's alone.

    Owned by the effective user and not writable by group or others, as
    OpenSSH's ``StrictModes`` asks of ``~/.ssh``. Missing folders pass (they
    are created 0700); where the platform has no owners (Windows), all pass.

    :raises UnsafeDataDirError: naming the folder and the fix.
    """
    if not hasattr(os, "geteuid"):
        return
    top = path if top is None else top
    chain = [path, *path.parents]
    checked = chain[: chain.index(top) + 1] if top in chain else [path]
    me = os.geteuid()
    for folder in reversed(checked):
        try:
            info = os.stat(folder)
        except FileNotFoundError:
            continue
        if info.st_uid != me:
            raise UnsafeDataDirError(
                f"{folder} is owned by another user (uid {info.st_uid}, you are uid {me}), so agentkit will not "
                f"keep sessions there; chown it to yourself or set {DATA_DIR_ENV} to a folder of your own"
            )
        if info.st_mode & 0o022:
            raise UnsafeDataDirError(
                f"{folder} is writable by group or others (mode {stat.filemode(info.st_mode)}), so agentkit will "
                f"not keep sessions there; run 'chmod go-w {folder}' or set {DATA_DIR_ENV} to a folder of your own"
            )
