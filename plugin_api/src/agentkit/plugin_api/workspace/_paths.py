"""Path spelling: normalizing what the model wrote, a string-only check, and display.

:func:`normalize` turns ``file://`` URIs and ``~`` into plain paths.
:func:`resolve_inside` resolves a path *string*, symlinks included, and checks
that it stays inside the root; it is a check only. I/O done later on that
string can be redirected by a directory swapped for a link in between, so the
tools open paths through :mod:`._beneath`, which resolves and opens relative to
directory descriptors in one walk and cannot be redirected that way.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .._tools import ToolError

__all__ = ["PATH_NOT_ALLOWED", "display_path", "normalize", "resolve_inside"]

PATH_NOT_ALLOWED = "path_not_allowed"


def normalize(raw: str) -> str:
    """Turn a ``file://`` URI or a ``~`` path into a plain path (no resolution)."""
    if raw.startswith("file://"):
        parts = urlsplit(raw)
        if parts.netloc not in ("", "localhost"):
            raise ToolError(
                PATH_NOT_ALLOWED,
                f"{raw!r} names a remote host; give a path inside the workspace root.",
            )
        raw = unquote(parts.path) or "/"
    if raw.startswith("~"):
        raw = os.path.expanduser(raw)
    return raw


def resolve_inside(root: Path | str, raw: str) -> Path:
    """Resolve ``raw`` (relative to ``root``) and return it if it stays inside ``root``.

    :param root: the workspace root the embedder chose.
    :param raw: the path the model gave: relative, absolute, ``~/...`` or ``file://...``.
    :returns: the fully resolved absolute path (symlinks followed, even dangling ones).
    :raises ToolError: ``path_not_allowed`` when the resolved path leaves the root
        or the path is malformed.
    """
    if not isinstance(raw, str) or "\x00" in raw:
        raise ToolError(PATH_NOT_ALLOWED, "The path contains a NUL byte; give a plain path.")
    real_root = Path(os.path.realpath(root))
    normalized = normalize(raw.strip() if raw.strip() else ".")
    candidate = Path(normalized)
    if not candidate.is_absolute():
        candidate = real_root / candidate
    resolved = Path(os.path.realpath(candidate))
    if resolved != real_root and not resolved.is_relative_to(real_root):
        raise ToolError(
            PATH_NOT_ALLOWED,
            f"{raw!r} resolves to {resolved}, outside the workspace root {real_root}; "
            "use a path inside the root.",
        )
    return resolved


def display_path(root: Path | str, resolved: Path) -> str:
    """The path as the model should write it back: relative to the root, with ``/``."""
    real_root = Path(os.path.realpath(root))
    try:
        relative = resolved.relative_to(real_root)
    except ValueError:
        return resolved.as_posix()
    text = relative.as_posix()
    return text if text else "."
