"""The glob dialect on its own: braces, classes, ``**`` segments, escapes."""

from __future__ import annotations

import pytest

from agentkit.plugin_api import ToolError
from agentkit.plugin_api.workspace import compile_glob, expand_braces


@pytest.mark.parametrize(
    "pattern, path, expected",
    [
        ("*.py", "a/b/c.py", True),
        ("*.py", "c.pyc", False),
        ("a/*.py", "a/b/c.py", False),
        ("a/**/*.py", "a/c.py", True),
        ("a/**/*.py", "a/b/c/d.py", True),
        ("a/**", "a/b/c", True),
        ("a/**", "a", False),
        ("**/b", "b", True),
        ("x**y", "xay", True),
        ("x**y", "xa/y", False),
        ("?.md", "a.md", True),
        ("?.md", "ab.md", False),
        ("[!a]*", "b", True),
        ("[!a]*", "a", False),
        ("[^a]*", "a", False),
        ("[a-c]", "b", True),
        ("[]]", "]", True),
        ("[x", "[x", True),
        ("\\*.py", "*.py", True),
        ("\\*.py", "a.py", False),
        ("*.{js,jsx,ts{,x}}", "a.tsx", True),
        ("*.{js,jsx,ts{,x}}", "a.t", False),
        ("{src,lib}/**/*.c", "lib/x/y.c", True),
        ("{src,lib}/**/*.c", "bin/y.c", False),
        ("{*.md,docs/*}", "deep/readme.md", True),
        ("./src/*.c", "src/a.c", True),
        ("./c.py", "c.py", True),
        ("./c.py", "a/c.py", False),
        ("src**", "src/a/b.c", False),
        ("src**", "srcx.c", True),
        ("[x", "b/[x", True),
        ("*", ".hidden", True),
    ],
)
def test_glob(pattern, path, expected):
    assert compile_glob(pattern).matches(path) is expected


def test_brace_expansion_keeps_braces_without_commas():
    assert expand_braces("a{b}c") == ["a{b}c"]
    assert expand_braces("a{b,{c,d}}e") == ["abe", "ace", "ade"]


def test_brace_bombs_and_empty_globs_are_refused():
    with pytest.raises(ToolError):
        compile_glob("{a,b}" * 12)
    with pytest.raises(ToolError):
        compile_glob("  ")
