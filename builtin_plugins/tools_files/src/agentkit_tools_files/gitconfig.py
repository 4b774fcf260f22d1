"""Where git's global excludes file is, read the way git resolves it.

``core.excludesFile`` from the config files (system, then global: the XDG
``git/config`` and ``~/.gitconfig`` or ``$GIT_CONFIG_GLOBAL``, then the
repository's ``.git/config``; a later file wins); when unset,
``$XDG_CONFIG_HOME/git/ignore``, else ``~/.config/git/ignore``.

Everything is resolved from an explicit environment mapping so tests (and
embedders) can point it at a temporary home without touching process state.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

__all__ = ["global_excludes_file", "read_core_excludes_file"]

_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]\s*(.*)$')
_ENTRY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*?))?\s*$")


def _unquote(value: str) -> str:
    out, quoted, i = [], False, 0
    while i < len(value):
        char = value[i]
        if char == '"':
            quoted = not quoted
        elif char == "\\" and i + 1 < len(value):
            i += 1
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(value[i], value[i]))
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
        i += 1
    return "".join(out).strip()


def read_core_excludes_file(config: Path) -> str | None:
    """The ``core.excludesFile`` value set in one config file, or None."""
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    section, found = "", None
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header:
            section = header.group(1).lower()
            line = header.group(2)
            if not line.strip():
                continue
        entry = _ENTRY.match(line)
        if entry and section == "core" and entry.group(1).lower() == "excludesfile":
            found = _unquote(entry.group(2) or "")
    return found


def _expand_home(value: str, home: str | None) -> str:
    if value == "~" or value.startswith("~/"):
        return (home or "~") + value[1:]
    return value


def global_excludes_file(
    env: Mapping[str, str] | None = None, repo_git_dir: Path | None = None
) -> Path | None:
    """The global excludes file git would read for a repository, or None."""
    env = os.environ if env is None else env
    home = env.get("HOME")
    xdg = env.get("XDG_CONFIG_HOME") or (f"{home}/.config" if home else None)
    configs: list[Path] = []
    if not env.get("GIT_CONFIG_NOSYSTEM"):
        configs.append(Path(env.get("GIT_CONFIG_SYSTEM", "/etc/gitconfig")))
    if env.get("GIT_CONFIG_GLOBAL"):
        configs.append(Path(env["GIT_CONFIG_GLOBAL"]))
    else:
        if xdg:
            configs.append(Path(xdg) / "git" / "config")
        if home:
            configs.append(Path(home) / ".gitconfig")
    if repo_git_dir is not None:
        configs.append(repo_git_dir / "config")
    value = None
    for config in configs:
        found = read_core_excludes_file(config)
        if found is not None:
            value = found
    if value:
        return Path(_expand_home(value, home))
    if xdg:
        return Path(xdg) / "git" / "ignore"
    return None
