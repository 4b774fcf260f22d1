"""Containment holds while an attacker in the workspace swaps a directory with a symlink out.

A separate process exchanges ``sub`` (a directory inside the root) with ``swap``
(a symlink to a directory outside) as fast as it can, with
``renameat2(RENAME_EXCHANGE)`` where the kernel has it and a rename loop
otherwise. Meanwhile every tool is called a bounded number of times on a path
through ``sub``. A check that resolves a path string and then does I/O on the
string again loses this race; opening relative to directory descriptors that
never follow a link does not. The directory outside holds a secret that must
never show up in a result, and nothing there may be created or modified.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentkit.plugin_api import ToolContext, ToolResult

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs symlinks and rename")

SECRET = "SECRET-outside"

SWAPPER = r"""
import ctypes, os, sys
inside, link, stop = sys.argv[1:4]
libc = ctypes.CDLL(None, use_errno=True)
exchange = getattr(libc, "renameat2", None)
RENAME_EXCHANGE, AT_FDCWD = 2, -100
if exchange is not None:
    exchange.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if exchange(AT_FDCWD, inside.encode(), AT_FDCWD, link.encode(), RENAME_EXCHANGE) != 0:
        exchange = None  # the file system or kernel cannot exchange: rename in a loop instead
print("ready", flush=True)
swaps = 0
for n in range(50_000_000):
    if n % 512 == 0 and os.path.exists(stop):
        break
    swaps += 1
    if exchange is not None:
        exchange(AT_FDCWD, inside.encode(), AT_FDCWD, link.encode(), RENAME_EXCHANGE)
    else:
        try:
            os.rename(inside, inside + ".real")
            os.rename(link, inside)
            os.rename(inside, link)
            os.rename(inside + ".real", inside)
        except OSError:
            pass
print(swaps, flush=True)
"""


def _snapshot(directory: Path) -> dict[str, tuple[int, int, bytes | None]]:
    """Every entry below ``directory``: its mode, its mtime and, for a file, its bytes."""
    found = {".": (0, directory.stat().st_mtime_ns, None)}
    for path in sorted(directory.rglob("*")):
        info = path.lstat()
        data = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        found[path.relative_to(directory).as_posix()] = (info.st_mode, info.st_mtime_ns, data)
    return found


class Attacked:
    """A workspace under attack, the directory outside it, and the attacker."""

    def __init__(self, root: Path, outside: Path, swapper: subprocess.Popen[str], stop: Path):
        self.root = root
        self.outside = outside
        self.before = _snapshot(outside)
        self.swapper = swapper
        self._stop = stop

    def stop(self) -> int:
        """Stop the attacker; returns how many swaps it made."""
        self._stop.touch()
        out, _ = self.swapper.communicate(timeout=60)
        return int(out.split()[-1])

    def untouched(self) -> bool:
        return _snapshot(self.outside) == self.before


@pytest.fixture
def attacked(tmp_path: Path) -> Iterator[Attacked]:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "file.txt").write_text(f"{SECRET} state a\n")
    (outside / "secret-only-outside.txt").write_text(f"{SECRET}\n")
    (outside / "deep" / "secret-deep.txt").write_text(f"{SECRET}\n")
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "sub" / "file.txt").write_text("inside state a\n")
    (root / "sub" / "deep" / "inner.txt").write_text("inside\n")
    os.symlink(outside, root / "swap")
    stop = tmp_path / "stop"
    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(root / "sub"), str(root / "swap"), str(stop)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert swapper.stdout is not None and swapper.stdout.readline() == "ready\n"
        yield Attacked(root, outside, swapper, stop)
    finally:
        stop.touch()
        try:
            swapper.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            swapper.kill()
            swapper.communicate()


def _tools() -> dict[str, Any]:
    import agentkit_tools_files

    found: dict[str, Any] = {}
    agentkit_tools_files.agentkit_register_tools(register=lambda t: found.setdefault(t.name, t))
    try:
        import agentkit_tools_search
    except ImportError:
        return found
    found["search_files"] = agentkit_tools_search.SEARCH_FILES
    return found


def _rg() -> str | None:
    import shutil

    venv_rg = Path(sys.executable).parent / "rg"
    return str(venv_rg) if venv_rg.is_file() else shutil.which("rg")


Call = Callable[[int], dict[str, Any]]

# Each case: the tool, how many attempts, and the arguments of attempt n.
CASES: dict[str, tuple[str, int, Call, dict[str, Any]]] = {
    "read_file": ("read_file", 5000, lambda n: {"path": "sub/file.txt"}, {}),
    "write_file": (
        "write_file",
        3000,
        lambda n: {"path": ("sub/file.txt", "sub/made/new.txt")[n % 2], "content": "w\n"},
        {},
    ),
    "edit_file": (
        "edit_file",
        3000,
        lambda n: {
            "path": "sub/file.txt",
            "edits": [{"old_string": "state a", "new_string": "state b"}]
            if n % 2 == 0
            else [{"old_string": "state b", "new_string": "state a"}],
        },
        {},
    ),
    "list_files": ("list_files", 4000, lambda n: {"path": ("sub", "sub/deep")[n % 2]}, {}),
    "find_files": ("find_files", 3000, lambda n: {"pattern": "**", "path": "."}, {}),
    "search_files": (
        "search_files",
        3000,
        lambda n: {"pattern": "SECRET|inside", "path": ("sub", ".")[n % 2]},
        {"backend": "native"},
    ),
    "search_files_rg": (
        "search_files",
        400,
        lambda n: {"pattern": "SECRET|inside", "path": ("sub", ".")[n % 2]},
        {"backend": "rg"},
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_a_swapped_directory_never_leads_a_tool_outside(attacked: Attacked, case: str):
    name, attempts, arguments, options = CASES[case]
    tools = _tools()
    if name not in tools:
        pytest.skip(f"{name} is not installed")
    if options.get("backend") == "rg":
        if _rg() is None:
            pytest.skip("rg not found")
        options = {**options, "rg_path": _rg()}
    context = ToolContext(root=attacked.root, options=options)
    outcomes: dict[str, int] = {}
    for n in range(attempts):
        result = tools[name].handler(arguments(n), context)
        assert isinstance(result, ToolResult)
        shown = repr((result.data, result.detail))
        assert SECRET not in shown, f"attempt {n} read outside the root: {shown[:300]}"
        assert "secret-" not in shown, f"attempt {n} listed outside the root: {shown[:300]}"
        key = "ok" if result.ok else str(result.error)
        outcomes[key] = outcomes.get(key, 0) + 1
    swaps = attacked.stop()
    assert attacked.untouched(), "something outside the root was created or modified"
    # The race really ran: the attacker swapped, and attempts met the directory.
    assert swaps > 0 and outcomes.get("ok", 0) > 0, (swaps, outcomes)
