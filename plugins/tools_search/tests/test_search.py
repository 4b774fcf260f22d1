"""search_files behaviour; every test runs on the native backend and on ripgrep."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest


@pytest.fixture
def project(workspace):
    subprocess.run(["git", "init", "-q"], cwd=workspace.root, check=True)
    workspace.write(".gitignore", "node_modules/\n*.min.js\n")
    workspace.write("src/app.py", "import os\n\ndef handler():\n    return TODO\n")
    workspace.write("src/util.py", "# todo: later\nx = 1\n")
    workspace.write("node_modules/pkg/index.js", "TODO in a dependency\n")
    workspace.write("dist/app.min.js", "TODO minified\n")
    workspace.write("assets/logo.bin", b"\x89\x00TODO binary\n")
    workspace.write("late.bin", b"TODO\n" + b"x" * 20000 + b"\x00")
    workspace.write(".hidden/notes.md", "todo hidden but not ignored\n")
    return workspace


def test_search_skips_ignored_and_binary_files(project, backend):
    result = backend(project, pattern="todo")
    assert result.ok, result.detail
    assert [(m["file"], m["line"]) for m in result.data["matches"]] == [
        (".hidden/notes.md", 1),
        ("src/app.py", 4),
        ("src/util.py", 1),
    ]
    # .gitignore, .hidden/notes.md, src/app.py, src/util.py and the two binary files (scanned
    # for their NUL, never shown): every file scanned, matched or not.
    assert result.data["files_searched"] == 6
    assert result.data["truncated"] is False


def test_smart_case_and_explicit_case(project, backend):
    upper = backend(project, pattern="TODO").data["matches"]
    assert [(m["file"], m["line"]) for m in upper] == [("src/app.py", 4)]
    insensitive = backend(project, pattern="TODO", case_sensitive=False).data["matches"]
    assert len(insensitive) == 3
    sensitive = backend(project, pattern="todo", case_sensitive=True).data["matches"]
    assert [(m["file"], m["line"]) for m in sensitive] == [
        (".hidden/notes.md", 1),
        ("src/util.py", 1),
    ]
    # The W of the escape \W is not an uppercase letter: still case-insensitive.
    escaped = backend(project, pattern=r"\Wtodo").data["matches"]
    assert [(m["file"], m["line"]) for m in escaped] == [("src/app.py", 4), ("src/util.py", 1)]


def test_context_lines_of_adjacent_matches_each_keep_the_other(workspace, backend):
    workspace.write("f.txt", "a\nhit 1\nhit 2\nb\nc\nd\nhit 3\n")
    matches = backend(workspace, pattern="hit", context_lines=2).data["matches"]
    assert matches == [
        {"file": "f.txt", "line": 2, "text": "hit 1", "before": ["a"], "after": ["hit 2", "b"]},
        {
            "file": "f.txt",
            "line": 3,
            "text": "hit 2",
            "before": ["a", "hit 1"],
            "after": ["b", "c"],
        },
        {"file": "f.txt", "line": 7, "text": "hit 3", "before": ["c", "d"], "after": []},
    ]


def test_file_glob_uses_our_dialect(workspace, backend):
    for name in ["src/a.ts", "src/b.tsx", "src/c.js", "lib/d.ts", "src/deep/e.ts", "[x].ts"]:
        workspace.write(name, "needle\n")

    def found(glob):
        return [
            m["file"] for m in backend(workspace, pattern="needle", file_glob=glob).data["matches"]
        ]

    assert found("src/**/*.{ts,tsx}") == ["src/a.ts", "src/b.tsx", "src/deep/e.ts"]
    assert found("*.ts") == ["[x].ts", "lib/d.ts", "src/a.ts", "src/deep/e.ts"]
    assert found("[!ab].*") == ["lib/d.ts", "src/c.js", "src/deep/e.ts"]
    assert found("\\[x\\].ts") == ["[x].ts"]


def test_crlf_and_long_lines(workspace, backend):
    workspace.write("w.txt", "first\r\nneedle here\r\nlast\r\n")
    workspace.write("long.txt", "needle " + "z" * 900 + "\n")
    matches = backend(workspace, pattern="needle", context_lines=1).data["matches"]
    assert matches[0]["text"].startswith(
        "needle " + "z" * 493 + "… [line clipped at 500 characters"
    )
    assert 'read_file(path="long.txt", offset=1, limit=1)' in matches[0]["text"]
    assert matches[1] == {
        "file": "w.txt",
        "line": 2,
        "text": "needle here",
        "before": ["first"],
        "after": ["last"],
    }


def test_truncation_notice_continues_exactly(workspace, backend):
    for n in range(7):
        workspace.write(f"f{n}.txt", "".join(f"match {n}.{k}\n" for k in range(40)))
    first = backend(workspace, pattern="match")
    assert len(first.data["matches"]) == 100 and first.data["truncated"]
    # Scanning stops after the file that went past the page: f0..f2 (120 matches).
    assert first.data["files_searched"] == 3
    seen = [m["text"] for m in first.data["matches"]]
    result = first
    while result.data["truncated"]:
        offset = int(re.search(r"Use offset=(\d+) to continue", result.data["notice"]).group(1))
        result = backend(workspace, pattern="match", offset=offset)
        seen += [m["text"] for m in result.data["matches"]]
    assert seen == [f"match {n}.{k}" for n in range(7) for k in range(40)]
    assert result.data["files_searched"] == 7


def test_max_matches_pages(workspace, backend):
    workspace.write("f.txt", "x\n" * 5)
    result = backend(workspace, pattern="x", max_matches=2)
    assert [m["line"] for m in result.data["matches"]] == [1, 2]
    assert "Use offset=3 to continue" in result.data["notice"]


def test_byte_cap(workspace, backend):
    workspace.write("wide.txt", "".join(f"{n:03d} " + "w" * 480 + "\n" for n in range(100)))
    result = backend(workspace, pattern="w+", context_lines=2)
    assert result.data["truncated"] and "(50 KB limit)" in result.data["notice"]
    assert result.metadata["truncated_by"] == "bytes"


def test_errors_are_results(workspace, backend):
    assert backend(workspace, pattern="(unclosed").error == "invalid_pattern"
    assert backend(workspace, pattern="x", path="../..").error == "path_not_allowed"
    assert backend(workspace, pattern="x", path="nope").error == "not_found"


def test_searching_one_file(workspace, backend):
    workspace.write("a/one.txt", "x\ny x\n")
    assert [
        m["line"] for m in backend(workspace, pattern="x", path="a/one.txt").data["matches"]
    ] == [1, 2]


def test_symlinks_are_not_followed_out(workspace, backend, tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("password\n")
    (workspace.root / "link.txt").symlink_to(outside)
    assert backend(workspace, pattern="password").data["matches"] == []


def test_auto_uses_rg_on_path_and_native_without_it(workspace, rg, monkeypatch, tmp_path):
    from pathlib import Path

    workspace.write("f.txt", "needle\n")
    monkeypatch.setenv("PATH", str(Path(rg).parent))
    assert workspace.search("auto", pattern="needle").metadata["backend"] == "rg"
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = workspace.search("auto", pattern="needle")
    assert result.metadata["backend"] == "native"
    assert [m["file"] for m in result.data["matches"]] == ["f.txt"]


def test_a_file_name_that_is_not_utf8(workspace, backend):
    import os

    name = os.fsdecode(b"caf\xe9.txt")
    (workspace.root / name).write_text("needle\n")
    result = backend(workspace, pattern="needle")
    assert [m["file"] for m in result.data["matches"]] == [name]
    assert result.metadata["backend"] in ("rg", "native")


def test_a_relative_rg_path_and_an_rg_that_will_not_run(workspace, rg, tmp_path, monkeypatch):
    import os
    from pathlib import Path

    workspace.write("f.txt", "needle\n")
    monkeypatch.chdir(Path(rg).parent)
    assert (
        workspace.search("rg", os.path.basename(rg), pattern="needle").metadata["backend"] == "rg"
    )
    broken = tmp_path / "rg"
    broken.write_text("not a program")  # not executable: it cannot start
    result = workspace.search("rg", str(broken), pattern="needle")
    assert result.ok and result.metadata["backend"].startswith("native (rg failed")
    assert [m["file"] for m in result.data["matches"]] == ["f.txt"]


def test_a_fifo_in_the_tree_is_not_opened(workspace, backend):
    import os

    workspace.write("f.txt", "needle\n")
    os.mkfifo(workspace.root / "pipe")
    result = backend(workspace, pattern="needle")
    assert [m["file"] for m in result.data["matches"]] == ["f.txt"]
    assert result.data["files_searched"] == 1
    assert backend(workspace, pattern="needle", path="pipe").data["files_searched"] == 0


@pytest.mark.parametrize(
    "path", ["..", "../outside", "/etc", "link_out", "dangling_out", "~", "file:///etc"]
)
def test_search_paths_stay_inside_the_root(workspace, backend, tmp_path, path):
    import os

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("needle\n")
    os.symlink(outside, workspace.root / "link_out")
    os.symlink(tmp_path / "nowhere", workspace.root / "dangling_out")
    result = backend(workspace, pattern="needle", path=path)
    assert result.error == "path_not_allowed", result


def test_a_match_bigger_than_the_byte_cap_still_advances(workspace, backend):
    noisy = "\x01" * 600  # each becomes six bytes of JSON escape
    workspace.write("n.txt", "".join(f"hit {noisy}\n" for _ in range(30)))
    result = backend(workspace, pattern="hit", context_lines=20)
    assert len(result.data["matches"]) == 1
    assert "Use offset=2 to continue" in result.data["notice"]
    assert [
        m["line"]
        for m in backend(workspace, pattern="hit", context_lines=20, offset=2).data["matches"]
    ] == [2]


@pytest.mark.skipif(sys.platform == "win32", reason="the counting wrapper is a shell script")
def test_rg_never_prints_a_binary_files_lines(workspace, rg, tmp_path):
    """Binary detection costs nothing in ripgrep's output: what it prints for a large binary
    file that does not match is nothing at all."""
    import stat

    log = tmp_path / "printed.log"
    wrapper = tmp_path / "rg-counting"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'"{rg}" "$@" > "{tmp_path}/out.$$"; code=$?\n'
        f'cat "{tmp_path}/out.$$"; wc -c < "{tmp_path}/out.$$" >> "{log}"; rm "{tmp_path}/out.$$"\n'
        "exit $code\n"
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    workspace.write("blob.bin", b"record \x00 with a NUL on every line\n" * 50_000)
    workspace.write("text.txt", b"plain text\n")
    result = workspace.search("rg", str(wrapper), pattern="absent")
    assert result.ok and result.data["matches"] == []
    printed = sum(int(n) for n in log.read_text().split())
    assert printed < 5_000, printed  # the summary line, not 1.7 MB of binary lines
