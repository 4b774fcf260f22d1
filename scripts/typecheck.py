"""`make lint`'s type check: mypy over the source of every member of the uv workspace.

The members come from ``[tool.uv.workspace]`` in the root ``pyproject.toml`` (its ``members``
globs less its ``exclude``), so a new distribution is type-checked from the moment it joins the
workspace, with no list of distributions to edit here or in mypy's configuration. mypy's flags
stay in ``[tool.mypy]``; this script gives it the files and, as ``MYPYPATH``, the ``src`` folders
that module names are counted from (``agentkit`` is a namespace package spread over four of
them). Arguments are handed to mypy: ``python scripts/typecheck.py --no-incremental``.
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def workspace_members(root: Path = REPO) -> list[Path]:
    """The folders of the workspace's members, as uv finds them (each holds a ``pyproject.toml``)."""
    workspace = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["uv"]["workspace"]
    excluded = {path.resolve() for pattern in workspace.get("exclude", []) for path in root.glob(pattern)}
    found = {
        path.resolve()
        for pattern in workspace["members"]
        for path in root.glob(pattern)
        if (path / "pyproject.toml").is_file()
    }
    return sorted(found - excluded)


def source_roots(root: Path = REPO) -> list[Path]:
    """Each member's ``src`` folder: what mypy checks, and where its module names start."""
    return [member / "src" for member in workspace_members(root) if (member / "src").is_dir()]


def main(argv: list[str]) -> int:
    from mypy import api

    roots = [path.relative_to(REPO) for path in source_roots()]
    os.chdir(REPO)  # mypy names the files as it was given them: relative to the repository
    os.environ["MYPYPATH"] = os.pathsep.join(str(path) for path in roots)
    stdout, stderr, status = api.run(["--config-file", "pyproject.toml", *map(str, roots), *argv])
    sys.stdout.write(stdout)
    sys.stderr.write(stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
