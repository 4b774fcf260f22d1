"""The ignore engine agrees with real git on random trees and rule files.

Oracle: ``git check-ignore --no-index --stdin -z`` for every path's verdict and
``git ls-files -o [-i] --exclude-standard`` for what a walk keeps and drops,
run in a temporary repository with a temporary HOME (global excludes through
``core.excludesFile``, ``$XDG_CONFIG_HOME/git/ignore`` or ``~/.config/git/ignore``),
``.git/info/exclude``, ``.gitignore`` files at several levels and a nested
repository with rules of its own.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from agentkit.plugin_api.workspace import IgnoreEngine

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

NAMES = [
    "a",
    "b",
    "ab",
    "a.py",
    "b.txt",
    ".hidden",
    "build",
    "x y",
    "c[1]",
    "d#",
    "node_modules",
    "Ab",
]
DIRS = ["a", "b", "build", "src", ".cache", "node_modules", "lib", "x y"]


def _segment(rng: random.Random) -> str:
    choice = rng.random()
    if choice < 0.45:
        name = rng.choice(NAMES + DIRS)
        return name.replace("[", "\\[").replace("#", "\\#") if rng.random() < 0.8 else name
    return rng.choice(
        [
            "*.py",
            "?",
            "a*",
            "[ab]",
            "[!a]*",
            "**",
            "*.[pt]*",
            "b?",
            "[a-c]*",
            "*[[:digit:]]*",
            "*.txt",
            "x\\ y",
            "[!.]*",
            # The wildmatch corners the glob dialect shares: "**" that is not a whole
            # segment, escaped range bounds, POSIX names.
            "a**",
            "**b",
            "[\\a-\\c]*",
            "[[:upper:]]*",
            "*[[:alpha:]]",
        ]
    )


def _pattern(rng: random.Random) -> str:
    segments = [_segment(rng) for _ in range(rng.choice([1, 1, 1, 2, 2, 3]))]
    pattern = "/".join(segments)
    if rng.random() < 0.2:
        pattern = "/" + pattern
    if rng.random() < 0.25:
        pattern += "/"
    if rng.random() < 0.3:
        pattern = "!" + pattern
    if rng.random() < 0.05:
        pattern += "  "
    return pattern


def _rules(rng: random.Random, count: int) -> str:
    lines = [_pattern(rng) for _ in range(count)]
    if rng.random() < 0.3:
        lines.insert(0, "# a comment")
    if rng.random() < 0.2:
        lines.append("")
    return "\n".join(lines) + "\n"


def _tree(rng: random.Random, directory: Path, depth: int) -> None:
    for name in rng.sample(NAMES, rng.randint(2, 5)):
        (directory / name).write_text("x\n")
    if depth == 0:
        return
    for name in rng.sample(DIRS, rng.randint(1, 3)):
        child = directory / name
        if child.exists():
            continue
        child.mkdir()
        _tree(rng, child, depth - 1)


def _git(cwd: Path, env: dict, *args: str, stdin: str | None = None) -> str:
    completed = subprocess.run(
        ["git", *args], cwd=cwd, env=env, input=stdin, capture_output=True, text=True
    )
    if completed.returncode not in (0, 1):
        raise AssertionError(f"git {' '.join(args)} failed: {completed.stderr}")
    return completed.stdout


def _all_paths(root: Path, base: Path) -> list[str]:
    paths = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(base)
        if ".git" in relative.parts:
            continue
        paths.append(relative.as_posix())
    return paths


def _build(tmp_path: Path, seed: int) -> tuple[Path, dict, Path | None]:
    rng = random.Random(seed)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": "/usr/bin:/bin",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
    }
    where = seed % 3
    if where == 0:
        (home / ".gitconfig").write_text("[core]\n\texcludesFile = ~/global-ignore\n")
        (home / "global-ignore").write_text(_rules(rng, 3))
    elif where == 1:
        xdg = tmp_path / "xdg"
        env["XDG_CONFIG_HOME"] = str(xdg)
        (xdg / "git").mkdir(parents=True)
        (xdg / "git" / "ignore").write_text(_rules(rng, 3))
    else:
        (home / ".config" / "git").mkdir(parents=True)
        (home / ".config" / "git" / "ignore").write_text(_rules(rng, 3))
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, env, "init", "-q")
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text(_rules(rng, 2))
    _tree(rng, root, 3)
    directories = [p for p in root.rglob("*") if p.is_dir() and ".git" not in p.parts]
    for directory in [root, *rng.sample(directories, min(len(directories), 3))]:
        (directory / ".gitignore").write_text(_rules(rng, rng.randint(2, 6)))
    nested = None
    if seed % 2 == 0 and directories:
        nested = rng.choice(directories)
        _git(nested, env, "init", "-q")
        (nested / ".gitignore").write_text(_rules(rng, 3))
        (nested / "inner.py").write_text("x\n")
    return root, env, nested


def _walk_files(engine: IgnoreEngine) -> set[str]:
    return {entry.path for entry in engine.walk(include_dirs=False)}


@pytest.mark.parametrize("seed", range(60))
def test_verdicts_and_walk_agree_with_git(tmp_path: Path, seed: int):
    root, env, nested = _build(tmp_path, seed)
    engine = IgnoreEngine(root, env=env)
    nested_prefix = nested.relative_to(root).as_posix() + "/" if nested else None
    outer_paths = [
        p for p in _all_paths(root, root) if not (nested_prefix and p.startswith(nested_prefix))
    ]
    git_ignored = set(
        _git(
            root,
            env,
            "check-ignore",
            "--no-index",
            "--stdin",
            "-z",
            stdin="\0".join(outer_paths) + "\0",
        ).split("\0")
    ) - {""}
    ours = {p for p in outer_paths if engine.is_ignored(p)}
    assert ours == git_ignored, (seed, sorted(ours ^ git_ignored))

    listed = set(_git(root, env, "ls-files", "-z", "-o", "--exclude-standard").split("\0")) - {""}
    dropped = set(
        _git(root, env, "ls-files", "-z", "-o", "-i", "--exclude-standard").split("\0")
    ) - {""}
    walked = _walk_files(engine)
    if nested is not None and f"{nested_prefix}" in listed:
        # git shows the nested repository as one entry; its own ls-files says what is inside.
        listed.discard(nested_prefix)
        inner = set(_git(nested, env, "ls-files", "-z", "-o", "--exclude-standard").split("\0")) - {
            ""
        }
        listed |= {nested_prefix + p for p in inner}
        inner_paths = [
            p.relative_to(nested).as_posix()
            for p in sorted(nested.rglob("*"))
            if ".git" not in p.relative_to(nested).parts
        ]
        inner_ignored = set(
            _git(
                nested,
                env,
                "check-ignore",
                "--no-index",
                "--stdin",
                "-z",
                stdin="\0".join(inner_paths) + "\0",
            ).split("\0")
        ) - {""}
        ours_inner = {p for p in inner_paths if engine.is_ignored(nested_prefix + p)}
        assert ours_inner == inner_ignored, (seed, sorted(ours_inner ^ inner_ignored))
    assert walked == listed, (seed, sorted(walked ^ listed))
    all_files = {p for p in _all_paths(root, root) if (root / p).is_file()}
    outer_files = {p for p in all_files if not (nested_prefix and p.startswith(nested_prefix))}
    assert outer_files - walked == dropped - {
        p for p in dropped if nested_prefix and p.startswith(nested_prefix)
    }


# -- rule files git reads in its own way -------------------------------------------


def _repo(tmp_path: Path) -> tuple[Path, dict]:
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"}
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, env, "init", "-q")
    return root, env


def _git_bytes(cwd: Path, env: dict, *args: str) -> set[bytes]:
    completed = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=True)
    return set(completed.stdout.split(b"\0")) - {b""}


def _agree_with_git(root: Path, env: dict) -> set[bytes]:
    """Assert the walk keeps exactly what ``git ls-files -o --exclude-standard`` lists."""
    listed = _git_bytes(root, env, "ls-files", "-z", "-o", "--exclude-standard")
    walked = {
        os.fsencode(entry.path) for entry in IgnoreEngine(root, env=env).walk(include_dirs=False)
    }
    assert walked == listed, sorted(walked ^ listed)
    return walked


def test_a_gitignore_that_is_a_symlink_is_not_followed(tmp_path: Path):
    root, env = _repo(tmp_path)
    outside = tmp_path / "outside-rules"
    outside.write_text("*\n")
    (root / "sub").mkdir()
    for name in ("a.txt", "b.log", "sub/c.txt", "sub/d.log"):
        (root / name).write_text("x\n")
    os.symlink(outside, root / ".gitignore")
    os.symlink(outside, root / "sub" / ".gitignore")
    (root / ".git" / "info" / "exclude").write_text("*.log\n")
    walked = _agree_with_git(root, env)
    assert b"a.txt" in walked and b"sub/c.txt" in walked
    assert IgnoreEngine(root, env=env).is_ignored("a.txt") is False


@pytest.mark.parametrize("where", ["repository", "global"])
def test_core_ignorecase_true_is_honoured(tmp_path: Path, where: str):
    root, env = _repo(tmp_path)
    if where == "repository":
        _git(root, env, "config", "core.ignorecase", "true")
    else:
        (Path(env["HOME"]) / ".gitconfig").write_text("[core]\n\tignoreCase = true\n")
    (root / "Build").mkdir()
    (root / "docs").mkdir()
    for name in ("a.LOG", "b.log", "Build/x.txt", "Bx", "cx", "docs/README", "keep.txt"):
        (root / name).write_text("x\n")
    (root / ".gitignore").write_text("*.log\nbuild/\n[a-b]x\n/DOCS/readme\n")
    walked = _agree_with_git(root, env)
    assert walked == {b".gitignore", b"cx", b"keep.txt"}


def test_patterns_match_bytes_that_are_not_utf8(tmp_path: Path):
    root, env = _repo(tmp_path)
    (root / "q").mkdir()
    names = [b"caf\xe9", b"caf\xc3\xa9", b"x.\xff", b"keep", b"q/cafe", b"q/caf\xc3\xa9"]
    for name in names:
        (root / os.fsdecode(name)).write_bytes(b"x\n")
    (root / ".gitignore").write_bytes(b"caf\xe9\n*.\xff\n")
    # One "?" is one byte, as in git: it matches "cafe" and not the two-byte "caf\xc3\xa9".
    (root / "q" / ".gitignore").write_bytes(b"caf?\n")
    walked = _agree_with_git(root, env)
    assert b"caf\xe9" not in walked and b"caf\xc3\xa9" in walked and b"q/caf\xc3\xa9" in walked
