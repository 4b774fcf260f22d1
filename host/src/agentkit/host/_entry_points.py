"""Which plugins are installed, read from distribution metadata alone.

Nothing here imports a plugin, pluggy, packaging or the plugin API's hook
specifications. The plugin host (``_plugins``) loads what
:func:`plugin_entry_points` finds through ``importlib_metadata``;
``agentkit plugins`` lists what :func:`listed_entry_points` finds by reading
each installed distribution's ``entry_points.txt`` itself, the same files
``importlib_metadata`` reads, at a fraction of the cost of importing it
(``email``, ``zipfile``, ``pathlib`` and the rest). Where that reading cannot
see what ``importlib_metadata`` would (a zip or an egg on ``sys.path``, a
finder of distributions other than the standard one), it asks
``importlib_metadata``.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence

from ._dist_info import Distribution, canonical, distributions, plain_path_only

# Kept out of `agentkit --help` and `agentkit plugins`, as in agentkit.host.cli (typing: 2.2-2.4 ms
# more after the CLI's 9 ms, by `python -X importtime`); type checkers honour the flag.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol, TypeVar

    import importlib_metadata

    class DistributionLike(Protocol):
        """What the listing needs of a distribution: its name and version."""

        @property
        def name(self) -> str: ...
        @property
        def version(self) -> str: ...

    class EntryPointLike(Protocol):
        """What the listing needs of an entry point: nothing that loads it."""

        @property
        def name(self) -> str: ...
        @property
        def value(self) -> str: ...
        @property
        def group(self) -> str: ...
        @property
        def dist(self) -> DistributionLike | None: ...

    class PluginDistribution(DistributionLike, Protocol):
        """What loading a plugin reads of its distribution: the requirements, for the plugin API range."""

        @property
        def requires(self) -> list[str] | None: ...

    class LoadableEntryPoint(EntryPointLike, Protocol):
        """An entry point the plugin host loads: ``importlib_metadata``'s, or one read from the files."""

        @property
        def dist(self) -> PluginDistribution | None: ...
        def load(self) -> Any: ...

    EP = TypeVar("EP", bound=EntryPointLike)

#: The plugin categories, as in :data:`agentkit.plugin_api.hookspecs.CATEGORIES` (kept equal by a test);
#: spelled out so that reading the metadata does not import the hook specifications.
CATEGORY_NAMES = ("providers", "tools", "skills", "hooks")
ENTRY_POINT_GROUPS = {f"agentkit.{category}": category for category in CATEGORY_NAMES}
#: Where a distribution declares the ``agentkit`` commands it contributes (docs/decisions/0017).
COMMANDS_GROUP = "agentkit.commands"
#: Where a distribution declares a session store, by the URL scheme it serves (``agentkit.host.sessions``).
SESSION_STORES_GROUP = "agentkit.session_stores"
#: Where the durable-run extension declares ``run``, which ``agentkit run --durable`` hands the run to.
DURABLE_GROUP = "agentkit.durable"
DISABLE_ENV = "AGENTKIT_DISABLE_PLUGINS"
LOAD_ENV = "AGENTKIT_LOAD_PLUGINS"

Entries = list[tuple[str, "importlib_metadata.EntryPoint"]]
Loadable = list[tuple[str, "LoadableEntryPoint"]]


def names_from_env(env: Mapping[str, str], key: str) -> set[str] | None:
    """The comma-separated names of ``env[key]``, canonical; None when the variable is unset."""
    value = env.get(key)
    if value is None:
        return None
    return {canonical(part) for part in value.split(",") if part.strip()}


def plugin_entry_points() -> dict[str, Entries]:
    """Plugin name -> its ``(category, entry point)`` pairs, as the loader loads them (nothing is imported).

    An entry-point name is unique per category, not across categories: one
    name under several categories is one plugin when every entry names the
    same object, else one plugin per object, called ``name[category,...]``
    (``x[providers]`` and ``x[skills]``). One name twice in a category is
    left for the loader to refuse.
    """
    import importlib_metadata

    return _by_plugin(importlib_metadata.entry_points())  # one pass over the distributions


def loadable_entry_points() -> dict[str, Loadable]:
    """What :func:`plugin_entry_points` finds, to load: read from the metadata files where they tell it all.

    Each entry point loads as ``importlib_metadata``'s does, and its
    distribution gives the same name, version and requirements; serving tools
    then never imports ``importlib_metadata`` (with ``email``, ``zipfile``
    and ``csv``).
    """
    if not plain_path_only():
        return {name: list(entries) for name, entries in plugin_entry_points().items()}
    return _by_plugin(_read_entry_points())


def listed_entry_points() -> Mapping[str, Sequence[tuple[str, EntryPointLike]]]:
    """What :func:`plugin_entry_points` finds, read from the metadata files without ``importlib_metadata``."""
    if not plain_path_only():
        return plugin_entry_points()
    return _by_plugin(_read_entry_points())


def installed_state() -> tuple[tuple[str, str, str], ...]:
    """Every ``agentkit.*`` entry point but the commands, as ``(group, name, "value version")``, sorted.

    Read from the metadata files where they tell it all (see :func:`loadable_entry_points`), else
    through ``importlib_metadata``: two answers differ when a discovery could load other plugins.
    """
    if plain_path_only():
        found = [(ep.group, ep.name, f"{ep.value} {ep.dist.version}") for ep in _read_entry_points()]
    else:
        import importlib_metadata

        found = [(ep.group, ep.name, f"{ep.value} {dist.version}")
                 for dist in importlib_metadata.distributions() for ep in dist.entry_points]
    return tuple(sorted(entry for entry in found if entry[0].startswith("agentkit.") and entry[0] != COMMANDS_GROUP))


def _by_plugin(every: Iterable[EP]) -> dict[str, list[tuple[str, EP]]]:
    by_name: dict[str, list[tuple[str, EP]]] = {}
    for ep in every:
        category = ENTRY_POINT_GROUPS.get(ep.group)
        if category is not None:
            by_name.setdefault(ep.name, []).append((category, ep))
    for entries in by_name.values():  # in the order of the categories, as one select per group gives
        entries.sort(key=lambda entry: CATEGORY_NAMES.index(entry[0]))
    plugins: dict[str, list[tuple[str, EP]]] = {}
    for name, entries in by_name.items():
        by_target: dict[str, list[tuple[str, EP]]] = {}
        for category, ep in entries:
            by_target.setdefault(ep.value, []).append((category, ep))
        named: dict[str, list[tuple[str, EP]]] = {}
        for same in by_target.values():
            named.setdefault(f"{name}[{','.join(sorted({category for category, _ in same}))}]", []).extend(same)
        if len(named) == 1:  # one object, or one category declaring the name twice
            plugins[name] = entries
        else:
            plugins.update(named)
    return plugins


class _EntryPoint:
    """One line of an ``entry_points.txt``: enough to list it, and to load it as ``importlib_metadata`` does."""

    def __init__(self, name: str, value: str, group: str, dist: Distribution) -> None:
        self.name, self.value, self.group, self.dist = name, value, group, dist

    def load(self) -> Any:
        """The object the value names (``module`` or ``module:attr.attr``), as ``EntryPoint.load`` finds it."""
        library = sys.modules.get("importlib_metadata")
        if library is not None:  # imported already: its load, which a caller may wrap (to name what is loading)
            return library.EntryPoint.load(self)
        module = importlib.import_module(self.module)
        return functools.reduce(getattr, filter(None, (self.attr or "").split(".")), module)

    @property
    def module(self) -> str:
        """The module the value names (``importlib_metadata.EntryPoint.module``)."""
        return self._match()["module"]

    @property
    def attr(self) -> str | None:
        """The attribute path the value names, if any (``importlib_metadata.EntryPoint.attr``)."""
        return self._match()["attr"]

    def _match(self) -> re.Match[str]:
        match = _OBJECT_REFERENCE.match(self.value)
        if match is None:  # the error importlib_metadata gives, from importlib_metadata
            import importlib_metadata

            return importlib_metadata.EntryPoint(self.name, self.value, self.group).module  # type: ignore[return-value]
        return match


#: ``importlib_metadata.EntryPoint.pattern``: an entry point's object reference (the packaging specification's).
_OBJECT_REFERENCE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")


def _read_entry_points() -> Iterator[_EntryPoint]:
    """Every ``agentkit.*`` entry point of the distributions on ``sys.path``, the first of each name winning,
    as ``importlib_metadata`` finds them: the same directories, the same order, the same parse."""
    for _, path in distributions():
        yield from _parse(path)


def _parse(path: str) -> Iterator[_EntryPoint]:
    try:
        with open(os.path.join(path, "entry_points.txt"), "rb") as file:  # no text layer: most are skipped
            text = file.read().decode("utf-8")  # the lines split below as universal newlines would
    except OSError:
        return
    if "[agentkit." not in text:  # no agentkit group (most distributions: console scripts at most)
        return
    dist = Distribution(path)
    group = None
    for line in map(str.strip, text.splitlines()):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line.strip("[]")
        elif group is not None:
            name, _, value = line.partition("=")
            yield _EntryPoint(name.strip(), value.strip(), group, dist)


def command_entry_points(env: Mapping[str, str]) -> dict[str, EntryPointLike]:
    """Command name -> the ``agentkit.commands`` entry point contributing it (nothing is imported).

    The first distribution on the path to name a command wins, as for console
    scripts; a distribution that ``AGENTKIT_DISABLE_PLUGINS`` or
    ``AGENTKIT_LOAD_PLUGINS`` switches off contributes none.
    """
    return contributed_entry_points(COMMANDS_GROUP, "commands", env)


def contributed_entry_points(group: str, kind: str, env: Mapping[str, str]) -> dict[str, EntryPointLike]:
    """Name -> the first entry point of ``group`` declaring it, among the distributions switched on."""
    if plain_path_only():
        every: Iterable[EntryPointLike] = _read_entry_points()
    else:
        import importlib_metadata

        every = importlib_metadata.entry_points(group=group)
    found: dict[str, EntryPointLike] = {}
    for ep in every:
        if ep.group == group and ep.name not in found and switched_on(ep.name, [(kind, ep)], env)[0]:
            found[ep.name] = ep
    return found


def summary(ep: EntryPointLike) -> str:
    """The one-line summary of the distribution that declares ``ep``, or ``""``."""
    dist = ep.dist
    if dist is None:
        return ""
    if isinstance(dist, Distribution):
        return dist.summary
    metadata = getattr(dist, "metadata", None)  # an importlib_metadata.Distribution's headers
    return str(metadata.get("Summary") or "") if metadata is not None else ""


def switched_on(
    name: str, entries: Sequence[tuple[str, EP]], env: Mapping[str, str]
) -> tuple[list[tuple[str, EP]], str | None]:
    """The entries of plugin ``name`` that ``AGENTKIT_DISABLE_PLUGINS`` / ``AGENTKIT_LOAD_PLUGINS`` leave on.

    Switched off per entry, so that disabling one distribution settles a
    name two of them declare. With none left, also why: the reason a
    disabled plugin is listed with.
    """
    disabled = names_from_env(env, DISABLE_ENV) or set()
    allowed = names_from_env(env, LOAD_ENV)
    if not disabled and allowed is None:  # the usual case: no metadata to read
        return list(entries), None

    def keys(ep: EP) -> set[str]:
        dist = {canonical(ep.dist.name)} if ep.dist else set()
        return {canonical(name), canonical(ep.name)} | dist

    kept = [(category, ep) for category, ep in entries
            if not keys(ep) & disabled and (allowed is None or keys(ep) & allowed)]
    if kept:
        return kept, None
    if any(keys(ep) & disabled for _, ep in entries):
        return kept, f"disabled by {DISABLE_ENV}"
    return kept, f"not listed in {LOAD_ENV}"
