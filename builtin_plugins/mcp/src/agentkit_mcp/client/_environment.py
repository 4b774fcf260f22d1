"""The environment a stdio MCP server starts with: the shell tools' allowlist plus its entry's ``env``.

A server is a program someone else wrote; it gets what a program needs to run
as it does in the user's terminal (where programs are, who the user is, the
locale, the terminal, temporary files) and the variables its entry names,
never the rest of the agent's environment (REQ-MCP-CLIENT-10, REQ-SEC-08).
The allowlist is the one ``agentkit-tools-shell`` gives a command; a plugin
cannot import another plugin, so it is restated here.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

PASSED_NAMES: frozenset[str] = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM", "NO_COLOR",
        "TMPDIR", "TMP", "TEMP",
        "SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "USERNAME", "USERPROFILE", "HOMEDRIVE",
        "HOMEPATH", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMW6432",
        "COMMONPROGRAMFILES", "COMMONPROGRAMFILES(X86)", "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE",
    }
)
PASSED_PREFIXES: tuple[str, ...] = ("LC_",)


def server_environment(parent: Mapping[str, str], entry_env: Mapping[str, str]) -> dict[str, str]:
    """The allowlisted variables of ``parent``, then the (already resolved) ``entry_env``."""
    fold = str.upper if sys.platform == "win32" else str
    env = {name: value for name, value in parent.items()
           if fold(name) in PASSED_NAMES or fold(name).startswith(PASSED_PREFIXES)}
    env.update(entry_env)
    return env
