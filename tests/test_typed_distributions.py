"""Every distribution ships ``py.typed`` (PEP 561), so a type checker reads the annotations of
an installed agentkit package instead of treating it as untyped."""

from __future__ import annotations

import tomllib
from importlib import metadata, resources
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PYPROJECTS = [
    path
    for pattern in ("*/pyproject.toml", "plugins/*/pyproject.toml", "extensions/*/pyproject.toml", "apps/*/pyproject.toml", "examples/*/pyproject.toml")
    for path in REPO.glob(pattern)
]


def import_packages(pyproject: Path) -> list[str]:
    """The import packages the distribution's wheel holds (``agentkit`` is a namespace: its
    subpackages are the distribution's own)."""
    config = tomllib.loads(pyproject.read_text())
    packages = []
    for folder in config["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]:
        root = pyproject.parent / folder
        if (root / "__init__.py").is_file():
            packages.append(root.name)
        else:
            packages += [f"{root.name}.{sub.parent.name}" for sub in sorted(root.glob("*/__init__.py"))]
    return packages


DISTRIBUTIONS = {
    tomllib.loads(path.read_text())["project"]["name"]: import_packages(path) for path in PYPROJECTS
}


def test_every_distribution_is_found():
    assert len(DISTRIBUTIONS) == len(PYPROJECTS) >= 16
    assert all(DISTRIBUTIONS.values()), DISTRIBUTIONS


@pytest.mark.parametrize("distribution", sorted(DISTRIBUTIONS))
def test_the_installed_distribution_ships_py_typed(distribution):
    metadata.distribution(distribution)  # installed, not only present in the tree
    missing = [
        package
        for package in DISTRIBUTIONS[distribution]
        if not resources.files(package).joinpath("py.typed").is_file()
    ]
    assert missing == [], f"{distribution}: add an empty py.typed beside __init__.py of {missing}"
