"""The layered gitignore engine, and the walk every listing and search goes through.

Layers, lowest precedence first (the last matching rule wins, so a deeper
file overrides a shallower one):

1. the global excludes file (see :mod:`.gitconfig`),
2. ``.git/info/exclude`` of the repository,
3. ``.gitignore`` of every directory from the repository root down to the
   entry's directory.

A directory holding its own ``.git`` (a nested repository, a submodule, a
vendored checkout) starts a new stack: the outer rules do not reach into it
and its rules do not leak out. An ignored directory hides everything below it,
and a ``!`` rule cannot re-include a file whose parent directory is excluded,
as in git. ``.git`` itself is never listed.

The workspace root may sit inside a repository; the rules of the directories
above it then apply, as git would apply them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ._gitpattern import Pattern, parse_lines
from .gitconfig import global_excludes_file

__all__ = ["Entry", "IgnoreEngine"]


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry the walk yields; ``path`` is relative to the engine's root, with ``/``."""

    path: str
    is_dir: bool
    is_symlink: bool
    is_file: bool = True  # a regular file (false for links, FIFOs, sockets, devices)

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class _Frame:
    """The rules in force inside one directory."""

    prefix: str  # this directory relative to its repository root, "" or ending in "/"
    # (length of the rule file's directory prefix, its patterns), shallowest first
    layers: tuple[tuple[int, tuple[Pattern, ...]], ...]


def _read_patterns(path: Path) -> tuple[Pattern, ...]:
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return ()
    return tuple(parse_lines(text))


def _git_dir(directory: Path) -> Path | None:
    """The git directory of a repository whose work tree is ``directory``, if it is one."""
    dot_git = directory / ".git"
    if dot_git.is_dir():
        return dot_git
    if dot_git.is_file():
        try:
            first = dot_git.read_text(encoding="utf-8", errors="replace").splitlines()[0]
        except (OSError, IndexError):
            return None
        if first.startswith("gitdir:"):
            target = Path(first[len("gitdir:") :].strip())
            return target if target.is_absolute() else directory / target
    return None


class IgnoreEngine:
    """Answers "is this path ignored?" and walks a tree skipping what is.

    :param root: the top of every walk (the workspace root); paths are relative to it.
    :param env: the environment that locates the global excludes (``HOME``,
        ``XDG_CONFIG_HOME``, ``GIT_CONFIG_GLOBAL``...); defaults to ``os.environ``.

    Rule files are read once per engine and cached; make a new engine to see
    edited rule files.
    """

    def __init__(self, root: Path | str, *, env: Mapping[str, str] | None = None) -> None:
        self.root = Path(os.path.realpath(root))
        self._env = dict(os.environ if env is None else env)
        self._frames: dict[str, _Frame] = {}
        self._globals: dict[Path | None, tuple[Pattern, ...]] = {}
        self._dirs: dict[str, bool] = {}  # directory -> its own verdict, for is_ignored

    # -- frames -----------------------------------------------------------------

    def _repo_layers(self, git_dir: Path | None) -> list[tuple[int, tuple[Pattern, ...]]]:
        if git_dir not in self._globals:
            excludes = global_excludes_file(self._env, git_dir)
            self._globals[git_dir] = _read_patterns(excludes) if excludes else ()
        layers = [(0, self._globals[git_dir])]
        if git_dir is not None:
            layers.append((0, _read_patterns(git_dir / "info" / "exclude")))
        return layers

    def _root_frame(self) -> _Frame:
        # Find the repository the root belongs to, possibly above it.
        for candidate in (self.root, *self.root.parents):
            git_dir = _git_dir(candidate)
            if git_dir is not None:
                break
        else:
            candidate, git_dir = self.root, None
        layers = self._repo_layers(git_dir)
        relative = self.root.relative_to(candidate)
        directory, prefix = candidate, ""
        layers.append((0, _read_patterns(directory / ".gitignore")))
        for part in relative.parts:
            if self._decide(_Frame(prefix, tuple(layers)), part, True):
                # The workspace lies inside a directory the enclosing repository ignores
                # (a home directory tracked with "*" in its .gitignore, say). The embedder
                # chose this root explicitly: it becomes its own ignore root.
                return self._standalone_root()
            directory, prefix = directory / part, f"{prefix}{part}/"
            layers.append((len(prefix), _read_patterns(directory / ".gitignore")))
        return _Frame(prefix, tuple(layers))

    def _standalone_root(self) -> _Frame:
        layers = self._repo_layers(None)
        layers.append((0, _read_patterns(self.root / ".gitignore")))
        return _Frame("", tuple(layers))

    def _frame(self, directory: str) -> _Frame:
        """The rules in force inside ``directory`` (relative to the root, "" for the root)."""
        frame = self._frames.get(directory)
        if frame is not None:
            return frame
        if directory == "":
            frame = self._root_frame()
        else:
            absolute = self.root / directory
            git_dir = _git_dir(absolute)
            if git_dir is not None:
                layers = self._repo_layers(git_dir)
                layers.append((0, _read_patterns(absolute / ".gitignore")))
                frame = _Frame("", tuple(layers))
            else:
                parent, _, name = directory.rpartition("/")
                outer = self._frame(parent)
                prefix = f"{outer.prefix}{name}/"
                own = _read_patterns(absolute / ".gitignore")
                layers = (*outer.layers, (len(prefix), own)) if own else outer.layers
                frame = _Frame(prefix, layers)
        self._frames[directory] = frame
        return frame

    # -- verdicts ---------------------------------------------------------------

    @staticmethod
    def _decide(frame: _Frame, name: str, is_dir: bool, subject: str | None = None) -> bool | None:
        relative = frame.prefix + (name if subject is None else subject)
        for base, layer in reversed(frame.layers):
            below = relative[base:]
            for pattern in reversed(layer):
                if pattern.matches(below, name, is_dir):
                    return not pattern.negated
        return None

    def ignored_in(self, directory: str, name: str, is_dir: bool) -> bool:
        """Whether entry ``name`` of ``directory`` (itself not ignored) is ignored."""
        return bool(self._decide(self._frame(directory), name, is_dir))

    def is_ignored(self, path: str, is_dir: bool | None = None) -> bool:
        """Whether ``path`` (relative to the root) is ignored, its parent directories included.

        :param is_dir: whether the path is a directory; None looks at the disk.
            A trailing ``/`` also means a directory.
        """
        trailing_slash = path.endswith("/")
        parts = [part for part in path.strip("/").split("/") if part not in ("", ".")]
        if not parts:
            return False
        if is_dir is None:
            is_dir = trailing_slash or (self.root / "/".join(parts)).is_dir()
        directory = ""
        for part in parts[:-1]:
            child = f"{directory}/{part}" if directory else part
            verdict = self._dirs.get(child)
            if verdict is None:
                verdict = self._dirs[child] = self.ignored_in(directory, part, True)
            if verdict:
                return True
            directory = child
        if self.ignored_in(directory, parts[-1], is_dir):
            return True
        directory = f"{directory}/{parts[-1]}" if directory else parts[-1]
        if trailing_slash:
            # git check-ignore also matches the literal "dir/" spelling: "c/*" matches "c/".
            frame = self._frame(directory)
            return bool(self._decide(frame, "", True, subject=""))
        return False

    # -- the walk ---------------------------------------------------------------

    def walk(self, start: str = "", *, include_dirs: bool = True) -> Iterator[Entry]:
        """Yield every entry below ``start`` that is not ignored, depth first, sorted by name.

        ``start`` itself is not filtered (an explicit request to look inside an
        ignored directory is honoured) but the rules still apply below it.
        Symbolic links are yielded and never followed.
        """
        start = start.strip("/")
        if start in (".",):
            start = ""
        stack: list[Iterator[os.DirEntry[str]]] = []
        try:
            stack.append(iter(sorted(os.scandir(self.root / start), key=lambda e: e.name)))
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            return
        prefixes = [start]
        while stack:
            entry = next(stack[-1], None)
            if entry is None:
                stack.pop()
                prefixes.pop()
                continue
            directory = prefixes[-1]
            if entry.name == ".git":
                continue  # repository metadata, never part of a listing
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_symlink = entry.is_symlink()
                is_file = entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            if self.ignored_in(directory, entry.name, is_dir):
                continue
            path = f"{directory}/{entry.name}" if directory else entry.name
            if is_dir:
                if include_dirs:
                    yield Entry(path, True, False, False)
                try:
                    children = sorted(os.scandir(entry.path), key=lambda e: e.name)
                except OSError:
                    continue
                stack.append(iter(children))
                prefixes.append(path)
            else:
                yield Entry(path, False, is_symlink, is_file)
