"""Validate plugins, each in its own process: what ``agentkit validate-plugins`` runs.

Every plugin is checked in a process of its own, several at a time (one per
CPU by default), so a plugin that calls ``os._exit``, crashes the interpreter,
hangs, or corrupts global state cannot hide another plugin's result. Where the
platform can fork, those processes are forked from a checks server that
imported the suite and indexed the installed distributions once (see
``_serve``); elsewhere each is a ``python -m agentkit.conformance.run``.
Collisions need the whole set, so one more process loads every plugin the way
an agent would and reports the names two plugins register: the host serves
such a name for neither, so every plugin that registers it fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from packaging.utils import canonicalize_name

from agentkit.host import PluginHost
from agentkit.plugin_api.errors import UsageError

from ._report import PluginReport, failed, warned
from ._serve import AVAILABLE as SERVER_AVAILABLE
from ._serve import Server
from ._source import read_project

DEFAULT_TIMEOUT = 120.0


@dataclass
class Target:
    """One plugin to validate: an entry-point name, installed or in a project directory."""

    name: str
    categories: list[str] = field(default_factory=list)
    distribution: str | None = None
    version: str | None = None
    path: str | None = None


def _names(env: Mapping[str, str], key: str) -> set[str] | None:
    value = env.get(key)
    return None if value is None else {canonicalize_name(p) for p in value.split(",") if p.strip()}


def installed_targets(names: Sequence[str] = (), env: Mapping[str, str] | None = None) -> list[Target]:
    """The installed plugins called ``names`` (entry-point or distribution names), or every enabled one.

    Read from the entry points' metadata: nothing is imported here.
    """
    env = os.environ if env is None else env
    found: dict[str, Target] = {}
    for name, entries in PluginHost.installed().items():
        target = found[name] = Target(name, sorted({category for category, _ in entries}))
        dist = next((ep.dist for _, ep in entries if ep.dist is not None), None)
        if dist is not None:
            target.distribution, target.version = dist.metadata["Name"], dist.version
    targets = sorted(found.values(), key=lambda target: target.name)
    # x[skills] answers to its entry-point name x as well, as the host's switches do
    keys = {t.name: {canonicalize_name(t.name), canonicalize_name(t.name.split("[")[0]),
                     canonicalize_name(t.distribution or t.name)} for t in targets}
    if names:
        wanted = {canonicalize_name(name) for name in names}
        missing = sorted(wanted - set().union(*keys.values())) if keys else sorted(wanted)
        if missing:
            raise UsageError(f"no installed plugin named {', '.join(missing)} (see 'agentkit plugins')")
        return [t for t in targets if keys[t.name] & wanted]
    disabled = _names(env, "AGENTKIT_DISABLE_PLUGINS") or set()
    allowed = _names(env, "AGENTKIT_LOAD_PLUGINS")
    return [t for t in targets if not keys[t.name] & disabled and (allowed is None or keys[t.name] & allowed)]


def path_targets(path: str | Path) -> list[Target]:
    """The plugins the project in ``path`` declares (from its ``pyproject.toml``)."""
    project = read_project(path)
    plugins = project.plugins()
    if not plugins:
        raise UsageError(f"{project.directory / 'pyproject.toml'} declares no agentkit.* entry point: "
                         "add one under [project.entry-points.\"agentkit.tools\"] (or another category)")
    return [Target(name, categories, project.name, project.version, str(project.directory))
            for name, categories in sorted(plugins.items())]


def _child(args: list[str], timeout: float, env: Mapping[str, str] | None = None,
           server: Server | None = None) -> tuple[dict | None, int | None, str]:
    """Run a checks process; ``(report data or None, exit code or None on timeout, stderr tail)``.

    ``env`` is set over this process's environment. With ``server`` the process is forked
    from it; without (or when the server is gone), it is a new interpreter.
    """
    with tempfile.TemporaryDirectory(prefix="agentkit-validate-") as scratch:
        served = False
        if server is not None:
            out, errors = Path(scratch) / "report.json", Path(scratch) / "stderr.txt"
            served, code = server.run([*args, "--out", str(out)], scratch, str(errors), timeout, env or {})
            stderr = errors.read_text(encoding="utf-8", errors="replace") if errors.is_file() else ""
        if not served:
            # A report of its own: a child of a server that ended may still be writing the other one.
            out = Path(scratch) / "report-of-process.json"
            command = [sys.executable, "-m", "agentkit.conformance.run", *args, "--out", str(out)]
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                      stdin=subprocess.DEVNULL, cwd=scratch,
                                      env={**os.environ, **env} if env else None)
                code, stderr = done.returncode, done.stderr
            except subprocess.TimeoutExpired as exc:
                code, stderr = None, (exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes)
                                      else exc.stderr or "")
        data = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else None
    return data, code, "\n".join(stderr.strip().splitlines()[-5:])


def check_in_subprocess(target: Target, *, timeout: float = DEFAULT_TIMEOUT, lint: bool = True,
                        server: Server | None = None) -> PluginReport:
    """The report of one plugin, from its own checks process (forked from ``server``, if given)."""
    args = [target.name] + (["--path", target.path] if target.path else []) + ([] if lint else ["--no-lint"])
    data, code, stderr = _child(args, timeout, server=server)
    report = PluginReport.from_dict(data) if data else PluginReport(target.name)
    report.distribution = report.distribution or target.distribution
    report.version = report.version or target.version
    report.categories = report.categories or target.categories
    if data and data.get("complete"):
        return report
    reached = report.checks[-1].check if report.checks else "start-up"
    if code is None:
        report.add(failed("isolation", f"the checks did not finish within {timeout:g}s (last check done: {reached})",
                          "a hook, handler or import hangs: make it return, or honour the cancel token"))
    else:
        report.add(failed("isolation", f"the checks process ended with exit code {code} after {reached}"
                          + (f": {stderr}" if stderr else ""),
                          "a plugin must never end the interpreter (os._exit, sys.exit, a crash) on import or in a hook"))
    return report


def collisions(path: str | None = None, timeout: float = DEFAULT_TIMEOUT,
               server: Server | None = None) -> tuple[dict[str, list[str]], str | None]:
    """Plugin -> the collisions the host found for it when loading everything; and a problem, if any.

    A plugin that ends the interpreter (or hangs) while the whole set loads
    would take the set down with it: the process says which plugin it was
    loading, and the set is loaded again without that one.
    """
    without: list[str] = []
    for _ in range(8):
        env = {}
        if without:
            disabled = [os.environ.get("AGENTKIT_DISABLE_PLUGINS", ""), *without]
            env = {"AGENTKIT_DISABLE_PLUGINS": ",".join(filter(None, disabled))}
        data, code, stderr = _child(["--discover"] + (["--path", path] if path else []), timeout, env, server)
        if data and data.get("complete"):
            break
        culprit = (data or {}).get("loading")
        if not culprit or culprit in without:
            why = "did not finish" if code is None else f"ended with exit code {code}"
            return {}, f"loading every plugin together {why}; collisions were not checked ({stderr})"
        without.append(culprit)
    else:
        return {}, "too many plugins end the interpreter on import; collisions were not checked"
    found = {name: record["collisions"] for name, record in data["records"].items() if record.get("collisions")}
    return found, None


def cpu_count() -> int:
    """The CPUs this process may use: how many plugins ``validate`` checks at once by default."""
    counted = getattr(os, "process_cpu_count", None)  # Python 3.13
    if counted is not None:
        return counted() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def validate(targets: Sequence[Target], *, timeout: float = DEFAULT_TIMEOUT, lint: bool = True,
             jobs: int | None = None, on_report: Callable[[PluginReport], None] | None = None) -> list[PluginReport]:
    """Lint and conformance reports for ``targets``, in their order.

    :param jobs: how many plugins are checked at once; default: :func:`cpu_count`.
    :param on_report: called with each plugin's final report as soon as it is known (its
        own checks and the collision check both done), in the order the plugins finish,
        from the calling thread.
    """
    if not targets:
        return []
    jobs = jobs or cpu_count()
    if jobs < 1:
        raise UsageError(f"jobs must be at least 1, not {jobs}")
    path = targets[0].path
    server = Server(path) if SERVER_AVAILABLE else None
    reports: list[PluginReport | None] = [None] * len(targets)
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        collision_check = pool.submit(collisions, path, timeout, server)
        checks = {pool.submit(check_in_subprocess, target, timeout=timeout, lint=lint, server=server): index
                  for index, target in enumerate(targets)}
        found, problem = collision_check.result()
        for check in as_completed(checks):
            report = reports[checks[check]] = check.result()
            _add_collisions(report, found, problem)
            if on_report is not None:
                on_report(report)
    finally:
        pool.shutdown(cancel_futures=True)  # after Ctrl-C, no plugin not yet started is started
        if server is not None:
            server.close()
    return [report for report in reports if report is not None]


def _add_collisions(report: PluginReport, found: Mapping[str, list[str]], problem: str | None) -> None:
    for collision in found.get(report.name, []):
        report.add(failed("collisions", collision,
                          "rename what collides, or keep one of the plugins: disable the other "
                          "(AGENTKIT_DISABLE_PLUGINS) or uninstall it; names are never renamed"))
    if problem:
        report.add(warned("collisions", problem, "run 'agentkit plugins --check' to see which plugin fails to load"))
