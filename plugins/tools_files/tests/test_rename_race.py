"""Under a rename race a listing or a search answers what is there, or ``path_changed``: never ``io_error``.

A separate process renames directories in a loop (``sub`` away and back, and
``sub`` exchanged with a symbolic link to a directory outside) while the tools
list and search through ``sub``. Every answer must be a correct one for some
moment of the race (the listing of ``sub``, or the refusal of the link
outside, or ``sub`` missing), or ``path_changed``: never ``io_error``, never a
traceback, never a name from outside.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentkit.plugin_api import ToolContext, ToolResult

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs symlinks and rename")

RENAMER = r"""
import ctypes, os, sys
root, mode, stop = sys.argv[1:4]
sub, moved, swap = (os.path.join(root, name) for name in ("sub", "sub.moved", "swap"))
libc = ctypes.CDLL(None, use_errno=True)
exchange = getattr(libc, "renameat2", None)
if exchange is not None:
    exchange.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
print("ready", flush=True)
for n in range(50_000_000):
    if n % 256 == 0 and os.path.exists(stop):
        break
    try:
        if mode == "move":
            os.rename(sub, moved)
            os.rename(moved, sub)
        elif exchange is not None and exchange(-100, sub.encode(), -100, swap.encode(), 2) == 0:
            pass
        else:
            os.rename(sub, moved); os.rename(swap, sub); os.rename(sub, swap); os.rename(moved, sub)
    except OSError:
        pass
"""

INSIDE = {"a.txt", "b.txt", "deep/"}
OUTSIDE_MARK = "outside-only"


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


@pytest.fixture(params=["move", "swap"])
def racing(request, tmp_path: Path) -> Iterator[Path]:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / f"{OUTSIDE_MARK}.txt").write_text(f"needle {OUTSIDE_MARK}\n")
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "sub" / "a.txt").write_text("needle a\n")
    (root / "sub" / "b.txt").write_text("needle b\n")
    (root / "sub" / "deep" / "c.txt").write_text("needle c\n")
    os.symlink(outside, root / "swap")
    stop = tmp_path / "stop"
    renamer = subprocess.Popen(
        [sys.executable, "-c", RENAMER, str(root), request.param, str(stop)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert renamer.stdout is not None and renamer.stdout.readline() == "ready\n"
        yield root
    finally:
        stop.touch()
        try:
            renamer.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            renamer.kill()
            renamer.communicate()


# Each case: the tool, its arguments, and what a correct answer's data holds.
CASES: dict[str, tuple[str, dict[str, Any], Any]] = {
    "list_files": ("list_files", {"path": "sub"}, lambda d: set(d["entries"]) == INSIDE),
    "list_files_deep": ("list_files", {"path": "sub/deep"}, lambda d: d["entries"] == ["c.txt"]),
    "find_files": (
        "find_files",
        {"pattern": "*.txt", "path": "sub"},
        lambda d: set(d["files"]) <= {"sub/a.txt", "sub/b.txt", "sub/deep/c.txt"},
    ),
    "search_files": (
        "search_files",
        {"pattern": "needle", "path": "sub"},
        lambda d: {m["file"] for m in d["matches"]} <= {"sub/a.txt", "sub/b.txt", "sub/deep/c.txt"},
    ),
}

#: Answers that are true of some moment of the race: ``sub`` missing, or a link leading outside.
TRUE_REFUSALS = {"not_found", "path_not_allowed"}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_a_rename_race_answers_a_listing_or_path_changed(racing: Path, case: str):
    name, arguments, correct = CASES[case]
    tool = _tools().get(name)
    if tool is None:
        pytest.skip(f"{name} is not installed")
    context = ToolContext(root=racing, options={"backend": "native"} if name == "search_files" else {})
    seen: dict[str, int] = {}
    for attempt in range(1500):
        result = tool.handler(dict(arguments), context)
        assert isinstance(result, ToolResult)
        shown = repr((result.data, result.detail))
        assert OUTSIDE_MARK not in shown, f"attempt {attempt} reached outside: {shown[:300]}"
        if result.ok:
            assert correct(result.data), f"attempt {attempt}: {result.data}"
        else:
            assert result.error == "path_changed" or result.error in TRUE_REFUSALS, (
                f"attempt {attempt}: {result.error}: {result.detail}"
            )
        key = "ok" if result.ok else str(result.error)
        seen[key] = seen.get(key, 0) + 1
    assert seen.get("ok", 0) > 0, seen
