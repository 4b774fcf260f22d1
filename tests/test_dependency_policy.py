"""Each distribution depends on what the policy allows, and imports only what it declares."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
POLICY = tomllib.loads((REPO / "dependency-policy.toml").read_text())
MEMBERS = {
    tomllib.loads(path.read_text())["project"]["name"]: path.parent
    for pattern in ("*/pyproject.toml", "plugins/*/pyproject.toml", "extensions/*/pyproject.toml", "apps/*/pyproject.toml", "examples/*/pyproject.toml")
    for path in REPO.glob(pattern)
}


def declared(distribution: str) -> set[str]:
    project = tomllib.loads((MEMBERS[distribution] / "pyproject.toml").read_text())["project"]
    return {canonicalize_name(Requirement(line).name) for line in project.get("dependencies", [])}


def test_every_distribution_is_in_the_policy():
    assert sorted(MEMBERS) == sorted(POLICY)


@pytest.mark.parametrize("distribution", sorted(MEMBERS))
def test_declared_dependencies_match_the_allowlist(distribution):
    assert declared(distribution) == {canonicalize_name(name) for name in POLICY[distribution]["allowed"]}


#: Distributions a library imports whenever they are installed without declaring them, not even as an
#: extra: anyio looks for sniffio to tell which async library runs it.
OPPORTUNISTIC = {"anyio": ("sniffio",)}


def closure(names: set[str]) -> set[str]:
    """The distributions ``names`` pull in at run time, themselves included.

    A dependency's optional extras count too, when they are installed: a library may import them
    whenever they are there (httpx imports click and pygments for its command line as soon as some
    other distribution, such as uvicorn, installs them), and the distribution that depends on the
    library did not ask for that. Our own distributions' extras do not count. So do the modules a
    library imports whenever they are installed without declaring them at all (:data:`OPPORTUNISTIC`).
    """
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        dist = metadata.distribution(name)
        extras = [""] if name.startswith("agentkit") else ["", *(dist.metadata.get_all("Provides-Extra") or [])]
        for line in dist.requires or []:
            requirement = Requirement(line)
            wanted = requirement.marker is None or any(requirement.marker.evaluate({"extra": e}) for e in extras)
            if wanted and _installed(requirement.name):
                todo.append(canonicalize_name(requirement.name))
        todo.extend(extra for extra in OPPORTUNISTIC.get(name, ()) if _installed(extra))
    return seen


def _installed(name: str) -> bool:
    try:
        metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return False
    return True


IMPORT_ALL = """
import importlib, json, pkgutil, sys
for name in sys.argv[1:]:
    package = importlib.import_module(name)
    for info in pkgutil.walk_packages(getattr(package, "__path__", []), name + "."):
        if not info.name.rsplit(".", 1)[-1].startswith("__main__"):
            importlib.import_module(info.name)
print(json.dumps(sorted(sys.modules)))
"""


@functools.cache
def imported_modules(*packages: str) -> frozenset[str]:
    """The modules a fresh interpreter holds once it imported every module of ``packages``.

    Cached: the host's own check asks what its distribution's check asked, in the same worker.
    """
    output = subprocess.check_output([sys.executable, "-c", IMPORT_ALL, *packages], text=True, timeout=120)
    return frozenset(json.loads(output))


def top_packages(distribution: str) -> list[str]:
    source = MEMBERS[distribution] / "src"
    if (source / "agentkit").is_dir():
        return [f"agentkit.{child.name}" for child in (source / "agentkit").iterdir() if child.is_dir()]
    return [child.name for child in source.iterdir() if child.is_dir() and not child.name.endswith(".egg-info")]


@functools.cache
def _file_folders(distribution: str) -> frozenset[str]:
    return frozenset(str(path).split(".py")[0] for path in metadata.distribution(distribution).files or [])


def module_owners(module: str, owners: dict[str, list[str]]) -> list[str]:
    """The distributions that may hold ``module``.

    A namespace package spread over several distributions (``opentelemetry``: the API, the
    SDK, the conventions) is owned, module by module, by the one whose files hold the module's
    second level; the bare namespace by none of them.
    """
    parts = module.split(".")
    candidates = owners.get(parts[0], [])
    if len(candidates) <= 1 or parts[0] == "agentkit":
        return candidates
    if len(parts) == 1:
        return []
    sub = "/".join(parts[:2])
    return [name for name in candidates
            if any(path == sub or path.startswith(sub + "/") for path in _file_folders(name))]


@functools.cache
def _owners() -> dict[str, list[str]]:
    """Top-level import name -> the installed distributions providing it (read once: it scans them all)."""
    return metadata.packages_distributions()


@pytest.mark.parametrize("distribution", sorted(MEMBERS))
def test_imported_distributions_are_declared(distribution):
    """Importing every module of a distribution loads nothing it did not declare (directly or through a dependency)."""
    owners = _owners()
    allowed = closure(declared(distribution) | {canonicalize_name(distribution)})
    modules = imported_modules(*top_packages(distribution))
    loaded = set()
    for module in modules:
        top = module.split(".")[0]
        if top in sys.stdlib_module_names or top.startswith("_"):
            continue
        for owner in module_owners(module, owners):
            loaded.add(canonicalize_name(owner))
    if "agentkit" in {m.split(".")[0] for m in modules}:
        loaded.discard("agentkit-plugin-api")  # the shared namespace maps to every core distribution
        loaded -= {"agentkit-host", "agentkit-lint", "agentkit-conformance"}
    assert loaded - allowed == set()


def test_the_host_imports_no_plugin_module():
    """Importing every host module (the command included) loads no plugin, the lint or the conformance suite."""
    loaded = imported_modules("agentkit.host")
    assert {m for m in loaded if m.startswith("agentkit_")} == set()
    assert {m for m in loaded if m.startswith(("agentkit.lint", "agentkit.conformance"))} == set()
