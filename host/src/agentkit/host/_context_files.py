"""Project context files (``AGENTS.md`` and kin) for the system prompt.

Per folder, the first of :data:`CANDIDATES` that is a file is used (a folder
of that name falls through to the next candidate). Read in this order, least
specific first, so that the most specific instructions come last:

1. the user's: ``~/.agentkit/`` (skipped when HOME cannot be resolved);
2. the project's, only when the project is trusted: every folder from the
   repository root down to the agent's root. The repository root is the
   nearest folder at or above the agent's root holding ``.git`` (a folder, or
   the file a linked worktree has); without one, only the agent's root is read.
   So a linked worktree nested inside its main repository stops at its own
   root, and the main repository's copy of the same tracked file is not read
   a second time. A project file that is a symbolic link leading out of the
   repository is refused as ``read_file`` refuses it (a link that stays inside
   is followed), and the refusal is reported.

Each file is cut at :data:`MAX_CONTEXT_FILE_BYTES` with a note saying so, its
BOM is stripped, and both its path and its body are XML-escaped in the prompt.
"""

from __future__ import annotations

import os
from pathlib import Path

from agentkit.plugin_api import Project, ToolError
from agentkit.plugin_api._dataclass import dataclass

from ._escape import escape
from ._system_prompt import CONTEXT_FILES, USER_FOLDER
from .skills._folders import user_home

__all__ = ["CANDIDATES", "MAX_CONTEXT_FILE_BYTES", "ContextFile", "load_context_files", "render_context_file"]

#: The names tried in each folder, first match wins.
CANDIDATES = CONTEXT_FILES
#: The most of one file the model is shown.
MAX_CONTEXT_FILE_BYTES = 32 * 1024


@dataclass(frozen=True, slots=True)
class ContextFile:
    """One context file as the model is shown it.

    :param tier: ``user`` or ``project``.
    :param size: the file's size in bytes; more than the text shown when it was cut.
    """

    path: Path
    text: str
    tier: str
    size: int
    cut: bool


def load_context_files(root: Path, *, trust_project: bool, problems: list[str] | None = None) -> list[ContextFile]:
    """The context files for an agent rooted at ``root``, in prompt order.

    :param problems: where a refused project file is reported, one line each.
    """
    found = []
    home = user_home()
    if home is not None:
        found += _read_folder(home / USER_FOLDER, "user")
    if trust_project:
        folders = Project(root).folders()
        for folder in folders:
            found += _read_project_folder(folders[0], folder, [] if problems is None else problems)
    return found


def _read_folder(folder: Path, tier: str) -> list[ContextFile]:
    for name in CANDIDATES:
        path = folder / name
        if not path.is_file():
            continue  # absent, or a folder of that name: try the next candidate
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_CONTEXT_FILE_BYTES + 1)
                size = max(len(data), path.stat().st_size)
        except OSError:
            continue
        return [_context_file(path.resolve(), data, tier, size)]
    return []


def _read_project_folder(top: Path, folder: Path, problems: list[str]) -> list[ContextFile]:
    """The first candidate of ``folder``, opened beneath the repository's ``top`` folder, never through a link out."""
    # Here, not at the top: only a trusted project's folders are opened beneath its root.
    from agentkit.plugin_api.workspace import locate

    below = folder.relative_to(top)
    for name in CANDIDATES:
        if not (folder / name).is_file():
            continue
        try:
            with locate(top, str(below / name)) as located:
                fd = located.open_file()
                shown = located.path
        except ToolError as exc:
            problems.append(f"{folder / name}: not read: {exc}")
            continue
        except OSError:
            continue
        with open(fd, "rb") as handle:
            data = handle.read(MAX_CONTEXT_FILE_BYTES + 1)
            size = max(len(data), os.fstat(handle.fileno()).st_size)
        return [_context_file(shown, data, "project", size)]
    return []


def _context_file(path: Path, data: bytes, tier: str, size: int) -> ContextFile:
    cut = len(data) > MAX_CONTEXT_FILE_BYTES
    text = data[:MAX_CONTEXT_FILE_BYTES].decode("utf-8", errors="ignore" if cut else "replace")
    return ContextFile(path, text.removeprefix("\ufeff"), tier, size, cut)


def render_context_file(item: ContextFile) -> str:
    """The file as a ``<context_file>`` element, path and body escaped."""
    body = escape(item.text.rstrip("\n"))
    if item.cut:
        body += (f"\n[cut: {item.path.name} is {item.size} bytes; only the first {MAX_CONTEXT_FILE_BYTES} are "
                 "shown. Read the file for the rest.]")
    path = escape(str(item.path)).replace('"', "&quot;")
    return f'<context_file path="{path}">\n{body}\n</context_file>'
