"""Workspace helpers for tool plugins: containment, ignore rules and globs, as the built-in tools use them.

Import it as ``from agentkit.plugin_api.workspace import locate`` (it is not
imported with :mod:`agentkit.plugin_api`, so plugins that do not touch files
pay nothing for it). Standard library only.

Containment (:func:`locate`, :class:`Located`): open a path the model gave
beneath the workspace root, component by component from a descriptor of the
root, never following a link out, so a directory swapped for a link during the
call cannot lead outside. :class:`Directory` does I/O relative to such a
descriptor; :class:`WalkedFiles` reopens paths a walk listed, refusing links.
Where the platform lacks the primitives (:func:`descriptors_available` false:
Windows), the same walk runs over path strings and a concurrent swap can win.

Ignore rules (:class:`IgnoreEngine`): git's, layer by layer (global excludes,
``info/exclude``, every ``.gitignore``, nested repositories), checked against
``git check-ignore`` by the test suite; :meth:`IgnoreEngine.walk` lists what is
not ignored without following links.

Globs (:func:`compile_glob`, :class:`Glob`): git's wildmatch (WM_PATHNAME),
POSIX classes and escapes included, plus ``{a,b}`` braces; a glob without
``/`` matches a name at any depth. :meth:`Glob.walk_tests` asks it by file
name and per directory, as :meth:`IgnoreEngine.files` does when given it.

Path spelling (:func:`normalize`, :func:`display_path`): ``file://`` and ``~``
forms, and paths as the model should write them back. Errors are
:class:`~agentkit.plugin_api.ToolError` with code :data:`PATH_NOT_ALLOWED` for
a path leading out of the root.
"""

from __future__ import annotations

from .._lazy import lazy_exports
from . import _directory

# The names below load on first use (PEP 562): an agent that reads one file (its context files,
# the check of a skill folder) needs the containment walk, not the ignore engine or the globs.
# The flag is spelled out, as type checkers honour it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    # `import X as X` marks each name as re-exported (PEP 484), for type checkers.
    # isort: off
    from ._beneath import Located as Located, locate as locate
    from ._directory import (
        READ_FLAGS as READ_FLAGS,
        Directory as Directory,
        WalkedFiles as WalkedFiles,
        open_relative_directory as open_relative_directory,
    )
    from ._glob import Glob as Glob, compile_glob as compile_glob, expand_braces as expand_braces
    from ._ignore import Entry as Entry, IgnoreEngine as IgnoreEngine
    from ._paths import PATH_NOT_ALLOWED as PATH_NOT_ALLOWED, display_path as display_path, normalize as normalize
    # isort: on

#: Each public name with the module that defines it.
_EXPORTS = {
    "Located": "._beneath",
    "locate": "._beneath",
    "READ_FLAGS": "._directory",
    "Directory": "._directory",
    "WalkedFiles": "._directory",
    "open_relative_directory": "._directory",
    "Glob": "._glob",
    "compile_glob": "._glob",
    "expand_braces": "._glob",
    "Entry": "._ignore",
    "IgnoreEngine": "._ignore",
    "PATH_NOT_ALLOWED": "._paths",
    "display_path": "._paths",
    "normalize": "._paths",
}

__all__ = [
    "PATH_NOT_ALLOWED",
    "READ_FLAGS",
    "Directory",
    "Entry",
    "Glob",
    "IgnoreEngine",
    "Located",
    "WalkedFiles",
    "compile_glob",
    "descriptors_available",
    "display_path",
    "expand_braces",
    "locate",
    "normalize",
    "open_relative_directory",
]


def descriptors_available() -> bool:
    """Whether containment holds under a race here (I/O relative to directory descriptors).

    False where the platform lacks ``dir_fd`` support, ``O_NOFOLLOW`` or
    ``O_DIRECTORY`` (Windows): the built-in tools then report
    ``containment="best-effort"`` in their result metadata.
    """
    return _directory.DESCRIPTORS


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
