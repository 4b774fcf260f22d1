"""edit_file changes only what the model named: a BOM as the file shows it, folds that keep
characters the same, and hard links kept."""

from __future__ import annotations

import os
import sys
import unicodedata

import pytest


def _edit(workspace, path, *pairs):
    return workspace.call(
        "edit_file", path=path, edits=[{"old_string": o, "new_string": n} for o, n in pairs]
    )


@pytest.mark.parametrize(
    "old, new",
    [
        ("\ufeffhello", "\ufeffhi"),  # copied with the BOM, as a raw view of the file shows it
        ("\ufeffhello", "hi"),
        ("hello", "hi"),  # as read_file shows it
    ],
)
def test_a_bom_in_old_string_matches_the_start_and_the_bom_is_kept(workspace, old, new):
    path = workspace.write("bom.txt", "\ufeffhello\nworld\n")
    result = _edit(workspace, "bom.txt", (old, new))
    assert result.ok, result.detail
    assert path.read_bytes() == "\ufeffhi\nworld\n".encode()


def test_a_bom_in_old_string_matches_only_where_the_file_shows_one(workspace):
    path = workspace.write("bom.txt", "\ufeffx = 1\ny = 2\nx = 1\n")
    # Without the BOM "x = 1" is twice in the file; with it, once: at the start.
    result = _edit(workspace, "bom.txt", ("\ufeffx = 1", "x = 3"))
    assert result.ok, result.detail
    assert path.read_bytes() == "\ufeffx = 3\ny = 2\nx = 1\n".encode()
    plain = workspace.write("plain.txt", "hello\n")
    refused = _edit(workspace, "plain.txt", ("\ufeffhello", "hi"))
    assert refused.error == "not_found" and plain.read_text() == "hello\n"


@pytest.mark.parametrize(
    "content, old",
    [
        ("x = r²\n", "x = r2"),  # NFKC made the superscript a digit
        ("size = 5 ㎏\n", "size = 5 kg"),
        ("ﬁle = 1\n", "file = 1"),  # a ligature
        ("value = ½\n", "value = 1\u20442"),
        ("a — b\n", "a - b"),  # an em dash is not a hyphen
        ("a\u00a0b = 1\n", "a b = 1"),  # a no-break space is not a space
        ("wait…\n", "wait..."),
    ],
)
def test_the_fold_never_equates_different_characters(workspace, content, old):
    path = workspace.write("f.txt", content)
    result = _edit(workspace, "f.txt", (old, "changed"))
    assert result.error == "not_found", result
    assert path.read_text() == content


@pytest.mark.parametrize(
    "content, old",
    [
        (unicodedata.normalize("NFD", "café = 1\n"), unicodedata.normalize("NFC", "café = 1")),
        (unicodedata.normalize("NFC", "café = 1\n"), unicodedata.normalize("NFD", "café = 1")),
        ("say = \u2018hi\u2019  \n", "say = 'hi'"),  # curly quotes and trailing spaces, as before
        ("say = \u201chi\u201d\n", 'say = "hi"'),
    ],
)
def test_the_fold_keeps_equal_characters_equal(workspace, content, old):
    path = workspace.write("f.txt", content + "other = 2\n")
    result = _edit(workspace, "f.txt", (old, "changed = 1"))
    assert result.ok and result.metadata["match"] == "folded", result
    assert path.read_text() == "changed = 1\nother = 2\n"


@pytest.mark.skipif(sys.platform == "win32", reason="hard links as POSIX has them")
@pytest.mark.parametrize("tool", ["edit_file", "write_file"])
def test_a_hard_linked_file_is_changed_in_place_for_every_link(workspace, tool):
    path = workspace.write("a.txt", "alpha\nbeta\n")
    os.chmod(path, 0o640)
    other = workspace.root / "b.txt"
    os.link(path, other)
    inode = path.stat().st_ino
    if tool == "edit_file":
        result = _edit(workspace, "a.txt", ("beta", "gamma"))
    else:
        result = workspace.call("write_file", path="a.txt", content="alpha\ngamma\n")
    assert result.ok, result.detail
    assert result.metadata["write"] == "in_place"
    assert path.stat().st_ino == inode and path.stat().st_nlink == 2
    assert other.read_text() == "alpha\ngamma\n"
    assert path.stat().st_mode & 0o777 == 0o640


def test_a_file_with_one_link_is_still_replaced_atomically(workspace):
    path = workspace.write("a.txt", "alpha\n")
    inode = path.stat().st_ino
    result = _edit(workspace, "a.txt", ("alpha", "beta"))
    assert result.ok and result.metadata["write"] == "replaced"
    assert path.read_text() == "beta\n" and path.stat().st_ino != inode
