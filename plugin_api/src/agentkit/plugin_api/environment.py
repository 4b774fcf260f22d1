"""The reduced environment a subprocess starts with: an allowlist.

Shared by every plugin that starts another program (the shell tools for a
command, the MCP client for a stdio server), so that one list says what a
child of the agent may see.

A model-driven command can print its environment as easily as anything else,
and secrets hide under any name (``PGPASSWORD``, ``GH_PAT``, a ``REDIS_URL``
with a password in it), so no rule about names can tell them apart. The child
therefore gets only the variables a command needs to behave as it does in the
user's terminal (where programs are, who the user is, the locale, the
terminal, where temporary files go) plus whatever the embedder names with
``pass_env`` or sets with ``env``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping

__all__ = ["DEFAULT_PASSED_NAMES", "DEFAULT_PASSED_PREFIXES", "passes_by_default", "reduced_environment"]

DEFAULT_PASSED_NAMES: frozenset[str] = frozenset(
    {
        # POSIX: programs, user, locale, terminal, temporary files
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TERM",
        "COLORTERM",
        "NO_COLOR",
        "TMPDIR",
        "TMP",
        "TEMP",
        # Windows: without these many programs cannot start or find the user
        "SYSTEMROOT",
        "SYSTEMDRIVE",
        "WINDIR",
        "COMSPEC",
        "PATHEXT",
        "USERNAME",
        "USERPROFILE",
        "HOMEDRIVE",
        "HOMEPATH",
        "APPDATA",
        "LOCALAPPDATA",
        "PROGRAMDATA",
        "PROGRAMFILES",
        "PROGRAMFILES(X86)",
        "PROGRAMW6432",
        "COMMONPROGRAMFILES",
        "COMMONPROGRAMFILES(X86)",
        "NUMBER_OF_PROCESSORS",
        "PROCESSOR_ARCHITECTURE",
    }
)
"""Variables a subprocess receives from the parent without being named."""

DEFAULT_PASSED_PREFIXES: tuple[str, ...] = ("LC_",)
"""Name prefixes passed the same way (``LC_ALL``, ``LC_TIME``, ...)."""


def passes_by_default(name: str) -> bool:
    """True when ``name`` reaches a subprocess without the embedder naming it."""
    key = name.upper() if sys.platform == "win32" else name
    return key in DEFAULT_PASSED_NAMES or key.startswith(DEFAULT_PASSED_PREFIXES)


def reduced_environment(
    parent: Mapping[str, str],
    *,
    pass_env: Iterable[str] = (),
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment for a subprocess.

    :param parent: the environment to start from (normally ``os.environ``).
    :param pass_env: further names the embedder lets through from ``parent``
        (matched case-insensitively on Windows, exactly elsewhere).
    :param extra: variables the embedder sets explicitly, whatever their names.
    :returns: the allowlisted and passed variables of ``parent``, then ``extra``.
    """
    fold = str.upper if sys.platform == "win32" else str
    passed = {fold(name) for name in pass_env}
    env = {
        name: value
        for name, value in parent.items()
        if passes_by_default(name) or fold(name) in passed
    }
    if extra:
        env.update({str(name): str(value) for name, value in extra.items()})
    return env
