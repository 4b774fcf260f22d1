"""Finding the interpreters: a bash-family shell and PowerShell.

The shell is found by a fixed ladder, never from ``$SHELL``: the user's
interactive shell (fish, zsh, nu) is not the dialect the model writes, and a
variable the environment controls must not choose what runs the command.
"""

from __future__ import annotations

import ntpath
import os
import shutil
import sys
from collections.abc import Callable, Mapping

IS_WINDOWS = sys.platform == "win32"

Which = Callable[[str, str | None], str | None]


class InterpreterNotFound(Exception):
    """No interpreter for the tool; the message says what to install."""


def _which(name: str, path: str | None) -> str | None:
    return shutil.which(name, path=path)


def find_bash(
    env: Mapping[str, str],
    *,
    which: Which = _which,
    is_file: Callable[[str], bool] = os.path.isfile,
    windows: bool = IS_WINDOWS,
) -> str:
    """The shell for ``execute``: ``/bin/bash``, then ``bash`` on PATH, then ``sh``.

    On Windows the ladder looks for Git Bash: the ``bash.exe`` in
    ``System32`` is the WSL launcher, which runs the command in another
    operating system, so it is skipped.
    """
    path = env.get("PATH")
    if windows:
        for base in (env.get("ProgramFiles"), env.get("ProgramW6432"), r"C:\Program Files"):
            if base:
                candidate = ntpath.join(base, "Git", "bin", "bash.exe")
                if is_file(candidate):
                    return candidate
        for name in ("bash", "sh"):
            found = which(name, path)
            if found and not _is_system32(found, env):
                return found
        raise InterpreterNotFound(
            "execute needs a bash-family shell and none was found; install Git for "
            "Windows (Git Bash) or use run_command or powershell instead"
        )
    if is_file("/bin/bash"):
        return "/bin/bash"
    for name in ("bash", "sh"):
        found = which(name, path)
        if found:
            return found
    if is_file("/bin/sh"):
        return "/bin/sh"
    raise InterpreterNotFound(
        "execute needs a shell and found neither /bin/bash, bash nor sh on PATH; "
        "install bash or use run_command instead"
    )


def _is_system32(found: str, env: Mapping[str, str]) -> bool:
    system_root = env.get("SystemRoot") or env.get("SYSTEMROOT") or r"C:\Windows"

    def normal(path: str) -> str:
        return path.replace("\\", "/").lower()

    return normal(found).startswith(normal(system_root).rstrip("/") + "/system32/")


def find_powershell(
    env: Mapping[str, str],
    *,
    which: Which = _which,
    is_file: Callable[[str], bool] = os.path.isfile,
    windows: bool = IS_WINDOWS,
) -> str:
    """PowerShell 7 (``pwsh``) anywhere; Windows PowerShell 5.1 as a fallback on Windows.

    Looked up when the tool is called, never at registration, so the tool
    list is the same on every platform.
    """
    found = which("pwsh", env.get("PATH"))
    if found:
        return found
    if windows:
        system_root = env.get("SystemRoot") or env.get("SYSTEMROOT") or r"C:\Windows"
        legacy = ntpath.join(system_root, "System32", "WindowsPowerShell", "v1.0", "powershell.exe")
        if is_file(legacy):
            return legacy
    raise InterpreterNotFound(
        "PowerShell is not installed on this machine (no pwsh on PATH); install "
        "PowerShell 7 (https://aka.ms/powershell) or use execute or run_command instead"
    )
