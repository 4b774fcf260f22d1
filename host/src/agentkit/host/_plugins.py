"""The plugin host: discovery, isolation, and what each plugin contributed.

Plugins are found through the entry-point groups ``agentkit.<category>``
only when asked (:meth:`PluginHost.discover`), never as an import side
effect, and can also be registered in code. Every plugin gets a
:class:`PluginRecord`: loaded, failed (with the reason) or disabled. A plugin
that raises on import, implements an unknown hook, breaks a hook signature,
uses a marker option the host does not honour or declares an incompatible
``agentkit-plugin-api`` range is reported and skipped; the others still load.
A name two plugins register is served by neither (see ``_registry``).
"""

from __future__ import annotations

import logging
import os
import traceback
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from types import FunctionType, MemberDescriptorType, MethodType, ModuleType
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import pluggy

from agentkit.plugin_api import PROJECT_NAME, ModelInfo, Project, Provider, Skill, Tool
from agentkit.plugin_api._dataclass import dataclass
from agentkit.plugin_api.hookspecs import CATEGORIES

from . import _log  # noqa: F401 - embedders decide where the host's warnings go; unconfigured, nowhere
from ._hookimpls import check_markers, hashable
from ._registry import RegistrationError, Registry
from .errors import ConfigError

if TYPE_CHECKING:
    from ._entry_points import Entries, Loadable

log = logging.getLogger("agentkit.host")

_CONTRIBUTION_HOOKS = {
    "agentkit_register_tools": "add_tool",
    "agentkit_register_providers": "add_provider",
    "agentkit_register_skills": "add_skill",
}

# A string, read by type checkers and typing.get_type_hints alike: subscribing Literal at import cost
# 0.1 M instructions of a first use (bench/_first_use.py under callgrind).
Status: TypeAlias = 'Literal["loaded", "failed", "disabled"]'


@dataclass
class PluginRecord:
    """What the host knows about one plugin."""

    name: str
    status: Status
    categories: list[str] = field(default_factory=list)
    distribution: str | None = None
    version: str | None = None
    module: str | None = None
    reason: str | None = None
    hooks: list[str] = field(default_factory=list)
    contributions: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: Names this plugin registered that another plugin registered too: served by neither.
    collisions: list[str] = field(default_factory=list)
    #: What a failed plugin registered (or tried to) before it failed; none of it is served.
    withdrawn: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "categories": self.categories,
            "distribution": self.distribution,
            "version": self.version,
            "module": self.module,
            "reason": self.reason,
            "hooks": self.hooks,
            "contributions": self.contributions,
            "warnings": self.warnings,
            "collisions": self.collisions,
            "withdrawn": self.withdrawn,
        }


class _PluginManager(pluggy.PluginManager):
    """pluggy's manager, told that the plugin API's hookspec modules name each of their specs ``agentkit_*``.

    pluggy looks every name of a hookspec module up statically (``inspect.getattr_static``) to find its
    specs; for the plugin API's own modules, the names without the prefix (their imports and helpers) are
    known to be none, and a host was a hundred such look-ups from its first request.
    """

    def parse_hookspec_opts(self, module_or_class: Any, name: str) -> Any:
        if module_or_class in _OWN_SPECS:
            if not name.startswith(_SPEC_PREFIX):
                return None
            # What pluggy's static look-up finds in a plain module (nothing of ``ModuleType`` is named
            # ``agentkit_*``): the module's own value, a marked function. Two thirds of a host's construction
            # went to ``inspect.getattr_static`` (bench/_first_use.py, incl2.py: 5.3k of 11k bytecodes).
            value = vars(module_or_class).get(name)
            if type(value) is FunctionType:
                opts = getattr(value, _SPEC_MARK, None)
                return opts if isinstance(opts, dict) else None
        return super().parse_hookspec_opts(module_or_class, name)

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        # ``dir()`` of a plugin lists the two dozen names every object inherits from ``object`` (``__init__``,
        # ``__repr__``...) and the four a class statement writes (``__doc__``, ``__module__``...), each looked
        # up statically by pluggy (``inspect.getattr_static``): most of registering a plugin. For an instance
        # of a plain class the look-up is a walk of its MRO (bench/_first_use.py, incl2.py: 5.6k bytecodes
        # of a first use's 8.7k in registering one plugin object).
        if isinstance(plugin, type):
            if name in _OBJECTS_OWN and _inherited_from_object(plugin, name):
                return None
        elif not isinstance(plugin, ModuleType) and type(type(plugin)) is type:
            held = _held_by_class(plugin, name)
            if held is not _ASK_PLUGGY:
                if type(held) is FunctionType:
                    opts = getattr(held, _IMPL_MARK, None)
                    return opts if isinstance(opts, dict) else None
                return None  # pluggy hooks only functions, methods, static and class methods, and slots' values
        return super().parse_hookimpl_opts(plugin, name)


_OWN_SPECS = tuple(CATEGORIES.values())
_SPEC_PREFIX = f"{PROJECT_NAME}_"
_SPEC_MARK = f"{PROJECT_NAME}_spec"
_IMPL_MARK = f"{PROJECT_NAME}_impl"
_OBJECTS_OWN = frozenset(dir(object))
_ASK_PLUGGY = object()
#: What pluggy reads rather than takes as found in a class: it binds or unwraps these, or reads the slot.
_BOUND_BY_PLUGGY = (staticmethod, classmethod, MethodType, MemberDescriptorType)


def _held_by_class(plugin: object, name: str) -> Any:
    """What ``inspect.getattr_static`` finds for ``name`` of ``plugin``, an instance of a class whose metaclass
    is ``type``: the value in the first class of its MRO that holds it (``None`` where none does); or
    :data:`_ASK_PLUGGY` where the instance holds it itself or pluggy does more than read it."""
    try:  # the instance's own dict, read without running a descriptor or ``__getattr__``, as pluggy reads it
        if name in object.__getattribute__(plugin, "__dict__"):
            return _ASK_PLUGGY
    except (AttributeError, TypeError):
        pass  # no ``__dict__`` (slots)
    for klass in type(plugin).__mro__:
        held = vars(klass)
        if name in held:
            value = held[name]
            return _ASK_PLUGGY if isinstance(value, _BOUND_BY_PLUGGY) else value
    return None


def _inherited_from_object(plugin: type, name: str) -> bool:
    """Whether ``name`` reaches the class ``plugin`` only from ``object``."""
    classes = plugin.__mro__
    return classes[-1] is object and not any(name in vars(klass) for klass in classes[:-1])


class PluginHost:
    """Loads plugins and holds what they contributed.

    >>> host = PluginHost()              # nothing loaded
    >>> host = PluginHost.discover()     # every installed plugin, per the env switches

    ``project`` is the folder its agents work in and whether the user trusts
    it (:class:`~agentkit.plugin_api.Project`); tool plugins are told it when
    they register their tools, so what a project supplies (the MCP servers of
    its ``agentkit.toml``) loads only for a trusted one. Default: the working
    directory, not trusted. Agents built on the host must agree with it
    (``AgentConfig.trust_project``).
    """

    def __init__(self, project: Project | None = None) -> None:
        self.pm = _PluginManager(PROJECT_NAME)
        for module in CATEGORIES.values():
            self.pm.add_hookspecs(module)
        self.records: dict[str, PluginRecord] = {}
        self.registry = Registry()
        self.project = project if project is not None else Project(Path.cwd(), trusted=False)

    # -- discovery -----------------------------------------------------------------

    @classmethod
    def discover(cls, env: Mapping[str, str] | None = None, project: Project | None = None) -> PluginHost:
        """A host with every installed plugin loaded (subject to the env switches), for ``project``."""
        host = cls(project)
        host.load_entry_points(env)
        return host

    @staticmethod
    def installed() -> dict[str, Entries]:
        """Every installed plugin, by name: its ``(category, entry point)`` pairs; nothing is imported.

        What :meth:`load_entry_points` would load, before the env switches: one
        name under several categories is one plugin when every entry names the
        same object, else one plugin per object, named ``name[category,...]``.
        """
        # Here, not at the top: a host handed its plugins reads no distribution metadata.
        from ._entry_points import plugin_entry_points

        return plugin_entry_points()

    @staticmethod
    def installed_state() -> tuple[tuple[str, str, str], ...]:
        """What decides the plugins :meth:`discover` loads: every ``agentkit.*`` entry point but the commands,
        as ``(group, name, "value version")``, sorted; nothing is imported.

        Two answers that differ mean a plugin was installed, removed or
        upgraded in between (``agentkit mcp serve --watch`` compares them).
        """
        # Here, not at the top: a host handed its plugins reads no distribution metadata.
        from ._entry_points import installed_state

        return installed_state()

    def load_entry_points(self, env: Mapping[str, str] | None = None) -> list[PluginRecord]:
        """Load the plugins of every ``agentkit.*`` entry-point group.

        ``AGENTKIT_DISABLE_PLUGINS`` and ``AGENTKIT_LOAD_PLUGINS`` (comma-separated
        entry-point or distribution names) disable plugins or allow only the
        listed ones.
        """
        # Here, not at the top: a host handed its plugins reads no distribution metadata.
        from ._entry_points import loadable_entry_points

        env = os.environ if env is None else env
        found = loadable_entry_points()
        return [self._load_entry(name, found[name], env) for name in sorted(found)]

    def _load_entry(self, name: str, entries: Loadable, env: Mapping[str, str]) -> PluginRecord:
        # Loaded already by load_entry_points, the one caller: here it is a dictionary lookup.
        from ._entry_points import switched_on

        kept, why_off = switched_on(name, entries, env)
        entries = sorted(kept or entries, key=lambda entry: (entry[1].value, entry[0]))
        _category, ep = entries[0]
        dist = ep.dist
        record = PluginRecord(
            name=name,
            status="loaded",
            categories=sorted({cat for cat, _ in entries}),
            distribution=dist.name if dist else None,
            version=dist.version if dist else None,
            module=ep.value,
        )
        if not kept:
            return self._finish(record, "disabled", why_off)
        targets = sorted({entry.value for _, entry in entries})
        if len(targets) > 1 or name in self.records:
            groups = ", ".join(f"agentkit.{category}" for category in record.categories)
            return self._finish(
                record, "failed", f"plugin name {ep.name!r} is used by more than one entry point in {groups} "
                f"({', '.join(targets)}): rename one of the entry points, or uninstall one of the distributions"
            )
        # Only a plugin found through its distribution's metadata is checked: a host given its plugins
        # directly never reads a range.
        from ._api_range import check

        declared, problem = check(dist.requires if dist is not None else None)
        if problem:
            return self._finish(record, "failed", problem)
        if dist is not None and not declared:
            record.warnings.append(
                "does not declare a dependency on agentkit-plugin-api: declare the range it was built for"
            )
        try:
            plugin = ep.load()
        except BaseException as exc:  # a plugin's import may raise anything, SystemExit included
            return self._finish(record, "failed", f"raised on import: {_describe(exc)}")
        return self._register(plugin, record)

    # -- registration ---------------------------------------------------------------

    def register(self, plugin: object, name: str | None = None, category: str | None = None) -> PluginRecord:
        """Register a plugin object (a module, class or instance) from code."""
        name = name or getattr(plugin, "__name__", None) or type(plugin).__name__
        record = PluginRecord(name=name, status="loaded", categories=[category] if category else [])
        if name in self.records:
            return self._finish(record, "failed", f"a plugin named {name!r} is already registered")
        return self._register(plugin, record)

    def _register(self, plugin: object, record: PluginRecord) -> PluginRecord:
        plugin = hashable(plugin, record.name)
        try:
            self.pm.register(plugin, name=record.name)
        except pluggy.PluginValidationError as exc:
            return self._finish(record, "failed", f"invalid hook implementation: {exc}")
        except ValueError as exc:
            return self._finish(record, "failed", str(exc))
        problem, record.hooks, optional = check_markers(self.pm, plugin)
        record.warnings += optional
        if problem:
            self.pm.unregister(plugin)
            return self._finish(record, "failed", problem)
        refused: list[str] = []
        try:
            self._collect(plugin, record, refused)
        except Exception as exc:
            self.pm.unregister(plugin)
            self.registry.withdraw(record.name)
            record.withdrawn, record.contributions = [*record.contributions, *refused], []
            return self._finish(record, "failed", str(exc))
        return self._finish(record, "loaded", None)

    def _collect(self, plugin: object, record: PluginRecord, refused: list[str]) -> None:
        """Call the plugin's contribution hooks; what the registry refuses goes to ``refused``, not provided."""
        for hook_name, method in _CONTRIBUTION_HOOKS.items():
            caller = self._caller_of(hook_name, plugin)
            if not caller.get_hookimpls():
                continue
            add = getattr(self.registry, method)
            kind = method.removeprefix("add_")
            open_ = [True]

            def register(obj: Any, add: Any = add, kind: str = kind, hook: str = hook_name, open_: list[bool] = open_) -> None:
                # Closed once the hook returns: a register kept for later could take a name from
                # another plugin in the middle of a run, with nobody told.
                if not open_[0]:
                    raise RegistrationError(f"register was called after {hook} returned: register everything "
                                            "inside the hook")
                # noted first, so that a refused contribution still names the plugin that failed on it
                label = f"{kind}:{getattr(obj, 'name', None) or getattr(obj, 'api', '?')}"
                record.contributions.append(label)
                try:
                    add(record.name, obj)
                except BaseException:
                    # A plugin that goes on after the refusal (the MCP client leaves out one bad tool)
                    # does not provide it; one that lets it end its hook fails, naming it as withdrawn.
                    record.contributions.remove(label)
                    refused.append(label)
                    raise

            arguments: dict[str, Any] = {"register": register}
            if hook_name == "agentkit_register_tools":
                arguments["project"] = self.project
            try:
                caller(**arguments)
            except RegistrationError as exc:
                raise RegistrationError(f"{hook_name}: {exc}") from exc
            except BaseException as exc:  # a plugin may raise anything, SystemExit included
                raise RegistrationError(f"{hook_name} raised {_describe(exc)}") from exc
            finally:
                open_[0] = False

    def _caller_of(self, hook_name: str, plugin: object) -> pluggy.HookCaller:
        """A pluggy caller of ``plugin``'s own implementations of ``hook_name``."""
        return self.pm.subset_hook_caller(hook_name, [other for other in self.pm.get_plugins() if other is not plugin])

    def hook_callers(self, hook_name: str) -> list[tuple[str, pluggy.HookCaller]]:
        """``(plugin name, caller)`` per plugin implementing ``hook_name``, in pluggy's call order.

        Each caller runs only that plugin's implementations, through pluggy's
        own machinery, so the host can call plugins one at a time (see
        ``HookRunner``) with pluggy's rules for arguments and order.
        """
        impls = getattr(self.pm.hook, hook_name).get_hookimpls()
        if not impls:  # most hooks of most runs: asked every batch (the tool-call hooks), answered at once
            return []
        plugins: dict[str, object] = {}
        for impl in reversed(impls):
            plugins.setdefault(impl.plugin_name, impl.plugin)
        return [(name, self._caller_of(hook_name, plugin)) for name, plugin in plugins.items()]

    def _finish(self, record: PluginRecord, status: Status, reason: str | None) -> PluginRecord:
        record.status = status
        record.reason = reason
        self.records[record.name] = record
        if status == "failed":
            log.warning("plugin %s failed: %s", record.name, reason)
        for other in self.records.values():  # a newcomer's names may collide with, or free, another's
            before, other.collisions = other.collisions, self.registry.collisions_of(other.name)
            for collision in set(other.collisions) - set(before):
                log.warning("plugin %s: %s", other.name, collision)
        return record

    # -- what was contributed ---------------------------------------------------------

    @property
    def tools(self) -> dict[str, Tool]:
        return self.registry.tools

    @property
    def providers(self) -> dict[str, Provider]:
        return self.registry.providers

    @property
    def skills(self) -> dict[str, Skill]:
        return self.registry.skills

    @property
    def models(self) -> dict[str, ModelInfo]:
        return self.registry.models

    def plugin_of(self, kind: str, name: str) -> str | None:
        """The plugin that registered tool/provider/skill ``name``."""
        return self.registry.owner(kind, name)

    def resolve_model(self, spec: str) -> ModelInfo:
        """The catalog row for ``vendor/model``, the id kept as written.

        An id without a row of its own takes the row that lists it as an
        alias, the row of its undated id (``claude-haiku-4-5-20251001``), or
        the row of its family; an id in no known family is sent as asked, on
        the vendor's default row with nothing refused and ``priced=False``
        (with a logged warning). See :mod:`agentkit.host._models`.

        :raises ModelNotFound: ``spec`` is not ``vendor/model``, no plugin
            serves its vendor, or two plugins list it.
        """
        models = self.registry.models
        if spec in models:  # a listed model, as _models.resolve_model answers first: the rules are not loaded
            return models[spec]
        # Here: a host that serves tools, or a listed model, needs none of it.
        from ._models import resolve_model

        return resolve_model(spec, models, self.registry.contested("model"))


def _describe(exc: BaseException) -> str:
    """``Type: message (file:line)``, the line being the plugin's own, never importlib's."""
    if isinstance(exc, SyntaxError) and exc.filename:  # its traceback holds only the importer's frames
        return f"{type(exc).__name__}: {exc.msg} ({exc.filename}:{exc.lineno})"
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__) if not frame.filename.startswith("<")]
    where = f" ({frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


def check_host_trust(host: PluginHost, project: Project) -> None:
    """Refuse a host whose tools were registered for a project this agent does not trust.

    Tool plugins built their tools for ``host.project`` (the MCP client, from a
    trusted project's ``agentkit.toml``); an agent that does not trust that
    project must not be handed them.
    """
    if host.project.trusted and (not project.trusted or host.project.root != project.root):
        raise ConfigError(
            f"the PluginHost trusts the project {host.project.root}, but this agent does not trust it "
            f"(root {project.root}, trust_project={project.trusted}): build the host for the agent's project, "
            "PluginHost.discover(project=Project.open(root, trust=...))"
        )
