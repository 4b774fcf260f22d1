"""Installed distributions read from their ``*.dist-info`` / ``*.egg-info`` directories, as ``importlib.metadata`` finds them.

Reading the files costs a directory listing and a few lines; importing
``importlib.metadata`` costs more than a first request (``zipfile``, ``csv``,
``email`` parsing, about 8 ms). Where this reading cannot see what
``importlib.metadata`` would (a zip or an egg on ``sys.path``, a finder of
distributions other than the standard one), :func:`plain_path_only` says so and
the callers ask ``importlib.metadata`` (or its backport) instead.
"""

from __future__ import annotations

import functools
import itertools
import operator
import os
import re
import sys
from collections.abc import Iterator
from importlib.machinery import PathFinder


def canonical(name: str) -> str:
    """A distribution or plugin name as PEP 503 compares it (``packaging.utils.canonicalize_name``'s rule)."""
    dashed = name.replace("_", "-").replace(".", "-").lower()  # read for every distribution: no regex when
    return re.sub(r"-+", "-", dashed) if "--" in dashed else dashed  # no run of separators needs joining


def plain_path_only() -> bool:
    """Whether every distribution ``importlib_metadata`` would find is a directory of metadata on ``sys.path``."""
    for finder in sys.meta_path:
        if getattr(finder, "find_distributions", None) is not None and finder is not PathFinder \
                and not type(finder).__module__.startswith("importlib_metadata"):
            return False
    return not any(entry.lower().endswith(".egg") or os.path.isfile(entry) for entry in sys.path)


class Distribution:
    """An installed distribution's ``*.dist-info`` or ``*.egg-info`` directory; its headers read on first use."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._headers: dict[str, str] | None = None
        self._requires: list[str] = []

    def _header(self, key: str) -> str:
        if self._headers is None:
            self._headers = {}
            for filename in ("METADATA", "PKG-INFO"):
                try:
                    with open(os.path.join(self.path, filename), encoding="utf-8") as file:
                        for line in file:
                            if not line.strip():
                                break  # the headers end at the first blank line; the description follows
                            field, sep, value = line.partition(":")
                            if sep and not line[0].isspace():
                                field = field.strip().lower()
                                self._headers.setdefault(field, value.strip())
                                if field == "requires-dist":
                                    self._requires.append(value.strip())
                    break
                except OSError:
                    continue
        return self._headers.get(key, "")

    @property
    def name(self) -> str:
        return self._header("name")

    @property
    def version(self) -> str:
        return self._header("version")

    @property
    def summary(self) -> str:
        return self._header("summary")

    @property
    def requires(self) -> list[str] | None:
        """The ``Requires-Dist`` lines, as ``importlib.metadata.Distribution.requires`` gives them."""
        self._header("requires-dist")
        if self._requires:
            return list(self._requires)
        if not os.path.exists(os.path.join(self.path, "requires.txt")):
            return None
        # An egg-info's requirements are in requires.txt, in a format of its own: read as importlib reads it.
        import pathlib

        import importlib_metadata

        return importlib_metadata.PathDistribution(pathlib.Path(self.path)).requires


def distributions() -> Iterator[tuple[str, str]]:
    """``(canonical name, metadata directory)`` of every distribution on ``sys.path``, the first of each name
    winning: the directories ``importlib_metadata`` finds, in its order."""
    seen: set[str] = set()
    for name, root, child in _metadata_dirs():
        if name not in seen:
            seen.add(name)
            yield name, os.path.join(root, child)


def installed_version(name: str) -> str | None:
    """``importlib.metadata.version(name)`` read from the files; None when not found or :func:`plain_path_only`
    says the files alone cannot tell."""
    if not plain_path_only():
        return None
    wanted = canonical(name)
    for found, root, child in _metadata_dirs():  # the first of that name, as distributions() gives it
        if found == wanted:
            return Distribution(os.path.join(root, child)).version or None
    return None


_IS_METADATA = operator.methodcaller("endswith", (".dist-info", ".egg-info"))
_SUFFIXES = (".dist-info\n", ".egg-info\n")


def _metadata_dirs() -> Iterator[tuple[str, str, str]]:
    """``(canonical name, path entry, directory name)`` of each metadata directory on ``sys.path``, in the
    path's order and each entry's listing order. The names of an entry of hundreds are sifted in C; only the
    few metadata directories are read in Python."""
    for entry in sys.path:
        root = entry or "."
        try:
            children = os.listdir(root)
        except OSError:
            continue
        for child in _metadata_children(children):
            yield canonical(child.lower().rpartition(".")[0].partition("-")[0]), root, child


def _metadata_children(children: list[str]) -> list[str]:
    """The names of ``children`` that end in ``.dist-info`` or ``.egg-info`` in any case, in their order.

    Searched for in the listing joined and lowered once: a call per name (``lower``, ``endswith``) cost
    twice the listing itself, 0.7 M instructions of a first use's ``User-Agent`` (bench/_first_use.py
    under callgrind, for the ~350 names of the standard library's folders and a user's site-packages).
    """
    listing = "\n".join(children)
    if listing.count("\n") != len(children) - 1 or not children:  # a name holding a newline, or none at all
        return list(itertools.compress(children, map(_IS_METADATA, map(str.lower, children))))
    lowered = listing.lower() + "\n"  # lowering keeps every newline, and makes none
    ends = []
    for suffix in _SUFFIXES:
        at = lowered.find(suffix)
        while at != -1:
            ends.append(at)
            at = lowered.find(suffix, at + len(suffix))
    found, line, counted = [], 0, 0
    for at in sorted(ends):  # each name's line, counted on from the one before
        line += lowered.count("\n", counted, at)
        counted = at
        found.append(children[line])
    return found


@functools.cache
def host_version() -> str:
    """The installed ``agentkit-host``'s version (``agentkit.host.__version__``, the ``User-Agent``'s)."""
    found = installed_version("agentkit-host")
    if found is not None:
        return found
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agentkit-host")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"
