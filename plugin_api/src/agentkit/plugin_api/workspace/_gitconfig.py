"""Where git's global excludes file is, and whether matching ignores case, read as git does.

``core.excludesFile`` from the config files (system, then global: the XDG
``git/config`` and ``~/.gitconfig`` or ``$GIT_CONFIG_GLOBAL``, then the
repository's ``.git/config``; a later file wins); when unset,
``$XDG_CONFIG_HOME/git/ignore``, else ``~/.config/git/ignore``.

``core.ignoreCase`` is read from the same files, in the same order.

Everything is resolved from an explicit environment mapping so tests (and
embedders) can point it at a temporary home without touching process state.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "global_excludes_file",
    "ignore_case",
    "read_core_excludes_file",
    "read_core_settings",
]

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


def read_core_settings(text: str) -> dict[str, str]:
    """The ``[core]`` keys of one config file's text, lower-cased, the last value of each.

    A key without ``=`` is a boolean set to true, as git reads it.
    """
    section, found = "", {}
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header:
            section = header.group(1).lower()
            line = header.group(2)
            if not line.strip():
                continue
        entry = _ENTRY.match(line)
        if entry and section == "core":
            value = entry.group(2)
            found[entry.group(1).lower()] = "true" if value is None else _unquote(value)
    return found


def _read_settings(config: Path) -> dict[str, str]:
    try:
        return read_core_settings(config.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return {}


def read_core_excludes_file(config: Path) -> str | None:
    """The ``core.excludesFile`` value set in one config file, or None."""
    return _read_settings(config).get("excludesfile")


def _user_configs(env: Mapping[str, str], home: str | None, xdg: str | None) -> list[Path]:
    """The system and global config files, lowest precedence first."""
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
    return configs


def _core_value(
    env: Mapping[str, str], key: str, repo_git_dir: Path | None, repo_config: str | None
) -> str | None:
    home = env.get("HOME")
    xdg = env.get("XDG_CONFIG_HOME") or (f"{home}/.config" if home else None)
    layers = [_read_settings(config) for config in _user_configs(env, home, xdg)]
    if repo_config is not None:
        layers.append(read_core_settings(repo_config))
    elif repo_git_dir is not None:
        layers.append(_read_settings(repo_git_dir / "config"))
    value = None
    for settings in layers:
        value = settings.get(key, value)
    return value


def ignore_case(
    env: Mapping[str, str] | None = None,
    repo_git_dir: Path | None = None,
    *,
    repo_config: str | None = None,
) -> bool:
    """Whether ``core.ignoreCase`` is true for a repository (git's default is false).

    :param repo_config: the text of the repository's ``config``, when the caller
        read it itself (through a descriptor); otherwise it is read from
        ``repo_git_dir``.
    """
    value = _core_value(os.environ if env is None else env, "ignorecase", repo_git_dir, repo_config)
    return value is not None and value.lower() in ("true", "yes", "on", "1")


def _expand_home(value: str, home: str | None) -> str:
    if value == "~" or value.startswith("~/"):
        return (home or "~") + value[1:]
    return value


def global_excludes_file(
    env: Mapping[str, str] | None = None,
    repo_git_dir: Path | None = None,
    *,
    repo_config: str | None = None,
) -> Path | None:
    """The global excludes file git would read for a repository, or None.

    :param repo_config: as for :func:`ignore_case`.
    """
    env = os.environ if env is None else env
    home = env.get("HOME")
    xdg = env.get("XDG_CONFIG_HOME") or (f"{home}/.config" if home else None)
    value = _core_value(env, "excludesfile", repo_git_dir, repo_config)
    if value:
        return Path(_expand_home(value, home))
    if xdg:
        return Path(xdg) / "git" / "ignore"
    return None
