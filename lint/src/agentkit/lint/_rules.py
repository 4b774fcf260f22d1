"""The rules: what a plugin may import, judged one import at a time.

* Of agentkit, only the public ``agentkit.plugin_api`` and its public submodules
  (``hookspecs``, ``errors``): no ``agentkit.host``, ``agentkit.lint``,
  ``agentkit.conformance``, and no ``_private`` module or name of the plugin API.
* The standard library (``sys.stdlib_module_names``) is always allowed.
* The plugin's own packages are its business, private and ``internal`` modules included;
  a relative import must stay inside them.
* Anything else must be provided by a declared requirement.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from ._distributions import DistributionIndex
from ._findings import Finding, finding
from ._imports import ImportRecord
from ._source import SourceFile

_OURS = "agentkit"
_PUBLIC_API = "agentkit.plugin_api"
# The running interpreter's standard library, plus modules only newer Pythons ship
# (a plugin may import them behind a version check) and typeshed's type-only _typeshed.
_STDLIB = frozenset(sys.stdlib_module_names) | {
    "annotationlib",
    "compression",
    "_typeshed",
}


def within(module: str, package: str) -> bool:
    """True when ``module`` is ``package`` or one of its submodules."""
    return module == package or module.startswith(package + ".")


def is_public_api(module: str) -> bool:
    """True for ``agentkit.plugin_api`` and its submodules and names not spelt ``_private``
    (dunders such as ``__version__`` are public)."""
    if not within(module, _PUBLIC_API):
        return False
    rest = module[len(_PUBLIC_API) :].split(".")[1:]
    return not any(_is_private(part) for part in rest)


def _is_private(name: str) -> bool:
    # Dunders (__version__, __all__) are public by convention; _single ones are not.
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@dataclass
class Allowances:
    """The allowances a plugin declared, and which of them excused something."""

    entries: list[str]
    used: set[str] = field(default_factory=set)

    def excuse(self, imported: str) -> bool:
        """True (and the matching entries marked used) when an entry covers ``imported``."""
        matches = [a for a in self.entries if within(imported, a)]
        self.used.update(matches)
        return bool(matches)

    def unused(self) -> list[str]:
        """Entries that excused nothing, in declaration order, each once."""
        return [a for a in dict.fromkeys(self.entries) if a not in self.used]


@dataclass
class Plugin:
    """What the rules need to know about the plugin being linted."""

    name: str
    own_packages: set[str]
    declared: set[str]
    requirements_unknown: str
    index: DistributionIndex
    allowances: Allowances

    def owns(self, module: str) -> bool:
        return any(within(module, own) for own in self.own_packages)


def check_import(plugin: Plugin, file: SourceFile, record: ImportRecord) -> list[Finding]:
    """The findings one import produces (none when it keeps the rules)."""
    here = (file.module, file.display, record.line)
    if record.unverifiable:
        return [_unverifiable(here, record)]
    if record.relative is not None:
        if record.base is not None and plugin.owns(record.base):
            return []
        return [_relative_escape(plugin, here, record)]
    base = record.base or ""
    if plugin.owns(base):
        return []
    if base.partition(".")[0] == _OURS:
        forbidden = _forbidden_target(plugin, record)
        if forbidden is not None:
            if plugin.allowances.excuse(forbidden):
                return []
            return [_forbidden(here, record, forbidden)]
        if all(plugin.owns(t) for t in record.targets()[1:]) and record.names:
            return []  # `from agentkit import lint` inside agentkit.lint's own portion
    elif base.partition(".")[0] in _STDLIB:
        return []
    return _check_declared(plugin, here, record)


def _forbidden_target(plugin: Plugin, record: ImportRecord) -> str | None:
    """The first module of ours this import reaches that a plugin may not import."""
    base = record.base or ""
    if base == _OURS:
        # `import agentkit` / `from agentkit import *` reach nothing public; each
        # `from agentkit import x` is judged as agentkit.x.
        if not record.names:
            return base
        for target in record.targets()[1:]:
            if not plugin.owns(target) and not is_public_api(target):
                return target
        return None
    if not is_public_api(base):
        return base
    for target in record.targets()[1:]:
        if not is_public_api(target):
            return target
    return None


def _check_declared(
    plugin: Plugin, here: tuple[str, str, int], record: ImportRecord
) -> list[Finding]:
    targets = record.targets()
    if record.names and record.base == _OURS:
        targets = targets[1:]  # the namespace itself is nobody's distribution
    providers: set[str] = set()
    for target in targets:
        if not plugin.owns(target):
            providers |= plugin.index.providers(target)
    if providers & plugin.declared:
        return []
    base = record.base or ""
    # `from google import auth` is excused by an allowance for google.auth as well.
    excused = [plugin.allowances.excuse(target) for target in targets or [base]]
    if any(excused):
        return []
    module, display, line = here
    names = " or ".join(sorted(providers))
    fix = plugin.requirements_unknown or (
        f"{plugin.name} does not declare it: add the distribution to "
        "[project].dependencies (or an optional extra), or, if a declared requirement "
        "provides the module, list it in [tool.agentkit.lint] allow"
    )
    return [
        finding(
            "undeclared-dependency",
            module,
            base,
            display,
            line,
            f"`{record.statement}` needs {names}; {fix}",
        )
    ]


def _unverifiable(here: tuple[str, str, int], record: ImportRecord) -> Finding:
    module, display, line = here
    return finding(
        "unverifiable-import",
        module,
        "<dynamic>",
        display,
        line,
        f"`{record.statement}` imports a name computed at run time, which the lint cannot "
        "check; import a literal module name to have it checked",
    )


def _relative_escape(plugin: Plugin, here: tuple[str, str, int], record: ImportRecord) -> Finding:
    module, display, line = here
    target = record.base or (record.relative or "")
    owns = ", ".join(sorted(plugin.own_packages)) or plugin.name
    return finding(
        "relative-import-escape",
        module,
        target,
        display,
        line,
        f"`{record.statement}` climbs out of the plugin's own package ({owns}); a "
        "relative import stays inside the plugin: import agentkit.plugin_api (or a "
        "declared dependency) by its absolute name",
    )


def _forbidden(here: tuple[str, str, int], record: ImportRecord, target: str) -> Finding:
    module, display, line = here
    if within(target, _PUBLIC_API):
        why = f"{target} is private to the plugin API; use the public name from {_PUBLIC_API}"
    else:
        why = (
            f"{target} is not part of the plugin API; a plugin imports only {_PUBLIC_API} "
            "(and its public submodules) from agentkit"
        )
    return finding(
        "forbidden-import", module, target, display, line, f"`{record.statement}`: {why}"
    )
