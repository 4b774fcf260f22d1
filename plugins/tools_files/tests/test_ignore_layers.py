"""Named layering cases of the ignore engine, each also asked of real git."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from agentkit.plugin_api.workspace import IgnoreEngine

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin", **extra}


def _repo(path: Path, env: dict[str, str]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=path, env=env, check=True)
    return path


def _files(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n")


def _git_ignored(root: Path, env: dict[str, str], paths: list[str]) -> set[str]:
    out = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=root,
        env=env,
        input="\n".join(paths) + "\n",
        capture_output=True,
        text=True,
    ).stdout
    return set(out.split())


def _ours(root: Path, env: dict[str, str], paths: list[str]) -> set[str]:
    engine = IgnoreEngine(root, env=env)
    return {p for p in paths if engine.is_ignored(p)}


def test_global_excludes_resolution_order(tmp_path: Path):
    """core.excludesFile beats XDG, which beats ~/.config/git/ignore."""
    xdg = tmp_path / "xdg"
    env = _env(tmp_path, XDG_CONFIG_HOME=str(xdg))
    home = Path(env["HOME"])
    (xdg / "git").mkdir(parents=True)
    (xdg / "git" / "ignore").write_text("from_xdg\n")
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "ignore").write_text("from_home_config\n")
    root = _repo(tmp_path / "repo", env)
    paths = ["from_core", "from_xdg", "from_home_config"]
    _files(root, *paths)
    assert _ours(root, env, paths) == _git_ignored(root, env, paths) == {"from_xdg"}
    (home / ".gitconfig").write_text('[core]\n\texcludesFile = "~/my ignore"\n')
    (home / "my ignore").write_text("from_core\n")
    assert _ours(root, env, paths) == _git_ignored(root, env, paths) == {"from_core"}
    (home / ".gitconfig").unlink()
    del env["XDG_CONFIG_HOME"]
    assert _ours(root, env, paths) == _git_ignored(root, env, paths) == {"from_home_config"}


def test_a_deeper_gitignore_overrides_a_shallower_one(tmp_path: Path):
    env = _env(tmp_path)
    root = _repo(tmp_path / "repo", env)
    (root / ".git" / "info" / "exclude").write_text("*.log\n")
    (root / ".gitignore").write_text("*.gen\n!keep.log\n")
    (root / "pkg").mkdir()
    (root / "pkg" / ".gitignore").write_text("!*.gen\nkeep.log\n")
    paths = ["a.gen", "keep.log", "other.log", "pkg/a.gen", "pkg/keep.log", "pkg/other.log"]
    _files(root, *paths)
    expected = {"a.gen", "other.log", "pkg/keep.log", "pkg/other.log"}
    assert _ours(root, env, paths) == _git_ignored(root, env, paths) == expected


def test_a_nested_repository_is_its_own_ignore_root(tmp_path: Path):
    """Outer rules do not reach into a nested checkout, and its rules do not leak out."""
    env = _env(tmp_path)
    root = _repo(tmp_path / "repo", env)
    (root / ".gitignore").write_text("build/\n*.tmp\n")
    vendored = _repo(root / "vendor" / "lib", env)
    (vendored / ".gitignore").write_text("*.py\n")
    _files(
        root,
        "build/out.o",
        "a.tmp",
        "main.py",
        "vendor/lib/build/keep.c",
        "vendor/lib/b.tmp",
        "vendor/lib/x.py",
    )
    engine = IgnoreEngine(root, env=env)
    walked = {e.path for e in engine.walk(include_dirs=False)}
    assert walked == {
        ".gitignore",
        "main.py",
        "vendor/lib/.gitignore",
        "vendor/lib/build/keep.c",
        "vendor/lib/b.tmp",
    }
    inner = ["build/keep.c", "b.tmp", "x.py"]
    assert {p for p in inner if engine.is_ignored("vendor/lib/" + p)} == _git_ignored(
        vendored, env, inner
    )


def test_a_file_under_an_excluded_directory_cannot_be_reincluded(tmp_path: Path):
    env = _env(tmp_path)
    root = _repo(tmp_path / "repo", env)
    (root / ".gitignore").write_text("logs/\n!logs/keep.txt\n")
    paths = ["logs/keep.txt", "logs/x.txt"]
    _files(root, *paths)
    assert _ours(root, env, paths) == _git_ignored(root, env, paths) == set(paths)


def test_rules_above_a_workspace_inside_a_repository_apply(tmp_path: Path):
    env = _env(tmp_path)
    repo = _repo(tmp_path / "repo", env)
    (repo / ".gitignore").write_text("dist/\n")
    _files(repo, "packages/app/dist/bundle.js", "packages/app/src/index.js")
    engine = IgnoreEngine(repo / "packages" / "app", env=env)
    assert [e.path for e in engine.walk(include_dirs=False)] == ["src/index.js"]


def test_a_workspace_the_enclosing_repository_ignores_is_its_own_root(tmp_path: Path):
    """A home directory tracked as a repository with "*" ignored must not hide a project in it."""
    env = _env(tmp_path)
    home = _repo(tmp_path / "dotfiles-home", env)
    (home / ".gitignore").write_text("*\n!.bashrc\n")
    project = home / "projects" / "app"
    (project).mkdir(parents=True)
    (project / ".gitignore").write_text("*.log\n")
    _files(project, "main.py", "debug.log")
    engine = IgnoreEngine(project, env=env)
    assert [e.path for e in engine.walk(include_dirs=False)] == [".gitignore", "main.py"]
