"""Where agentkit keeps the user's data: ``$AGENTKIT_DATA_DIR``, else the platform's user data directory.

The lookup is the small part of ``platformdirs`` agentkit needs, so the host
takes no dependency for it: Linux and other Unixes follow the XDG base
directory specification (``$XDG_DATA_HOME``, else ``~/.local/share``), macOS
uses ``~/Library/Application Support``, Windows ``%LOCALAPPDATA%`` (else
``%APPDATA%``). What agentkit creates there is the user's alone (folders
0700, files 0600): sessions hold everything the model and the tools saw.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

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


def private_dir(path: Path) -> Path:
    """Create ``path`` and its missing parents, each readable by the user alone; existing folders are left as they are."""
    missing = [folder for folder in (path, *path.parents) if not folder.exists()]
    for folder in reversed(missing):  # ``mkdir(parents=True)`` would give the parents the umask's mode
        folder.mkdir(mode=0o700, exist_ok=True)
    return path
