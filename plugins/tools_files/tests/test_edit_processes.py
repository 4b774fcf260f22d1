"""Edits are never lost across processes: the lock is the operating system's, not a thread lock."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

EDITOR = r"""
import os, sys, time
from agentkit_tools_files import EDIT_FILE, WRITE_FILE  # noqa: F401 (import before the start line)
from agentkit.plugin_api import ToolContext

root, name, who, count, go = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
context = ToolContext(root=root)
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.001)
for n in range(count):
    edit = {"old_string": "END\n", "new_string": f"{who}-{n}\nEND\n"}
    result = EDIT_FILE.handler({"path": name, "edits": [edit]}, context)
    if not result.ok:
        print(result.error, result.detail, flush=True)
        sys.exit(1)
"""


def _editors(root: Path, name: str, count: int) -> list[subprocess.Popen[str]]:
    go = root.parent / "go"
    editors = [
        subprocess.Popen(
            [sys.executable, "-c", EDITOR, str(root), name, who, str(count), str(go)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for who in ("a", "b")
    ]
    for editor in editors:
        assert editor.stdout is not None and editor.stdout.readline() == "ready\n"
    go.touch()  # both start together
    return editors


def test_two_processes_editing_one_file_lose_no_edit(workspace):
    path = workspace.write("shared.txt", "END\n")
    editors = _editors(workspace.root, "shared.txt", 100)
    for editor in editors:
        out, _ = editor.communicate(timeout=120)
        assert editor.returncode == 0, out
    lines = path.read_text().splitlines()
    assert lines[-1] == "END"
    assert sorted(lines[:-1]) == sorted(f"{who}-{n}" for who in "ab" for n in range(100))
    # Each process's own edits stay in its order.
    for who in "ab":
        mine = [line for line in lines if line.startswith(f"{who}-")]
        assert mine == [f"{who}-{n}" for n in range(100)]
    assert list(workspace.root.iterdir()) == [path], "a temporary or lock file was left behind"


def test_a_file_locked_by_another_process_waits_for_it(workspace):
    path = workspace.write("held.txt", "END\n")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, time\n"
            "handle = open(sys.argv[1], 'rb')\n"
            "fcntl.flock(handle, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "sys.stdin.readline()\n",
            str(path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        editors = _editors(workspace.root, "held.txt", 1)
        time.sleep(0.3)
        # While the other process holds the lock, neither edit lands.
        assert path.read_text() == "END\n"
        assert all(editor.poll() is None for editor in editors)
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=30)
    for editor in editors:
        out, _ = editor.communicate(timeout=60)
        assert editor.returncode == 0, out
    assert sorted(path.read_text().splitlines()) == ["END", "a-0", "b-0"]
