"""The layered gitignore engine, and the walk every listing and search goes through.

Layers, lowest precedence first (the last matching rule wins, so a deeper
file overrides a shallower one):

1. the global excludes file (see :mod:`._gitconfig`),
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

Rule files are read as git reads them: a ``.gitignore`` that is a symbolic
link is not followed (git has refused to since 2.32), so nothing outside the
root decides what is hidden; ``core.ignoreCase`` from the repository's
config (or the user's) makes matching fold ASCII case; patterns and names
are compared as bytes. Inside the root every directory, rule file and
``.git`` is reached through descriptors that never follow a link (see
:mod:`._directory`), so swapping a directory for a link while a walk runs
cannot lead the walk, or its rules, outside.
"""

from __future__ import annotations

import operator
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import field
from pathlib import Path

from .._dataclass import dataclass
from ._directory import Directory, open_relative_directory
from ._gitconfig import global_excludes_file, ignore_case
from ._gitpattern import Pattern, parse_lines
from ._glob import Glob

__all__ = ["Entry", "IgnoreEngine"]



@dataclass(frozen=True, slots=True)
class Layer:
    """The patterns of one rule file, and one regex per kind of subject screening them all.

    Most entries match no rule at all: one search of ``any_name`` (for the patterns
    matched against the name) and ``any_path`` (against the path below ``base``)
    says so for the whole file; only an entry one of them matches is decided
    pattern by pattern, last first.
    """

    base: int  # length in bytes of the rule file's directory prefix
    patterns: tuple[Pattern, ...]
    any_name: re.Pattern[bytes] | None
    any_path: re.Pattern[bytes] | None


def _screen(patterns: list[Pattern]) -> re.Pattern[bytes] | None:
    """A regex that fullmatches whatever one of ``patterns`` fullmatches (None: nothing)."""
    regexes = [pattern.regex for pattern in patterns if pattern.regex is not None]
    if not regexes:
        return None
    flags = {regex.flags for regex in regexes}
    if len(flags) > 1:
        return _ANYTHING  # not expected (one file folds case or not): screen nothing out
    return re.compile(b"|".join(b"(?:" + regex.pattern + b")" for regex in regexes), flags.pop())


_ANYTHING = re.compile(b".*", re.DOTALL)
_FS_ENCODING, _FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
_PATH = operator.itemgetter(0)


def _holds(listing: list[os.DirEntry[str]] | None, name: str) -> bool:
    """Whether a directory's sorted ``listing`` holds ``name`` (None: not listed, it may)."""
    if listing is None:
        return True
    for entry in listing:  # names starting with "." come first: a few steps at most
        if entry.name >= name:
            return entry.name == name
    return False


def _by_path(accept: Callable[[str], bool]) -> Callable[[str, str], bool]:
    return lambda directory, name: accept(directory + name)


def _layer(base: int, patterns: tuple[Pattern, ...]) -> Layer:
    return Layer(
        base,
        patterns,
        _screen([pattern for pattern in patterns if pattern.basename]),
        _screen([pattern for pattern in patterns if not pattern.basename]),
    )


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

    prefix: bytes  # this directory relative to its repository root, b"" or ending in b"/"
    # (length in bytes of the rule file's directory prefix, its patterns), shallowest first
    layers: tuple[Layer, ...]
    ignore_case: bool
    # Where no rule file has a pattern matched against a path, one search of this
    # screen (every layer's ``any_name``) clears a name no rule of the frame matches.
    names_only: bool = field(init=False, default=False)
    any_name: re.Pattern[bytes] | None = field(init=False, default=None)
    # A frame whose layers are these same ones (most directories add no rule file):
    # its screen is taken as it is, not joined again.
    same_rules: _Frame | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        same = self.same_rules
        if same is not None and same.layers is self.layers:
            object.__setattr__(self, "names_only", same.names_only)
            object.__setattr__(self, "any_name", same.any_name)
            object.__setattr__(self, "same_rules", None)
            return
        if any(layer.any_path is not None for layer in self.layers):
            return
        screens = [layer.any_name for layer in self.layers if layer.any_name is not None]
        if len({screen.flags for screen in screens}) > 1:
            return  # not expected; the layers are asked one by one
        object.__setattr__(self, "names_only", True)
        if screens:
            joined = b"|".join(b"(?:" + screen.pattern + b")" for screen in screens)
            object.__setattr__(self, "any_name", re.compile(joined, screens[0].flags))


@dataclass(frozen=True, slots=True)
class _Repo:
    """What a repository adds below every directory of it: its global and info/exclude rules."""

    layers: tuple[Layer, ...]
    ignore_case: bool


def _read_in(git: Path, handle: Directory | None, *parts: str) -> bytes | None:
    """A file of a git directory: through ``handle`` (no links) when it is in the tree."""
    if handle is None:
        try:
            return Path(git, *parts).read_bytes()
        except OSError:
            return None
    opened: list[Directory] = []
    try:
        directory = handle
        for part in parts[:-1]:
            directory = directory.child(part)
            opened.append(directory)
        return directory.read_file(parts[-1])
    except OSError:
        return None
    finally:
        for directory in opened:
            directory.close()


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
        self._repos: dict[Path | None, _Repo] = {}
        self._dirs: dict[str, bool] = {}  # directory -> its own verdict, for is_ignored

    # -- repositories and rule files --------------------------------------------

    def _repo(self, git: Path | None, handle: Directory | None = None) -> _Repo:
        repo = self._repos.get(git)
        if repo is not None:
            return repo
        config = None
        if git is not None:
            data = _read_in(git, handle, "config")
            config = data.decode("utf-8", errors="replace") if data is not None else ""
        folds = ignore_case(self._env, repo_config=config)
        excludes = global_excludes_file(self._env, repo_config=config)
        layers: list[Layer] = []
        if excludes is not None:
            try:
                layers.append(_layer(0, tuple(parse_lines(excludes.read_bytes(), folds))))
            except OSError:
                layers.append(_layer(0, ()))
        else:
            layers.append(_layer(0, ()))
        if git is not None:
            exclude = _read_in(git, handle, "info", "exclude")
            layers.append(_layer(0, tuple(parse_lines(exclude or b"", folds))))
        repo = self._repos[git] = _Repo(tuple(layers), folds)
        return repo

    def _repo_at(self, path: Path | str, where: Directory) -> _Repo | None:
        """The repository whose work tree is the directory ``where`` (at ``path``, or at
        ``path`` below the root: most directories hold no ``.git``, and need no path), if any."""
        try:
            info = where.lstat(".git")
        except OSError:
            return None
        if isinstance(path, str):
            path = self.root / path
        if stat.S_ISDIR(info.st_mode):
            git = path / ".git"
            if git in self._repos:
                return self._repos[git]
            try:
                handle = where.child(".git")
            except OSError:
                return None
            try:
                return self._repo(git, handle)
            finally:
                handle.close()
        if stat.S_ISREG(info.st_mode):
            # A submodule or a linked work tree: "gitdir: <path>", which git follows wherever it is.
            data = where.read_file(".git", 4096) or b""
            first = data.decode("utf-8", errors="replace").splitlines()[:1]
            if first and first[0].startswith("gitdir:"):
                target = Path(first[0][len("gitdir:") :].strip())
                return self._repo(target if target.is_absolute() else path / target)
        return None

    @staticmethod
    def _rules(where: Directory, folds: bool) -> tuple[Pattern, ...]:
        # read_file opens without following a link: a linked .gitignore counts as absent.
        data = where.read_file(".gitignore")
        return tuple(parse_lines(data, folds)) if data else ()

    # -- frames -----------------------------------------------------------------

    def _root_frame(self, handle: Directory) -> _Frame:
        def at(directory: Path) -> Directory:
            return handle if directory == self.root else Directory(None, directory)

        # Find the repository the root belongs to, possibly above it.
        for candidate in (self.root, *self.root.parents):
            repo = self._repo_at(candidate, at(candidate))
            if repo is not None:
                break
        else:
            candidate, repo = self.root, self._repo(None)
        layers = [*repo.layers, _layer(0, self._rules(at(candidate), repo.ignore_case))]
        directory, prefix = candidate, b""
        for part in self.root.relative_to(candidate).parts:
            if self._decide(_Frame(prefix, tuple(layers), repo.ignore_case), part, True):
                # The workspace lies inside a directory the enclosing repository ignores
                # (a home directory tracked with "*" in its .gitignore, say). The embedder
                # chose this root explicitly: it becomes its own ignore root.
                return self._standalone_root(handle)
            directory, prefix = directory / part, prefix + os.fsencode(part) + b"/"
            layers.append(_layer(len(prefix), self._rules(at(directory), repo.ignore_case)))
        return _Frame(prefix, tuple(layers), repo.ignore_case)

    def _standalone_root(self, handle: Directory) -> _Frame:
        repo = self._repo(None)
        layers = (*repo.layers, _layer(0, self._rules(handle, repo.ignore_case)))
        return _Frame(b"", layers, repo.ignore_case)

    def _frame(self, directory: str, handle: Directory | None = None,
               listing: list[os.DirEntry[str]] | None = None) -> _Frame:
        """The rules in force inside ``directory`` (relative to the root, "" for the root).

        :param handle: the directory, already open (a walk has it); otherwise it
            is opened from the root, refusing links.
        :param listing: its entries sorted by name, where a walk has them: a
            ``.git`` or ``.gitignore`` they do not hold is not looked for.
        """
        frame = self._frames.get(directory)
        if frame is not None:
            return frame
        opened = None
        if handle is None:
            root = Directory.open_root(self.root)
            try:
                opened = handle = open_relative_directory(root, directory)
            finally:
                root.close()
        try:
            frame = self._build_frame(directory, handle, listing)
        finally:
            if opened is not None:
                opened.close()
        self._frames[directory] = frame
        return frame

    def _build_frame(self, directory: str, handle: Directory | None,
                     listing: list[os.DirEntry[str]] | None) -> _Frame:
        if directory == "":
            assert handle is not None  # the root opens or nothing does
            return self._root_frame(handle)
        parent, _, name = directory.rpartition("/")
        outer = self._frame(parent)
        if handle is None:
            # Gone, or swapped for a link: no rules of its own to read.
            return _Frame(outer.prefix + os.fsencode(name) + b"/", outer.layers, outer.ignore_case)
        repo = self._repo_at(directory, handle) if _holds(listing, ".git") else None
        if repo is not None:
            layers = (*repo.layers, _layer(0, self._rules(handle, repo.ignore_case)))
            return _Frame(b"", layers, repo.ignore_case)
        prefix = outer.prefix + os.fsencode(name) + b"/"
        own = self._rules(handle, outer.ignore_case) if _holds(listing, ".gitignore") else ()
        if not own:
            return _Frame(prefix, outer.layers, outer.ignore_case, outer)
        return _Frame(prefix, (*outer.layers, _layer(len(prefix), own)), outer.ignore_case)

    # -- verdicts ---------------------------------------------------------------

    @staticmethod
    def _decide(frame: _Frame, name: str, is_dir: bool, subject: str | None = None) -> bool | None:
        encoded = name.encode(_FS_ENCODING, _FS_ERRORS)  # os.fsencode, without its checks per entry
        if frame.names_only and subject is None and (frame.any_name is None or not frame.any_name.fullmatch(encoded)):
            return None  # most entries: no rule of any layer matches the name
        relative = frame.prefix + (encoded if subject is None else os.fsencode(subject))
        for layer in reversed(frame.layers):
            below = relative[layer.base :]
            if not (
                (layer.any_name is not None and layer.any_name.fullmatch(encoded))
                or (layer.any_path is not None and layer.any_path.fullmatch(below))
            ):
                continue
            for pattern in reversed(layer.patterns):
                if pattern.regex is None or (pattern.dir_only and not is_dir):
                    continue
                if pattern.regex.fullmatch(encoded if pattern.basename else below):
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
            try:
                mode = os.lstat(self.root / "/".join(parts)).st_mode
            except OSError:
                mode = 0
            is_dir = trailing_slash or stat.S_ISDIR(mode)
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
        Symbolic links are yielded and never followed; every directory is
        opened relative to its parent's descriptor, so one swapped for a link
        during the walk is skipped, never entered.
        """
        for path, entry in self._walk(start, include_dirs=include_dirs, regular_only=False):
            if entry is None:
                yield Entry(path, True, False, False)
                continue
            try:
                is_symlink, is_file = entry.is_symlink(), entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            yield Entry(path, False, is_symlink, is_file)

    def files(self, start: str = "", accept: Callable[[str], bool] | Glob | None = None, *,
              max_size: int | None = None,
              oversize: Callable[[str, int], None] | None = None) -> Iterator[str]:
        """The paths of the regular files :meth:`walk` yields below ``start``, in its order.

        The walk a search runs: links, FIFOs and devices are left out, and no
        :class:`Entry` is made.

        :param accept: a filter on each file's path relative to ``start``,
            asked before the ignore rules are, which a file it refuses costs
            nothing. A :class:`Glob` is asked by name where the name decides,
            and a directory below which it can match nothing is not entered
            (:meth:`Glob.walk_tests`): the same files, fewer reads.
        :param max_size: leave out a file of more bytes than this (one ``stat``
            per file, relative to the directory held open); ``oversize`` is told
            each one left out, with its size. A file that cannot be stat'ed is
            left out too (it is gone).
        """
        if isinstance(accept, Glob):
            file_test, enter = accept.walk_tests()
        elif accept is not None:
            file_test, enter = _by_path(accept), None
        else:
            file_test, enter = None, None
        walked = self._walk(start, include_dirs=False, regular_only=True, file_test=file_test, enter=enter)
        if max_size is None:
            return map(_PATH, walked)
        return _within(walked, max_size, oversize)

    def _walk(self, start: str, *, include_dirs: bool, regular_only: bool,
              file_test: Callable[[str, str], bool] | None = None,
              enter: Callable[[str], bool] | None = None,
              ) -> Iterator[tuple[str, os.DirEntry[str] | None]]:
        """``(path, entry)`` of each entry of the walk; ``entry`` is None for a directory.

        :param file_test: whether a file is wanted, from its directory relative to
            ``start`` (``""`` or ending in ``/``) and its name; asked before the rules.
        :param enter: whether a directory (relative to ``start``) may hold a wanted file.
        """
        start = start.strip("/")
        if start in (".",):
            start = ""
        root = Directory.open_root(self.root)
        try:
            top = open_relative_directory(root, start)
        finally:
            root.close()
        if top is None:
            return
        cut = len(start) + 1 if start else 0
        decide = self._decide
        stack: list[tuple[Iterator[os.DirEntry[str]], Directory, str, str, _Frame]] = []
        try:
            entries = top.entries()
            stack.append((iter(entries), top, start, "", self._frame(start, top, entries)))
        except OSError:
            top.close()
            return
        try:
            while stack:
                iterator, directory, prefix, below, frame = stack[-1]
                # The entries of one directory in a row, with its frame at hand: most
                # are files, decided by one screen of each rule file.
                for entry in iterator:
                    name = entry.name
                    if name == ".git":
                        continue  # repository metadata, never part of a listing
                    try:
                        is_dir = entry.is_dir(follow_symlinks=False)
                        if not is_dir and regular_only and not entry.is_file(follow_symlinks=False):
                            continue  # links are not followed; FIFOs and devices would block a read
                    except OSError:
                        continue
                    if not is_dir:
                        if (file_test is None or file_test(below, name)) and not decide(frame, name, False):
                            yield (f"{prefix}/{name}" if prefix else name), entry
                        continue
                    path = f"{prefix}/{name}" if prefix else name
                    if (enter is not None and not enter(path[cut:])) or decide(frame, name, True):
                        continue
                    if include_dirs:
                        yield path, None
                    try:
                        child = directory.child(name)
                    except OSError:
                        continue  # gone, or swapped for a link since it was listed
                    try:
                        children = child.entries()
                        frame = self._frame(path, child, children)
                        stack.append((iter(children), child, path, f"{path[cut:]}/", frame))
                    except OSError:
                        child.close()
                        continue
                    break  # depth first: the child's entries come next
                else:
                    stack.pop()
                    directory.close()
        finally:
            for _, directory, _, _, _ in stack:
                directory.close()


def _within(walked: Iterator[tuple[str, os.DirEntry[str] | None]], max_size: int,
            oversize: Callable[[str, int], None] | None) -> Iterator[str]:
    """The paths of ``walked`` whose files hold at most ``max_size`` bytes."""
    for path, entry in walked:
        try:
            # The walk yields while the entry's directory is still open: a stat relative to it.
            size = entry.stat(follow_symlinks=False).st_size if entry is not None else 0
        except OSError:
            continue
        if size <= max_size:
            yield path
        elif oversize is not None:
            oversize(path, size)
