"""Which distribution provides an imported module.

``importlib.metadata.packages_distributions()`` answers from RECORD and top_level.txt,
so it misses editable installs (their RECORD lists a ``.pth`` file, not modules) and
names a PEP 420 namespace (``agentkit``) rather than the portion each distribution
ships (``agentkit.plugin_api``). The index here adds both, looked up by the longest
dotted prefix, and falls back to a short table of well-known import names that differ
from their distribution's name for modules not installed in this environment.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Iterable

import importlib_metadata
from packaging.utils import canonicalize_name

from ._installed import distribution_files, listed_files

# Import names whose distribution is named differently, for when the distribution is
# not installed here and the index cannot say. Values are canonical names.
_WELL_KNOWN: dict[str, tuple[str, ...]] = {
    "yaml": ("pyyaml",),
    "PIL": ("pillow",),
    "bs4": ("beautifulsoup4",),
    "cv2": ("opencv-python", "opencv-python-headless", "opencv-contrib-python"),
    "sklearn": ("scikit-learn",),
    "skimage": ("scikit-image",),
    "dateutil": ("python-dateutil",),
    "dotenv": ("python-dotenv",),
    "jwt": ("pyjwt",),
    "attr": ("attrs",),
    "git": ("gitpython",),
    "serial": ("pyserial",),
    "Crypto": ("pycryptodome",),
    "OpenSSL": ("pyopenssl",),
    "docx": ("python-docx",),
    "multipart": ("python-multipart",),
    "magic": ("python-magic",),
    "googleapiclient": ("google-api-python-client",),
    "MySQLdb": ("mysqlclient",),
    "zmq": ("pyzmq",),
    "websocket": ("websocket-client",),
    "lxml": ("lxml",),
}


class DistributionIndex:
    """Dotted module prefix -> canonical names of the distributions that provide it."""

    def __init__(self, entries: dict[str, set[str]]) -> None:
        self._entries = entries

    def providers(self, module: str) -> set[str]:
        """Distributions providing ``module``: those of its longest indexed prefix,
        else the well-known table, else a guess from the top-level name itself."""
        parts = module.split(".")
        for i in range(len(parts), 0, -1):
            found = self._entries.get(".".join(parts[:i]))
            if found:
                return set(found)
        top = parts[0]
        if top in _WELL_KNOWN:
            return set(_WELL_KNOWN[top])
        # Not installed here: guess from the name. A namespace package's distribution is
        # usually named after the portion (google.auth -> google-auth), so every dotted
        # prefix is a candidate.
        return {canonicalize_name("-".join(parts[:i])) for i in range(1, len(parts) + 1)}

    def is_installed(self, module: str) -> bool:
        """True when some installed distribution provides ``module``'s top-level name."""
        parts = module.split(".")
        return any(".".join(parts[:i]) in self._entries for i in range(len(parts), 0, -1))


def _add(entries: dict[str, set[str]], module: str, dist: str) -> None:
    entries.setdefault(module, set()).add(canonicalize_name(dist))


@functools.cache
def installed_index() -> DistributionIndex:
    """The index of this environment, built once per process (installing a package
    while the lint runs is not a case it needs to follow).

    Each distribution provides its top-level names, as
    ``importlib_metadata.packages_distributions()`` counts them (``top_level.txt``, else
    the first part of each file it lists), and its own packages, as the lint of that
    distribution finds them (namespace portions, editable installs). Its file list is
    read once for both.
    """
    entries: dict[str, set[str]] = {}
    for dist in importlib_metadata.distributions():
        try:
            name = dist.metadata["Name"]
            listed = listed_files(dist)
            declared = (dist.read_text("top_level.txt") or "").split()
        except Exception:
            # An unrelated damaged distribution must not stop the lint of every plugin;
            # it simply provides nothing in the index.
            continue
        if not name:
            continue
        try:
            _files, own, _where = distribution_files(dist, listed, sources=False)
        except Exception:
            own = set()  # damaged beyond its file list: its top-level names still count
        for module in {*(declared or _top_level_names(listed)), *own}:
            _add(entries, module, name)
    return DistributionIndex(entries)


def _top_level_names(listed: list[str]) -> set[str]:
    """The importable top-level names of a distribution's files, when it declares none:
    each file's first directory, or its module name for a file at the top."""
    names = set()
    for relative in listed:
        first, _, rest = relative.partition("/")
        name = first if rest else (inspect.getmodulename(first) or first)
        if "." not in name:
            names.add(name)
    return names


def normalized(requirements: Iterable[str]) -> set[str]:
    """Canonical distribution names of requirement strings; unparsable ones skipped."""
    from packaging.requirements import InvalidRequirement, Requirement

    names: set[str] = set()
    for text in requirements:
        try:
            names.add(canonicalize_name(Requirement(text).name))
        except InvalidRequirement:
            continue
    return names
