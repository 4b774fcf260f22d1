"""Every check of one plugin, run in the current process (the checks process of ``run``).

Order: the lint (it never imports the plugin), the registration on each
platform, then the plugin loaded through the host's own loader, the checks
every plugin gets, and the checks of each category it is registered under.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import importlib_metadata
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from agentkit.host import PluginHost, PluginRecord
from agentkit.plugin_api import __version__ as PLUGIN_API_VERSION
from agentkit.plugin_api.hookspecs import hook_names

from ._report import Check, PluginReport, failed, passed, skipped, warned

#: The host's switch that loads only the listed plugins (see agentkit.host's loader).
LOAD_ENV = "AGENTKIT_LOAD_PLUGINS"
PLATFORMS = ("linux", "darwin", "win32")


def entry_points_named(name: str) -> list[importlib_metadata.EntryPoint]:
    """The ``agentkit.*`` entry points of plugin ``name`` (``x``, or ``x[skills]``), without importing anything."""
    return [ep for _, ep in PluginHost.installed().get(name, [])]


def load(name: str, *also: str) -> tuple[PluginHost, PluginRecord | None]:
    """A host with only ``name`` (and ``also``) loaded, through the host's loader."""
    host = PluginHost()
    host.load_entry_points(env={LOAD_ENV: ",".join((name, *also))})
    return host, host.records.get(name)


def lint_checks(distribution: str | None, path: str | None) -> list[Check]:
    from agentkit.lint import LintUsageError, lint_distribution, lint_path

    try:
        if path is not None:
            report = lint_path(path)
        elif distribution is not None:
            report = lint_distribution(distribution)
        else:
            return [warned("lint", "not linted: the plugin belongs to no distribution")]
    except LintUsageError as exc:
        return [failed("lint", f"could not lint: {exc}", "install the plugin as a distribution with its source")]
    checks = []
    for finding in report.findings:
        where = f"{finding.kind}: {finding.module} -> {finding.imported} ({finding.location()})"
        make = failed if finding.severity == "error" else warned
        checks.append(make("lint", where, finding.message))
    if report.ok:
        checks.append(passed("lint", f"{report.files} files, {report.imports} imports"))
    return checks


_FIXES = (
    ("raised on import", "make the module import cleanly: try python -c 'import {module}'"),
    ("invalid hook implementation", "use the hook's exact argument names (any subset of them); see docs/plugins.md"),
    ("unknown hook", "rename the function to one of the known hooks, or drop its @hookimpl"),
    ("registered twice by this plugin", "register each name once"),
    ("more than one entry point", "give each entry point its own name"),
)


def _fix_for(reason: str, module: str | None) -> str:
    for needle, fix in _FIXES:
        if needle in reason:
            return fix.format(module=(module or "").split(":")[0])
    return "fix what the reason names"


def common_checks(host: PluginHost, record: PluginRecord) -> list[Check]:
    """Checks every plugin gets: it loads, declares a matching API range, implements its categories' hooks."""
    checks: list[Check] = []
    reason = record.reason or ""
    if record.status == "failed" and "requires agentkit-plugin-api" in reason:
        return [failed("api-range", reason, "build the plugin for the installed agentkit-plugin-api, "
                       "and declare that range in its dependencies")]
    if record.status != "loaded":
        return [failed("loads", reason or record.status, _fix_for(reason, record.module))]
    checks.append(passed("loads", ", ".join(record.contributions) or "no contributions"))
    checks += [warned("loads", warning, "") for warning in record.warnings]
    checks.append(_api_range(record))
    try:
        host.pm.check_pending()
        checks.append(passed("signatures", ", ".join(record.hooks)))
    except Exception as exc:  # pluggy.PluginValidationError
        checks.append(failed("signatures", str(exc), "implement only hooks that exist, with their argument names"))
    for category in record.categories:
        known = set(hook_names(category))
        mine = sorted(known & set(record.hooks))
        if mine:
            checks.append(passed("implements", f"{category}: {', '.join(mine)}"))
        else:
            checks.append(failed("implements", f"registered under agentkit.{category} but implements none of "
                                 f"its hooks ({', '.join(sorted(known))})",
                                 "implement one of them, or move the entry point to the group it belongs to"))
    return checks


def _api_range(record: PluginRecord) -> Check:
    if record.distribution is None:
        return passed("api-range", "registered in code")
    try:
        requires = importlib_metadata.distribution(record.distribution).requires or []
    except importlib_metadata.PackageNotFoundError:
        requires = []
    for line in requires:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(requirement.name) == "agentkit-plugin-api" and not requirement.marker:
            if not requirement.specifier:
                return warned("api-range", "depends on agentkit-plugin-api without a version range",
                              "declare the range it was built for, e.g. agentkit-plugin-api>=0.1,<0.2")
            return passed("api-range", f"agentkit-plugin-api{requirement.specifier} admits {PLUGIN_API_VERSION}")
    return passed("api-range", "no declared range (reported by the loader)")


def _own_modules(module: str | None) -> Callable[[str], bool]:
    top = (module or "").split(":")[0].split(".")[0]
    return lambda name: bool(top) and (name == top or name.startswith(f"{top}."))


def _forget(is_own: Callable[[str], bool]) -> dict[str, ModuleType]:
    """Remove the plugin's modules from ``sys.modules`` and return them."""
    forgotten = {name: module for name, module in sys.modules.items() if is_own(name)}
    for name in forgotten:
        del sys.modules[name]
    return forgotten


def registrations(name: str, is_own: Callable[[str], bool], platform: str) -> dict[str, Any]:
    """What ``name`` registers when imported with ``sys.platform`` set to ``platform``.

    The plugin is imported afresh for the check; its modules as the caller had them are
    put back afterwards, so the caller's classes stay the ones its objects were made from.
    """
    real = sys.platform
    kept = _forget(is_own)
    sys.platform = platform
    try:
        host, record = load(name)
    finally:
        sys.platform = real
        _forget(is_own)
        sys.modules.update(kept)
    if record is None or record.status != "loaded":
        return {"failed": record.reason if record else "not found"}
    owned: dict[str, Any] = {
        kind: sorted(n for n, _ in getattr(host, f"{kind}s").items() if host.plugin_of(kind, n) == name)
        for kind in ("tool", "provider", "skill")
    }
    owned["tool_schemas"] = {n: host.tools[n].input_schema for n in owned["tool"]}
    return owned


def platform_checks(name: str, module: str | None) -> list[Check]:
    """The same tools, with the same schemas, whatever ``sys.platform`` says."""
    is_own = _own_modules(module)
    seen = {platform: registrations(name, is_own, platform) for platform in PLATFORMS}
    reference = seen[PLATFORMS[0]]
    if all("failed" in result for result in seen.values()):
        return [skipped("platforms", "it loads on no platform (see 'loads')")]
    differing = [platform for platform in PLATFORMS[1:] if seen[platform] != reference]
    if not differing:
        return [passed("platforms", f"identical on {', '.join(PLATFORMS)}")]
    details = "; ".join(f"{platform}: {_describe(seen[platform], reference)}" for platform in differing)
    return [failed("platforms", f"registers differently per platform ({details})",
                   "register the same tools with the same schemas everywhere; decide per platform inside the "
                   "handler, and import platform-only modules lazily")]


def _describe(got: dict[str, Any], reference: dict[str, Any]) -> str:
    if "failed" in got:
        return f"did not load: {got['failed']}"
    if "failed" in reference:
        return f"loads there, but not on {PLATFORMS[0]}: {reference['failed']}"
    parts = []
    for kind in ("tool", "provider", "skill"):
        extra, missing = set(got[kind]) - set(reference[kind]), set(reference[kind]) - set(got[kind])
        if extra or missing:
            parts.append(f"{kind}s +{sorted(extra)} -{sorted(missing)}")
    changed = sorted(n for n in set(got["tool"]) & set(reference["tool"])
                     if got["tool_schemas"][n] != reference["tool_schemas"][n])
    if changed:
        parts.append(f"schemas of {', '.join(changed)} differ")
    return ", ".join(parts) or "differs"


def check_plugin(name: str, *, path: str | None = None, lint: bool = True,
                 progress: Callable[[PluginReport], None] = lambda report: None) -> PluginReport:
    """Lint and check the installed plugin ``name`` in this process; see the module docstring."""
    from ._hooks import check_hooks
    from ._providers import check_providers
    from ._skills import check_skills
    from ._tools import check_tools

    found = entry_points_named(name)
    report = PluginReport(name=name, categories=sorted({ep.group.removeprefix("agentkit.") for ep in found}))
    if found and found[0].dist is not None:
        report.distribution, report.version = found[0].dist.metadata["Name"], found[0].dist.version
    if not found:
        report.add(failed("loads", f"no installed plugin named {name!r}", "install it, or check the name"))
        return report
    if lint:
        report.add(*lint_checks(report.distribution, path))
        progress(report)
    module = found[0].value
    if "tools" in report.categories or "providers" in report.categories or "skills" in report.categories:
        report.add(*platform_checks(name, module))
        progress(report)
    # The checks import the plugin afresh; the caller's modules are put back afterwards.
    is_own = _own_modules(module)
    kept = _forget(is_own)
    try:
        host, record = load(name, "faux") if "hooks" in report.categories else load(name)
        if record is None:
            report.add(failed("loads", "the host did not load it", "check the entry point"))
            return report
        report.add(*common_checks(host, record))
        progress(report)
        if record.status != "loaded":
            return report
        by_category = {"tools": check_tools, "providers": check_providers, "skills": check_skills, "hooks": check_hooks}
        for category in record.categories:
            for check in by_category[category](host, name):
                report.add(check)
                progress(report)
        return report
    finally:
        if kept:
            _forget(is_own)
            sys.modules.update(kept)
