"""Glob.walk_tests: asked by name and per directory, the glob answers exactly as Glob.matches.

The walk a search runs asks the glob about a file from its directory and name
(no path built where the name decides) and skips a directory below which the
glob can match nothing. Both are checked here against :meth:`Glob.matches` on
generated globs and paths: names holding the glob's own special characters,
non-ASCII and undecodable bytes, paths spelled exactly like the glob, classes
and escapes spanning a ``/``.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentkit.plugin_api.workspace import compile_glob, expand_braces

TOKENS = [
    "*", "**", "***", "?", "a", "b", "x", ".py", ".", "[a-c]", "[!a]", "[^ab]", "[[:digit:]]",
    "[[:alpha:]]", "[\\1-\\3]", "[\\]]", "[]a]", "\\*", "\\?", "\\[", "[*]", "é", "src", "{a,b}",
    "{src,lib/x}", "[a/b]", "\\/", "[", "\\", "]", "{", ",",
]
NAME_PIECES = [
    "a", "b", "x", "1", ".py", ".", "*", "**", "?", "[", "]", "\\", "é", "src", "lib", "{", ",",
    os.fsdecode(b"\xff"), os.fsdecode(b"\xc3"), "-", " ",
]

SEGMENTS = st.lists(st.sampled_from(TOKENS), min_size=1, max_size=3).map("".join)
GLOBS = st.tuples(
    st.sampled_from(["", "", "", "./", "/", "**/"]),
    st.lists(SEGMENTS, min_size=1, max_size=4).map("/".join),
).map("".join)
NAMES = st.lists(st.sampled_from(NAME_PIECES), min_size=1, max_size=3).map("".join)
PATHS = st.lists(NAMES, min_size=1, max_size=5).map("/".join)


def _spellings(pattern: str) -> list[str]:
    """Paths spelled like the glob's alternatives: git matches those before any wildcard."""
    spelled = []
    for alternative in expand_braces(pattern):
        while alternative.startswith("./"):
            alternative = alternative[2:]
        spelled.append(alternative.lstrip("/"))
    return [path for path in spelled if path and "//" not in path and not path.endswith("/")]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=GLOBS, paths=st.lists(PATHS, max_size=12))
@example(pattern="**/*.py", paths=["**/*.py", "a/b.py", "b.pyc", "x/.py"])
@example(pattern="\\*.py", paths=["\\*.py", "*.py", "a/\\*.py"])
@example(pattern="src/**/[ab].py", paths=["src/[ab].py", "src/a.py", "lib/a.py", "src/x/y/b.py"])
@example(pattern="a[b/c]d/x", paths=["a[b/c]d/x", "ab/x", "a/cd/x"])
@example(pattern="**", paths=["a", "a/b/c"])
@example(pattern="?.py", paths=["é.py", "a.py", "x/\udcff.py"])  # "?" is one byte, not one character
def test_walk_tests_answer_as_matches(pattern, paths):
    glob = compile_glob(pattern)
    file_test, enter = glob.walk_tests()
    for path in [*paths, *_spellings(pattern)]:
        directory, _, name = path.rpartition("/")
        matched = glob.matches(path)
        assert file_test(f"{directory}/" if directory else "", name) == matched, path
        if matched and enter is not None:
            parts = path.split("/")
            for depth in range(1, len(parts)):
                # A directory on the way to a match is always entered.
                assert enter("/".join(parts[:depth])), (path, depth)


@pytest.mark.parametrize(
    ("pattern", "entered", "skipped"),
    [
        ("src/**/*.py", ["src", "src/a", "src/a/b"], ["lib", "srcx", "lib/src"]),
        ("a/*/c.txt", ["a", "a/b"], ["b", "a/b/c"]),
        ("{src,lib}/x.py", ["src", "lib"], ["doc", "src/x"]),
        ("[st]rc/*.py", ["src", "trc"], ["arc", "src/a"]),
        ("docs/\\*/*.md", ["docs", "docs/*"], ["docs/a"]),
    ],
)
def test_a_directory_the_glob_cannot_match_below_is_not_entered(pattern, entered, skipped):
    _, enter = compile_glob(pattern).walk_tests()
    assert enter is not None
    assert [d for d in entered if not enter(d)] == []
    assert [d for d in skipped if enter(d)] == []


@pytest.mark.parametrize("pattern", ["*.py", "**/*.py", "**", "{src/*.py,*.md}", "a[b/c]d/x"])
def test_a_glob_that_can_match_at_any_depth_prunes_nothing(pattern):
    # (a class spanning "/" is read by git only as a whole: no segment is read alone)
    assert compile_glob(pattern).walk_tests()[1] is None
