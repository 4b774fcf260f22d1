"""Every file tool resolves a path (symlinks, ``~``, ``file://``) before any I/O and refuses to leave the root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ESCAPES = [
    "../outside.txt",
    "sub/../../outside.txt",
    "/etc/passwd",
    "link_out/outside.txt",
    "dangling_out",
    "dangling_out/child.txt",
    "~/.bashrc",
    "file:///etc/passwd",
    "file://localhost/etc/hostname",
    "file://example.com/x",
]


@pytest.fixture
def escaping(workspace, tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "outside.txt").write_text("secret\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    (workspace.root / "sub").mkdir()
    os.symlink(outside, workspace.root / "link_out")
    os.symlink(tmp_path / "nowhere" / "file", workspace.root / "dangling_out")
    return workspace, tmp_path


def _snapshot(directory: Path) -> dict[str, bytes | None]:
    return {
        str(p): (p.read_bytes() if p.is_file() and not p.is_symlink() else None)
        for p in sorted(directory.rglob("*"))
    }


@pytest.mark.parametrize("path", ESCAPES)
@pytest.mark.parametrize(
    "tool, extra",
    [
        ("read_file", {}),
        ("write_file", {"content": "pwned"}),
        ("edit_file", {"edits": [{"old_string": "secret", "new_string": "pwned"}]}),
        ("list_files", {}),
        ("find_files", {"pattern": "**"}),
    ],
)
def test_every_escape_is_refused_and_touches_nothing(escaping, tool, extra, path):
    workspace, tmp_path = escaping
    if tool not in workspace.tools:
        pytest.skip(f"{tool} not registered yet")
    before = _snapshot(tmp_path)
    if tool == "find_files":
        result = workspace.call(tool, path=path, **extra)
    else:
        result = workspace.call(tool, path=path, **extra)
    assert not result.ok
    assert result.error == "path_not_allowed", result.detail
    assert _snapshot(tmp_path) == before
    assert not (tmp_path / "nowhere").exists()


def test_spellings_that_stay_inside_are_allowed(workspace):
    workspace.write("a/b.txt", "hello\n")
    os.symlink(workspace.root / "a", workspace.root / "link_in")
    for spelling in [
        "a/b.txt",
        "./a/b.txt",
        "a/../a/b.txt",
        "link_in/b.txt",
        str(workspace.root / "a/b.txt"),
        (workspace.root / "a/b.txt").as_uri(),
    ]:
        result = workspace.call("read_file", path=spelling)
        assert result.ok, (spelling, result.detail)
        assert "hello" in result.data["content"]


def test_home_expansion_is_allowed_when_home_is_the_root(workspace, monkeypatch):
    monkeypatch.setenv("HOME", str(workspace.root))
    workspace.write("notes.txt", "inside\n")
    assert workspace.call("read_file", path="~/notes.txt").ok


@pytest.fixture
def without_descriptors(monkeypatch):
    """The platform without dir_fd and O_NOFOLLOW (Windows): paths are walked as strings."""
    from agentkit.plugin_api.workspace import _directory as directory

    monkeypatch.setattr(directory, "DESCRIPTORS", False)


@pytest.mark.parametrize("path", ESCAPES)
def test_without_descriptors_escapes_are_still_refused(escaping, without_descriptors, path):
    workspace, tmp_path = escaping
    before = _snapshot(tmp_path)
    for tool, extra in [
        ("read_file", {}),
        ("write_file", {"content": "pwned"}),
        ("list_files", {}),
    ]:
        result = workspace.call(tool, path=path, **extra)
        assert result.error == "path_not_allowed", (tool, result.detail)
        assert result.metadata["containment"] == "best-effort"
    assert _snapshot(tmp_path) == before


def test_without_descriptors_the_tools_work_and_say_containment_is_best_effort(
    workspace, without_descriptors
):
    os.symlink("a", workspace.root / "link_in")
    assert workspace.call("write_file", path="a/b.txt", content="hello\n").ok
    assert workspace.call(
        "edit_file", path="link_in/b.txt", edits=[{"old_string": "hello", "new_string": "hi"}]
    ).ok
    read = workspace.call("read_file", path="link_in/b.txt")
    assert read.data["content"] == "     1\thi" and read.metadata["containment"] == "best-effort"
    assert workspace.call("list_files", path="a").data["entries"] == ["b.txt"]
    assert workspace.call("find_files", pattern="*.txt").data["files"] == ["a/b.txt"]


def test_with_descriptors_results_carry_no_containment_note(workspace):
    workspace.write("a.txt", "x\n")
    assert "containment" not in workspace.call("read_file", path="a.txt").metadata
