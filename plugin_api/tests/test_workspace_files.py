"""IgnoreEngine.files: the regular files of the walk, in its order, filtered by the glob."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.plugin_api.workspace import IgnoreEngine, compile_glob

NAMES = st.sampled_from(["a.py", "b.txt", "c.log", "build", "d", "e.py", "keep.log", "x"])
TREES = st.lists(st.tuples(st.lists(NAMES, min_size=1, max_size=3), st.booleans()), max_size=25)


def _walked(engine: IgnoreEngine, start: str, glob) -> list[str]:
    cut = len(start.strip("/")) + 1 if start.strip("/") else 0
    return [entry.path for entry in engine.walk(start, include_dirs=False)
            if entry.is_file and (glob is None or glob.matches(entry.path[cut:]))]


@settings(max_examples=30, deadline=None)
@given(tree=TREES, pattern=st.sampled_from([None, "*.py", "**/*.log", "d/**", "{a,e}.py", "d/*.py",
                                            "*/x/*.py", "[bd]/**/a.py", "{d,x}/e.py", "build/*"]),
       start=st.sampled_from(["", "d", "build"]), by_path=st.booleans())
def test_files_is_the_walk_of_regular_files_in_its_order(tmp_path_factory, tree, pattern, start, by_path):
    # Given the glob itself, the walk asks it by name and skips the directories it cannot
    # match below; given any filter on paths, it asks that about every file: the same files.
    root = tmp_path_factory.mktemp("tree")
    (root / ".gitignore").write_text("*.log\n!keep.log\nbuild/\n")
    (root / "d").mkdir()
    (root / "d" / ".gitignore").write_text("e.py\n")
    for parts, link in tree:
        path = root.joinpath(*parts)
        above = [root.joinpath(*parts[:depth]) for depth in range(1, len(parts))]
        if path.exists() or path.is_symlink() or any(p.is_symlink() or p.is_file() for p in above):
            continue  # taken, or below a file or a link
        path.parent.mkdir(parents=True, exist_ok=True)
        if link:
            path.symlink_to(root / ".gitignore")  # a link: walked, never a file of the search
        else:
            path.write_text("x\n")
    glob = compile_glob(pattern) if pattern else None
    engine = IgnoreEngine(root, env={"HOME": str(root / "no-home")})
    expected = _walked(engine, start, glob)
    accept = (glob.matches if by_path else glob) if glob else None
    assert list(IgnoreEngine(root, env={"HOME": str(root / "no-home")}).files(start, accept)) == expected


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_never_a_file_to_search(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "plain.txt").write_text("x")
    assert list(IgnoreEngine(tmp_path).files()) == ["plain.txt"]
