"""list_files and find_files: ignore rules honoured, the glob dialect, caps and the notice that continues."""

from __future__ import annotations

import re
import subprocess

import pytest


@pytest.fixture
def project(workspace):
    subprocess.run(["git", "init", "-q"], cwd=workspace.root, check=True)
    workspace.write(".gitignore", "build/\nnode_modules/\n*.log\n")
    for name in [
        "src/app.py",
        "src/util.py",
        "src/ui/view.tsx",
        "src/ui/view.ts",
        "src/ui/style.css",
        "tests/test_app.py",
        "README.md",
        "debug.log",
        ".env",
        "build/out.py",
        "node_modules/pkg/index.js",
        "vendor/lib/build/keep.py",
        "vendor/lib/a.py",
        "docs/a1.md",
        "docs/ab.md",
        "docs/b1.md",
    ]:
        workspace.write(name, "x\n")
    subprocess.run(["git", "init", "-q"], cwd=workspace.root / "vendor" / "lib", check=True)
    return workspace


def test_list_files_skips_ignored_entries_and_marks_directories(project):
    result = project.call("list_files", path=".")
    assert result.ok
    assert result.data == {
        "entries": [".env", ".gitignore", "README.md", "docs/", "src/", "tests/", "vendor/"],
        "truncated": False,
    }


def test_a_vendored_repository_keeps_its_build_directory(project):
    assert project.call("list_files", path="vendor/lib").data["entries"] == ["a.py", "build/"]
    found = project.call("find_files", pattern="**/*.py").data["files"]
    assert found == [
        "src/app.py",
        "src/util.py",
        "tests/test_app.py",
        "vendor/lib/a.py",
        "vendor/lib/build/keep.py",
    ]


@pytest.mark.parametrize(
    "pattern, path, expected",
    [
        (
            "*.py",
            ".",
            [
                "src/app.py",
                "src/util.py",
                "tests/test_app.py",
                "vendor/lib/a.py",
                "vendor/lib/build/keep.py",
            ],
        ),
        ("src/**/*.{ts,tsx}", ".", ["src/ui/view.ts", "src/ui/view.tsx"]),
        ("**/view.ts{,x}", ".", ["src/ui/view.ts", "src/ui/view.tsx"]),
        ("[!a]*.md", "docs", ["docs/b1.md"]),
        ("[a-b]?.md", "docs", ["docs/a1.md", "docs/ab.md", "docs/b1.md"]),
        ("a[!0-9].md", "docs", ["docs/ab.md"]),
        ("ui/*", "src", ["src/ui/style.css", "src/ui/view.ts", "src/ui/view.tsx"]),
        ("src/*.py", ".", ["src/app.py", "src/util.py"]),
        ("**", "src/ui", ["src/ui/style.css", "src/ui/view.ts", "src/ui/view.tsx"]),
        (".env", ".", [".env"]),
        ("*.log", ".", []),
    ],
)
def test_find_files_glob_dialect(project, pattern, path, expected):
    result = project.call("find_files", pattern=pattern, path=path)
    assert result.ok, result.detail
    assert result.data["files"] == expected


def test_find_directories(project):
    result = project.call("find_files", pattern="u*", file_type="directory")
    assert result.data["files"] == ["src/ui/"]


def test_an_ignored_directory_named_explicitly_is_listed(project):
    assert project.call("list_files", path="node_modules").data["entries"] == ["pkg/"]


def test_find_and_list_refuse_files_and_missing_paths(project):
    assert project.call("list_files", path="README.md").error == "not_a_directory"
    assert project.call("find_files", pattern="*", path="nope").error == "not_found"


def _continue(workspace, tool, arguments, result, key):
    """Follow the notice's offset until the listing is complete."""
    seen = list(result.data[key])
    while result.data["truncated"]:
        offset = int(re.search(r"Use offset=(\d+) to continue", result.data["notice"]).group(1))
        result = workspace.call(tool, **{**arguments, "offset": offset})
        assert result.ok, result.detail
        seen.extend(result.data[key])
    return seen


def test_list_cap_and_notice_continue_exactly(workspace):
    for n in range(1234):
        workspace.write(f"many/f{n:04d}.txt", "")
    result = workspace.call("list_files", path="many")
    assert len(result.data["entries"]) == 500
    assert result.data["notice"] == "[Showing entries 1-500 of 1234. Use offset=501 to continue.]"
    assert _continue(workspace, "list_files", {"path": "many"}, result, "entries") == [
        f"f{n:04d}.txt" for n in range(1234)
    ]


def test_find_byte_cap_and_notice_continue_exactly(workspace):
    names = [f"d/{'x' * 200}{n:04d}.txt" for n in range(400)]
    for name in names:
        workspace.write(name, "")
    result = workspace.call("find_files", pattern="*.txt")
    assert len("\n".join(result.data["files"]).encode()) <= 50 * 1024
    assert "(50 KB limit). Use offset=" in result.data["notice"]
    assert _continue(workspace, "find_files", {"pattern": "*.txt"}, result, "files") == names


def test_limit_argument_pages(workspace):
    for n in range(5):
        workspace.write(f"f{n}.txt", "")
    result = workspace.call("find_files", pattern="*.txt", limit=2)
    assert result.data["files"] == ["f0.txt", "f1.txt"]
    assert _continue(
        workspace, "find_files", {"pattern": "*.txt", "limit": 2}, result, "files"
    ) == [f"f{n}.txt" for n in range(5)]
