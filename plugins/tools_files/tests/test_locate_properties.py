"""The descriptor walk resolves links as the kernel does, and never lands outside the root.

On random trees of directories, files and links (relative and absolute,
inside and outside, chained, dangling), every path the walk accepts is the
one ``realpath`` names, and every path ``realpath`` puts outside the root is
refused.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentkit.plugin_api import ToolError
from agentkit.plugin_api.workspace import locate

pytestmark = pytest.mark.skipif(os.name == "nt", reason="needs symlinks")

NAMES = ["a", "b", "c", "f.txt", "l1", "l2"]
TARGETS = [
    "a",
    "b/c",
    "f.txt",
    "..",
    "../..",
    "../outside",
    "../outside/secret.txt",
    "../ws/a",
    "../ws/l1",
    "a/../..",
    "l1",
    "l2/f.txt",
    "nowhere",
    "/ROOT/a",
    "/ROOT/../outside",
    "/etc",
]


def _tree(base: Path, links: list[tuple[str, str, str]]) -> Path:
    root = base / "ws"
    (root / "a" / "b" / "c").mkdir(parents=True)
    (root / "b" / "c").mkdir(parents=True)
    (root / "f.txt").write_text("x")
    (root / "a" / "f.txt").write_text("x")
    (base / "outside").mkdir()
    (base / "outside" / "secret.txt").write_text("s")
    for directory, name, target in links:
        where = root / directory / name
        if where.parent.is_dir() and not os.path.lexists(where):
            os.symlink(target.replace("/ROOT", str(root)), where)
    return root


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    links=st.lists(
        st.tuples(
            st.sampled_from(["", "a", "a/b", "b"]),
            st.sampled_from(["l1", "l2"]),
            st.sampled_from(TARGETS),
        ),
        max_size=6,
    ),
    path=st.lists(st.sampled_from([*NAMES, "..", "."]), min_size=1, max_size=4),
)
@example(links=[("a", "l1", "/ROOT/b")], path=["a", "l1", "c"])
@example(links=[("a/b", "l1", "../../f.txt")], path=["a", "b", "l1"])
@example(links=[("", "l1", "l2"), ("", "l2", "l1")], path=["l1"])
@example(links=[("a", "l1", "../ws/b")], path=["a", "l1", "c", ".."])
@example(links=[("b", "l2", "../outside")], path=["b", "l2", "..", "ws"])
def test_the_walk_agrees_with_realpath_and_never_leaves(links, path):
    with tempfile.TemporaryDirectory() as temporary:
        root = _tree(Path(temporary).resolve(), links)
        raw = "/".join(path)
        expected = Path(os.path.realpath(root / raw))
        inside = expected == root or expected.is_relative_to(root)
        try:
            kernel: OSError | None = None
            os.stat(root / raw)
        except OSError as exc:
            kernel = exc
        try:
            with locate(root, raw) as target:
                found = target.path
        except ToolError as exc:
            if exc.error == "path_not_allowed":
                assert not inside, (raw, expected)
                return
            # A missing or non-directory component on the way, or a loop: the kernel agrees.
            assert exc.error in ("not_found", "not_a_directory", "too_many_links"), exc.error
            assert kernel is not None, (raw, exc.detail)
            return
        assert inside, (raw, expected)
        assert found == expected, (raw, found, expected)
