"""One regex dialect, ripgrep's, on both backends: the cases where Python's re reads otherwise.

Each case runs on the native and the rg backend (the ``backend`` fixture) and
states what ripgrep answers; the differential test (``test_differential.py``)
compares both with ``rg`` itself over a corpus.
"""

from __future__ import annotations

import pytest

CASES = [
    # (file bytes, pattern, matching lines)
    (b"    return None\nreturn None\n", r"^[[:space:]]+return None$", [1]),
    (b"<div> x\ndivx\nxdiv\n", r"\<div\>", [1]),
    (b"xby\nxay\nxBy\n", r"x[a-z&&[^aeiou]]y", [1]),
    (b"caf\xe9\ncaf\xc3\xa9\n", r"caf.", [2]),
    (b"a\x1cb\na b\na\xc2\xa0b\n", r"a\sb", [2, 3]),
    (b"e\xcc\x81\nab_1\na-b\n", r"^\w+$", [1, 2]),
    (b"x\xffy\nx\xc3\xa9y\n", r"x[^a]y", [2]),
    (b"x\xffy\nxzy\n", r"x\Wy", []),
    (b"caf\xc3\xa9 ok\n", r"\bcaf\w\b", [1]),
    (b"abc\nABC\n", r"(?i)abc", [1, 2]),
    (b"ab\naB\n", r"a(?i:b)", [1, 2]),
    (b"a1\nab\n", r"a[[:^alpha:]]", [1]),
    (b"q\nr\n", r"[\x{71}]", [1]),
]


@pytest.mark.parametrize(("content", "pattern", "lines"), CASES)
def test_patterns_read_as_ripgrep_reads_them(workspace, backend, content, pattern, lines):
    workspace.write("f.txt", content)
    result = backend(workspace, pattern=pattern, case_sensitive=True)
    assert result.ok, result.detail
    assert [m["line"] for m in result.data["matches"]] == lines


def test_invalid_utf8_is_shown_replaced(workspace, backend):
    workspace.write("f.txt", b"caf\xe9 x\n")
    result = backend(workspace, pattern="x")
    assert result.data["matches"][0]["text"] == "caf\ufffd x"


@pytest.mark.parametrize(
    "pattern", [r"(?<=baz)bar", r"(a)\1", r"a\Z", "(unclosed", r"a\nb", "x{2,1}"]
)
def test_what_ripgrep_refuses_is_refused_on_both(workspace, backend, pattern):
    workspace.write("f.txt", "foobar\nbazbar\n")
    result = backend(workspace, pattern=pattern)
    assert result.error == "invalid_pattern"


def test_a_construct_only_ripgrep_matches_is_refused_natively_by_name(workspace, rg):
    workspace.write("f.txt", "alpha \u03b1\nlatin\n")
    native = workspace.search("native", pattern=r"\p{Greek}")
    assert native.error == "pattern_needs_rg"
    assert "\\p{Greek}" in native.detail and "install ripgrep" in native.detail
    ripgrep = workspace.search("rg", rg, pattern=r"\p{Greek}")
    assert [m["line"] for m in ripgrep.data["matches"]] == [1]
