"""The project an agent works in, and whether what it supplies may act.

A repository supplies configuration (``agentkit.toml``: its MCP servers),
skills and context files (``AGENTS.md``). None of it acts until the user
trusts the project (``--trust-project``, ``AgentConfig.trust_project``;
docs/decisions/0026). Trust asked for is still refused when a folder the
project is read from belongs to another user: git's ``safe.directory`` rule,
which refuses a repository whose top folder is not owned by the current user
(docs/decisions/0027).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from ._dataclass import dataclass

#: The name of the configuration file of a project and of a user.
CONFIG_FILE = "agentkit.toml"

#: What marks a repository's top folder (a folder, or the file of a linked worktree).
REPOSITORY_MARK = ".git"


@dataclass(frozen=True, slots=True)
class Project:
    """The folder the agent works in, and whether its user trusts what it supplies.

    A plugin that reads anything from :attr:`root` treats it as untrusted
    input unless :attr:`trusted` is true. Build one with :meth:`open`, which
    applies the ownership rule.

    :param root: the project's folder, absolute.
    :param trusted: the user trusts what the project supplies, and its folders are the user's own.
    :param problems: why trust that was asked for was refused, one line each.
    """

    root: Path
    trusted: bool = False
    problems: tuple[str, ...] = ()

    @classmethod
    def open(cls, root: Path | str, *, trust: bool) -> Project:
        """The project at ``root``; trusted when ``trust`` and every folder it is read from is the user's own.

        Those folders are :meth:`folders` (the repository's top folder down to
        ``root``) and the repository's ``.git``: each must be owned by the
        effective user, as git requires of a repository's top folder. Where
        the platform has no owners to compare (Windows), nothing is refused.
        """
        resolved = Path(root).expanduser().resolve()
        if not trust:
            return cls(resolved, False)
        problems = _foreign_owners(resolved)
        return cls(resolved, not problems, tuple(problems))

    def folders(self) -> list[Path]:
        """From the repository's top folder down to :attr:`root`; just ``[root]`` outside a repository.

        The top folder is the nearest at or above ``root`` holding ``.git``.
        """
        return repository_folders(self.root)


def repository_folders(root: Path) -> list[Path]:
    """From the nearest folder at or above ``root`` holding ``.git`` down to ``root`` (else ``[root]``)."""
    chain = [root, *root.parents]
    for index, folder in enumerate(chain):
        if (folder / REPOSITORY_MARK).exists():
            return list(reversed(chain[: index + 1]))
    return [root]


def _foreign_owners(root: Path) -> list[str]:
    if not hasattr(os, "geteuid"):
        return []
    me = os.geteuid()
    folders = repository_folders(root)
    checked = [*folders, folders[0] / REPOSITORY_MARK] if (folders[0] / REPOSITORY_MARK).exists() else folders
    problems = []
    for path in checked:
        try:
            owner = os.stat(path).st_uid
        except OSError as exc:
            problems.append(f"{path}: cannot be checked ({exc.strerror or exc}): the project is not trusted")
            continue
        if owner != me:
            problems.append(
                f"{path} is owned by another user (uid {owner}, you are uid {me}): the project is not trusted "
                "even with --trust-project; work in a copy you own, or have its owner chown it to you"
            )
    return problems


def user_config_file(environ: Mapping[str, str] | None = None) -> Path:
    """The user's own ``agentkit.toml``, the tier a project's file never overrides without trust.

    ``$AGENTKIT_CONFIG_DIR/agentkit.toml``, else ``%APPDATA%\\agentkit\\agentkit.toml`` on
    Windows, else ``$XDG_CONFIG_HOME/agentkit/agentkit.toml``, else
    ``~/.config/agentkit/agentkit.toml``. ``environ`` defaults to ``os.environ``.
    """
    environ = os.environ if environ is None else environ
    if environ.get("AGENTKIT_CONFIG_DIR"):
        return Path(environ["AGENTKIT_CONFIG_DIR"]) / CONFIG_FILE
    if sys.platform == "win32" and environ.get("APPDATA"):
        return Path(environ["APPDATA"]) / "agentkit" / CONFIG_FILE
    base = Path(environ["XDG_CONFIG_HOME"]) if environ.get("XDG_CONFIG_HOME") else Path.home() / ".config"
    return base / "agentkit" / CONFIG_FILE
